/**
 * Bundles the compiled server (dist/main.js and everything it imports) into one file,
 * dist/windlass.bundle.mjs, which bin/windlass.js loads: resolving, reading and linking the
 * few hundred ES modules of the workspace and its dependencies one by one was most of the
 * binary's start-up (measured: `windlass --help` 0.54 s from dist/main.js, ~0.35 s from the
 * bundle, on 2 busy cores), and controllers' test suites start it often.
 *
 * Beside it, dist/windlass.bundle.inputs.json lists the files bundled: the binary falls back
 * to dist/main.js when any of them is newer than the bundle (a package rebuilt on its own).
 * Packages that find files beside their own code stay outside, loaded from node_modules as
 * usual: better-sqlite3 (its native addon) and etcd3 (its .proto files, through __dirname,
 * as @grpc/grpc-js does). The bundle must hold no __dirname or __filename: checked below.
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(app, 'dist', 'windlass.bundle.mjs');
const result = await build({
  absWorkingDir: app,
  entryPoints: ['dist/main.js'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'etcd3'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as windlassCreateRequire } from 'node:module'; const require = windlassCreateRequire(import.meta.url);" },
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// Relative to the app's directory, so that a copy of the workspace (the image) can check them too.
const code = readFileSync(outfile, 'utf8');
for (const name of ['__dirname', '__filename']) {
  if (code.includes(name)) throw new Error(`the bundle uses ${name}, which an ES module lacks: mark the package that does so external`);
}
const inputs = Object.keys(result.metafile.inputs).map((p) => relative(app, resolve(app, p)));
writeFileSync(join(app, 'dist', 'windlass.bundle.inputs.json'), JSON.stringify(inputs));
