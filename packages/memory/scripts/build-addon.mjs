/**
 * Compiles the addon with node-gyp against this Node's own headers when it has them (Debian's
 * nodejs, the official tarballs and images all install include/node beside bin/node): node-gyp
 * would otherwise download them, and a machine that reaches only the npm registry cannot.
 * npm's `nodedir` setting, when set, wins. With --if-missing (pnpm install runs it so): nothing
 * to do when the addon is built, as in an image's production install, which has no node-gyp.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv.includes('--if-missing') && existsSync(join(pkg, 'build/Release/windlass_memory.node'))) process.exit(0);
const nodeGyp = createRequire(join(pkg, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
const args = [nodeGyp, 'rebuild', '--release'];
const own = join(dirname(process.execPath), '..');
const nodedir = process.env.npm_config_nodedir || (existsSync(join(own, 'include/node/node.h')) ? own : undefined);
if (nodedir) args.push(`--nodedir=${nodedir}`);
// Its progress goes to stderr too: shown only when it fails.
const r = spawnSync(process.execPath, args, { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (r.status !== 0) {
  process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  console.error(`@windlass/memory: node-gyp ${args.slice(1).join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  process.exit(1);
}
