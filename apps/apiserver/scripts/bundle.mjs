/**
 * Bundles the compiled server (dist/main.js and everything it imports) into
 * dist/bundle/main.mjs, which bin/windlass.js loads: resolving, reading and linking the
 * few hundred ES modules of the workspace and its dependencies one by one was most of the
 * binary's start-up (measured: `windlass --help` 0.54 s from dist/main.js, ~0.35 s from the
 * bundle, on 2 busy cores), and controllers' test suites start it often.
 *
 * What the code imports on demand (the etcd backend, x509, generated tables) stays in chunks
 * of its own, so an embedded server does not load it.
 * Beside them, dist/bundle/inputs.json lists the files bundled: the binary falls back
 * to dist/main.js when any of them is newer than the bundle (a package rebuilt on its own).
 * Packages that find files beside their own code stay outside, loaded from node_modules as
 * usual: better-sqlite3 (its native addon). The bundle must hold no __dirname or
 * __filename: checked below.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(app, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: app,
  entryPoints: ['dist/main.js'],
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as windlassCreateRequire } from 'node:module'; const require = windlassCreateRequire(import.meta.url);" },
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// Relative to the app's directory, so that a copy of the workspace (the image) can check them too.
for (const file of Object.keys(result.metafile.outputs)) {
  const code = readFileSync(resolve(app, file), 'utf8');
  for (const name of ['__dirname', '__filename']) {
    if (code.includes(name)) throw new Error(`${file} uses ${name}, which an ES module lacks: mark the package that does so external`);
  }
}
const inputs = Object.keys(result.metafile.inputs).map((p) => relative(app, resolve(app, p)));
writeFileSync(join(outdir, 'inputs.json'), JSON.stringify(inputs));
