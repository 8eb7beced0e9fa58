/**
 * Issue 15's benchmark: Windlass started through its CLI in its own process, load generators
 * in other processes, server CPU per operation from /proc; beside it, in the same run, the
 * floors (bare Node HTTPS server, etcd3 client alone). Prints markdown; writes raw JSON.
 *
 *   node bench/dist/lean/main.js        (or: node bench/dist/run.js lean)
 *
 * Knobs: see config.ts and bench/RESULTS.md ("Issue 15: lean request path — harness").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { machineLine } from '../common.js';
import { BENCH_REPO_ROOT, config } from './config.js';
import { getClients, log, RUN_STAMP, type RunCtx } from './harness.js';
import { topTable } from './profile-top.js';
import { report } from './report.js';
import { runBulkSections } from './sections/bulk.js';
import { runFanoutSection } from './sections/fanout.js';
import { runFloors } from './sections/floors.js';
import { runRequestSections } from './sections/requests.js';
import { supportsWorkers } from './targets.js';
import { hasWrk } from './wrk.js';

function commitOf(root: string): string {
  try {
    const head = execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no', '--', 'apps', 'packages'], { encoding: 'utf8' }).trim();
    return `${head}${dirty ? ' (+ uncommitted changes in apps/ or packages/)' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function wrkVersion(): string {
  if (!hasWrk()) return 'not installed (GETs use the Node load generator)';
  try {
    execFileSync('wrk', ['--version'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    return /wrk (\S+)/.exec(String((err as { stdout?: string }).stdout))?.[1] ?? 'installed';
  }
  return 'installed';
}

async function section(ctx: RunCtx, what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const msg = `${what} failed: ${(err as Error).message.split('\n').slice(0, 6).join(' / ')}`;
    log(msg);
    ctx.notes.push(`**${msg}**`);
  }
}

export async function runLean(): Promise<string> {
  // Interrupted: exit through process.exit, so the 'exit' hooks stop the servers and etcds this run started.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  const started = performance.now();
  const ctx: RunCtx = { rows: [], profiles: [], notes: [] };
  const header = [
    `Server: ${config.serverRoot} at ${commitOf(config.serverRoot)}; --workers flag: ${supportsWorkers(config.serverRoot) ? 'yes (passed explicitly)' : 'no'}`,
    config.baselineRoot ? `Baseline: ${config.baselineRoot} at ${commitOf(config.baselineRoot)}` : 'Baseline: none (set BENCH_BASELINE_ROOT for the rows compared with today\'s main)',
    `wrk: ${wrkVersion()}; GET client(s): ${getClients().join(', ')}; backends: ${config.backends.join(', ')}; sections: ${[...config.sections].join(', ')}`,
    `Windows: ${config.durationMs / 1000} s after ${config.warmupMs / 1000} s warm-up; ConfigMap ${config.objectBytes} bytes as sent${config.repeat > 1 ? `; ${config.repeat} passes (BENCH_REPEAT), a target's verdict from the median of its per-pass ratios` : ''}${config.quick ? '; BENCH_QUICK=1 (smoke sizes)' : ''}${config.profile ? '; BENCH_PROFILE=1 (servers profiled: figures carry the profiler\'s overhead)' : ''}`,
  ];
  for (const l of header) log(l);

  let jsonBytes: number | undefined;
  for (let pass = 1; pass <= config.repeat; pass++) {
    if (config.repeat > 1) log(`pass ${pass} of ${config.repeat}`);
    await section(ctx, 'floors', async () => (jsonBytes = (await runFloors(ctx))?.jsonBytes));
    for (const backend of config.backends) {
      await section(ctx, `${backend}: requests`, () => runRequestSections(ctx, backend));
      await section(ctx, `${backend}: list/memory`, () => runBulkSections(ctx, backend));
      await section(ctx, `${backend}: fan-out`, () => runFanoutSection(ctx, backend));
    }
    for (const r of ctx.rows) r.pass ??= pass;
  }

  const seconds = (performance.now() - started) / 1000;
  const out = resolve(config.outFile ?? join(BENCH_REPO_ROOT, 'bench/results', `lean-${RUN_STAMP}.json`));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ machine: machineLine(), header, config: { ...config, sections: [...config.sections] }, jsonBytes, seconds, rows: ctx.rows, notes: ctx.notes, profiles: ctx.profiles }, null, 2));

  const text = [...header, '', report(ctx.rows, ctx.notes), '', `Raw results: ${out}. Runtime ${seconds.toFixed(1)} s.`];
  for (const p of ctx.profiles) {
    try {
      text.push('', `#### CPU profile: ${p.label} (${p.dir})`, '', topTable(p.dir, config.profileTop));
    } catch (err) {
      text.push('', `#### CPU profile: ${p.label}: not readable (${(err as Error).message})`);
    }
  }
  return text.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runLean().then(
    (text) => {
      process.stdout.write(`${machineLine()}\n\n${text}\n`);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
