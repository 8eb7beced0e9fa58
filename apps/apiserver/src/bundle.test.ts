/**
 * bin/windlass.js starts from the bundle only while it is current: a copy of the launcher in
 * a scratch app directory, with a stand-in bundle and dist/main.js that say which one ran.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const launcher = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'windlass.js');
let app = '';

beforeEach(() => {
  app = mkdtempSync(join(tmpdir(), 'windlass-bundle-'));
  mkdirSync(join(app, 'bin'));
  mkdirSync(join(app, 'dist', 'bundle'), { recursive: true });
  mkdirSync(join(app, 'src'));
  writeFileSync(join(app, 'package.json'), '{"type":"module"}');
  copyFileSync(launcher, join(app, 'bin', 'windlass.js'));
  writeFileSync(join(app, 'src', 'input.js'), '');
  writeFileSync(join(app, 'dist', 'main.js'), "console.log('modules');");
  writeFileSync(join(app, 'dist', 'bundle', 'main.mjs'), "console.log('bundle');");
  writeFileSync(join(app, 'dist', 'bundle', 'inputs.json'), JSON.stringify(['src/input.js']));
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(app, 'src', 'input.js'), past, past);
});

afterEach(() => rmSync(app, { recursive: true, force: true }));

const ran = (env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [join(app, 'bin', 'windlass.js')], { encoding: 'utf8', env: { ...process.env, WINDLASS_NO_BUNDLE: '', ...env } }).stdout.trim();

test('a bundle newer than all its inputs is what starts', () => {
  expect(ran()).toBe('bundle');
});

test('an input changed after the bundle was made: the modules start instead', () => {
  const future = new Date(Date.now() + 60_000);
  utimesSync(join(app, 'src', 'input.js'), future, future);
  expect(ran()).toBe('modules');
});

test('a missing input or list, or WINDLASS_NO_BUNDLE=1: the modules start', () => {
  expect(ran({ WINDLASS_NO_BUNDLE: '1' })).toBe('modules');
  rmSync(join(app, 'src', 'input.js'));
  expect(ran()).toBe('modules');
  rmSync(join(app, 'dist', 'bundle', 'inputs.json'));
  expect(ran()).toBe('modules');
});
