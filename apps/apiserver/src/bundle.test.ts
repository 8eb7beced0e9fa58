/**
 * bin/windlass.js starts from the bundle only while it is current, and keeps its code cache: a
 * copy of the launcher in a scratch app directory, with a stand-in bundle and dist/main.js that
 * say which one ran.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
  // As the build writes it: a function expression, as Node wraps a CommonJS module; it announces
  // that it serves, as the server does, which is when the launcher writes the code cache.
  writeFileSync(join(app, 'dist', 'bundle', 'main.cjs'), "(function (exports, require, module, __filename, __dirname) {console.log('bundle'); process.emit('windlass:serving');\n})");
  mkdirSync(join(app, 'deps', 'dep@1.0.0'), { recursive: true });
  writeFileSync(join(app, 'dist', 'bundle', 'inputs.json'), JSON.stringify({ files: ['src/input.js'], packages: ['deps/dep@1.0.0'] }));
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

test('a missing input, dependency version or list, or WINDLASS_NO_BUNDLE=1: the modules start', () => {
  expect(ran({ WINDLASS_NO_BUNDLE: '1' })).toBe('modules');
  rmSync(join(app, 'deps', 'dep@1.0.0'), { recursive: true });
  expect(ran()).toBe('modules');
  mkdirSync(join(app, 'deps', 'dep@1.0.0'));
  expect(ran()).toBe('bundle');
  rmSync(join(app, 'src', 'input.js'));
  expect(ran()).toBe('modules');
  rmSync(join(app, 'dist', 'bundle', 'inputs.json'));
  expect(ran()).toBe('modules');
});

test('the code cache: written once the bundle serves, kept while V8 accepts it, written again when it does not', () => {
  const cache = join(app, 'dist', 'bundle', 'main.cjs.cache');
  expect(ran()).toBe('bundle');
  expect(existsSync(cache)).toBe(true);
  const past = new Date(Date.now() - 60_000);
  utimesSync(cache, past, past);
  expect(ran()).toBe('bundle');
  expect(Math.abs(statSync(cache).mtimeMs - past.getTime())).toBeLessThan(1);
  writeFileSync(cache, 'not a code cache');
  expect(ran()).toBe('bundle');
  expect(readFileSync(cache).toString()).not.toBe('not a code cache');
  expect(statSync(cache).size).toBeGreaterThan(100);
});

test('a bundle that sets the server\'s V8 flag as it loads (linear-time regexes) still keeps its cache', () => {
  // V8's code cache records the flags it was made under: the launcher sets this one before compiling.
  writeFileSync(join(app, 'dist', 'bundle', 'main.cjs'), "(function (exports, require, module, __filename, __dirname) {require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks'); console.log('bundle'); process.emit('windlass:serving');\n})");
  const cache = join(app, 'dist', 'bundle', 'main.cjs.cache');
  expect(ran()).toBe('bundle');
  const past = new Date(Date.now() - 60_000);
  utimesSync(cache, past, past);
  expect(ran()).toBe('bundle');
  expect(Math.abs(statSync(cache).mtimeMs - past.getTime())).toBeLessThan(1);
});
