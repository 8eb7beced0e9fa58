/**
 * Bundles the compiled server (dist/main.js and everything it imports) into one CommonJS
 * script, dist/bundle/main.cjs, which bin/windlass.js compiles through V8's code cache:
 * resolving, reading and linking the few hundred ES modules of the workspace and its
 * dependencies one by one was most of the binary's start-up (measured: `windlass --help`
 * 0.54 s from dist/main.js, ~0.35 s from an ES module bundle, on 2 busy cores), and parsing
 * that bundle most of what was left; controllers' test suites start the binary often.
 *
 * One script rather than chunks loaded on demand: what an embedded server does not run (the
 * etcd client, x509) is only parsed lazily, and the code cache skips parsing what it runs.
 * Beside it, dist/bundle/inputs.json lists what was bundled: the binary falls back to
 * dist/main.js when any of it is newer than the bundle (a package rebuilt on its own) or gone.
 * Packages that find files beside their own code stay outside, loaded from node_modules as
 * usual: better-sqlite3 and @windlass/memory (their native addons). The bundle must hold no __dirname or
 * __filename: checked below. Last, a warm-up start writes the code cache
 * (dist/bundle/main.cjs.cache), so that the first start after a build is fast too.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(app, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: app,
  entryPoints: ['dist/main.js'],
  outfile: join(outdir, 'main.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['better-sqlite3', '@windlass/memory'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// Relative to the app's directory, so that a copy of the workspace (the image) can check them too.
for (const file of Object.keys(result.metafile.outputs)) {
  const code = readFileSync(resolve(app, file), 'utf8');
  for (const name of ['__dirname', '__filename']) {
    if (code.includes(name)) throw new Error(`${file} uses ${name}, which in the bundle names the bundle's directory, not the package's: mark the package that does so external`);
  }
}
// Stored as Node wraps a CommonJS module (the hashbang dropped), so that the binary compiles the
// file's text as it is. ASCII only, so that the binary reads it as latin1: a one-byte string,
// where UTF-8 decoding made a two-byte copy of all 6 MB (measured: 45 ms against 2.5 ms) for a
// few characters in comments and regular expressions. esbuild escapes strings itself; \uXXXX
// means the same in the rest (comments, regular expressions, identifiers), except in a template
// literal's raw text. Without the u flag, the pattern escapes each UTF-16 unit, surrogates too.
const bundled = join(outdir, 'main.cjs');
const source = readFileSync(bundled, 'utf8').replace(/^#!.*/, '');
const escaped = source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const wrapped = `(function (exports, require, module, __filename, __dirname) {${escaped}\n})`;
new Script(wrapped, { filename: bundled }); // throws on what the escapes broke, if anything
writeFileSync(bundled, wrapped);
// The workspace's own files, whose times the binary compares with the bundle's; of the
// dependencies, only the directories pnpm keeps each version in, which the binary checks still
// exist: a version's files never change, and a reinstall (the image's) gives them new times.
const files = [];
const packages = new Set();
for (const p of Object.keys(result.metafile.inputs).map((p) => relative(app, resolve(app, p)))) {
  const pnpmDir = /^(.*\/node_modules\/\.pnpm\/[^/]+)\//.exec(p);
  if (pnpmDir) packages.add(pnpmDir[1]);
  else files.push(p);
}
writeFileSync(join(outdir, 'inputs.json'), JSON.stringify({ files, packages: [...packages] }));

// The warm-up start: on a new data directory, the loader writes the cache once the server serves, then exits.
const dataDir = mkdtempSync(join(tmpdir(), 'windlass-warmup-'));
try {
  const warm = spawnSync(process.execPath, [join(app, 'bin', 'windlass.js'), 'start', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1'], {
    env: { ...process.env, WINDLASS_CODE_CACHE_WARMUP: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 60_000,
  });
  if (warm.status !== 0) console.warn(`bundle: the warm-up start failed (${warm.error ?? `exit ${warm.status}`}), the first start writes the code cache: ${warm.stderr}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
