#!/usr/bin/env node
// Makes a fresh clone runnable with only Node 20 and npm: installs pnpm locally, the
// workspace's packages and (for tests) etcd, builds, then starts the server or runs the tests.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pnpmVersion = '9.15.9';
const toolsBin = join(root, '.tools', 'node_modules', '.bin');
const env = { ...process.env, PATH: `${toolsBin}:${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };
const quiet = process.argv.includes('--verbose-setup') ? 'inherit' : ['ignore', 'ignore', 'inherit'];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: opts.stdio ?? 'inherit' });
  if (r.status !== 0 && !opts.allowFailure) {
    console.error(`windlass: '${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  return r.status === 0;
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { env, stdio: 'ignore' }).status === 0;
}

function ensurePnpm() {
  if (existsSync(join(toolsBin, 'pnpm'))) return;
  console.error('windlass: installing pnpm into .tools/ …');
  run('npm', ['install', '--prefix', join(root, '.tools'), '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `pnpm@${pnpmVersion}`], { stdio: quiet });
}

function ensureDependencies() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.error('windlass: installing packages …');
  run('pnpm', ['install', '--frozen-lockfile'], { stdio: quiet });
}

function build() {
  run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { stdio: quiet });
}

/** The Kubernetes Python client as Debian packages it (the e2e tests run /usr/bin/python3 explicitly). */
function hasPythonClient() {
  return spawnSync('/usr/bin/python3', ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;
}

function ensureTestDependencies() {
  const etcd = (process.env.ETCD_BIN && existsSync(process.env.ETCD_BIN)) || has('etcd');
  const prometheus = (process.env.PROMETHEUS_BIN && existsSync(process.env.PROMETHEUS_BIN)) || has('prometheus');
  if (etcd && prometheus && hasPythonClient()) return;
  console.error("windlass: installing Debian's etcd-server, python3-kubernetes and prometheus for the tests …");
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const apt = (args) => run(sudo[0] ?? 'apt-get', sudo.length ? ['apt-get', ...args] : args, { stdio: quiet });
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', 'etcd-server', 'python3-kubernetes', 'prometheus']);
}

/**
 * The suites in two lanes at once, once everything is built: the e2e suite (the longest; two
 * Jest workers, test/jest.config.json) beside every other package's one after another (the
 * server's is most of that lane: one worker, waiting on timers and etcd a third of its time).
 * Three workers keep both cores busy. (Tests beside the builds were slower: they starved the
 * chain of tsc runs the e2e suite waits for.) A failing suite cancels nothing: every failure
 * shows in one run, and the run fails. With a --filter of the caller's, its suites run in one lane.
 */
async function runTests(args) {
  const turbo = (extra) => new Promise((resolve) => {
    const child = spawn('pnpm', ['exec', 'turbo', 'run', 'test', '--continue=dependencies-successful', '--output-logs=new-only', '--log-order=grouped', ...extra, ...args], { cwd: root, env, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
  const filtered = args.some((a) => a === '-F' || a.startsWith('--filter'));
  // --only: the builds just ran; two turbo runs restoring the same build outputs would race.
  const codes = await Promise.all(filtered ? [turbo(['--concurrency=1'])]
    : [turbo(['--only', '--filter=@windlass/e2e']), turbo(['--only', '--filter=!@windlass/e2e', '--concurrency=1'])]);
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) {
    console.error('windlass: tests failed');
    process.exit(failed);
  }
}

const [command = 'start', ...rest] = process.argv.slice(2).filter((a) => a !== '--verbose-setup');
ensurePnpm();
ensureDependencies();
build();
switch (command) {
  case 'start':
    run('node', [join(root, 'apps', 'apiserver', 'bin', 'windlass.js'), 'start', ...rest]);
    break;
  case 'test':
    ensureTestDependencies();
    await runTests(rest);
    break;
  case 'bench':
    ensureTestDependencies();
    run('pnpm', ['--filter', '@windlass/bench', 'run', 'bench', ...rest]);
    break;
  default:
    console.error(`windlass: unknown command ${command} (start, test, bench)`);
    process.exit(2);
}
