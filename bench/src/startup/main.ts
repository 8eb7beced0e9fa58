/**
 * Start-up of the `windlass` binary, as controllers' test suites pay it: the time from spawning
 * `windlass start` until it prints that it serves (it listens and is ready then), and the CPU
 * the process used by that moment (/proc). Three cases, each in its own process:
 *   - `--help`: loading the binary only;
 *   - first start: a new data directory (certificates, credentials, the bootstrap objects);
 *   - restart: the same data directory again.
 * With BENCH_BASELINE_ROOT (a built checkout), its binary is measured in the same rounds,
 * alternating with this one, so that both see the same state of the machine.
 *
 *   node bench/dist/startup/main.js                      # BENCH_ROUNDS=10
 *   BENCH_BASELINE_ROOT=/tmp/wl-old node bench/dist/startup/main.js
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { cpuMs } from '../lean/proc.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const here = resolve(fileURLToPath(import.meta.url), '../../../..');
const roots: Record<string, string> = { current: here };
if (process.env.BENCH_BASELINE_ROOT) roots.baseline = resolve(process.env.BENCH_BASELINE_ROOT);

interface Run { wallMs: number; cpuMs: number }

const binary = (root: string) => join(root, 'apps', 'apiserver', 'bin', 'windlass.js');

/** Spawns `windlass start` and resolves once it prints that it serves, with its CPU by then. */
function startUntilServing(root: string, dataDir: string): Promise<Run> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [binary(root), 'start', '--data-dir', dataDir, '--secure-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let run: Run | undefined;
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (run || !out.includes(' serving on ')) return;
      run = { wallMs: performance.now() - t0, cpuMs: cpuMs([child.pid!]) };
      child.kill('SIGTERM');
    });
    child.once('exit', (code) => (run ? done(run) : fail(new Error(`windlass exited (${code}) before serving: ${err}`))));
  });
}

function help(root: string): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [binary(root), '--help'], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`windlass --help exited ${r.status}`);
  const wallMs = performance.now() - t0;
  // spawnSync reports no rusage; the wall time of --help is the loading cost (one thread busy).
  return { wallMs, cpuMs: Number.NaN };
}

const results: Record<string, Record<'help' | 'first' | 'restart', Run[]>> = {};
for (const name of Object.keys(roots)) results[name] = { help: [], first: [], restart: [] };

for (let i = 0; i < rounds; i++) {
  for (const [name, root] of Object.entries(roots)) {
    const dataDir = mkdtempSync(join(tmpdir(), 'windlass-startup-'));
    try {
      results[name].help.push(help(root));
      results[name].first.push(await startUntilServing(root, dataDir));
      results[name].restart.push(await startUntilServing(root, dataDir));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
console.log(`\n${rounds} rounds; load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
console.log('| binary | case | wall ms, median (range) | CPU ms by then, median (range) |');
console.log('|---|---|---:|---:|');
for (const [name, cases] of Object.entries(results)) {
  for (const [c, runs] of Object.entries(cases)) {
    const walls = runs.map((r) => r.wallMs);
    const cpus = runs.map((r) => r.cpuMs).filter((x) => !Number.isNaN(x));
    const cpu = cpus.length ? `${Math.round(median(cpus))} (${range(cpus)})` : '–';
    console.log(`| ${name} | ${c} | ${Math.round(median(walls))} (${range(walls)}) | ${cpu} |`);
  }
}
