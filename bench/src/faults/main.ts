/**
 * The fault test, repeated: `node bench/dist/faults/main.js --runs 10` runs the fault run of
 * test/src/faults/run.ts (3 etcd members, 3 replicas behind the /readyz-checked balancer,
 * writers and ~100 watchers through it, replicas and etcd members killed with SIGKILL and
 * started again one at a time) until one fails or all pass, printing each run's figures.
 *
 *   --runs N            runs in a row (default 1)
 *   --watchers N        default 100
 *   --writers N         default 6
 *   --write-rate N      writes per second over all writers (default 60)
 *   --faults a,b,…      replica | replica-sigterm | etcd-leader | etcd-follower (default replica,etcd-follower,replica,etcd-leader,replica)
 *   --json FILE         write every run's report there
 *   --keep              keep each run's directory (logs, etcd data) instead of removing it
 *
 * Needs test/ built (it holds the run) and etcd on PATH or $ETCD_BIN.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFaults, type FaultKind, type FaultRunReport } from '../../../test/dist/faults/run.js';
import { formatReport } from '../../../test/dist/faults/report.js';

function parse(argv: string[]) {
  const o = { runs: 1, watchers: 100, writers: 6, writeRate: 60, faults: ['replica', 'etcd-follower', 'replica', 'etcd-leader', 'replica'] as FaultKind[], json: '', keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--runs') o.runs = Number(v());
    else if (a === '--watchers') o.watchers = Number(v());
    else if (a === '--writers') o.writers = Number(v());
    else if (a === '--write-rate') o.writeRate = Number(v());
    else if (a === '--faults') o.faults = v().split(',') as FaultKind[];
    else if (a === '--json') o.json = v();
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const o = parse(process.argv.slice(2));
const reports: FaultRunReport[] = [];
let failed = false;
for (let run = 1; run <= o.runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-faults-'));
  const started = new Date().toISOString();
  console.log(`run ${run}/${o.runs} (${started}, dir ${dir})`);
  const report = await runFaults({ dir, watchers: o.watchers, writers: o.writers, writeRate: o.writeRate, faults: o.faults, seed: run, log: (m) => console.log(`  ${m}`) });
  reports.push(report);
  console.log(formatReport(report, `run ${run}`));
  if (o.json) writeFileSync(o.json, `${JSON.stringify(reports, null, 2)}\n`);
  if (!o.keep && report.ok) rmSync(dir, { recursive: true, force: true });
  if (!report.ok) {
    console.log(`run ${run} FAILED; its directory (logs, etcd data) is kept: ${dir}`);
    failed = true;
    break;
  }
}
console.log(failed ? `FAILED after ${reports.length - 1} passing run(s)` : `${reports.length} run(s) in a row passed`);
process.exit(failed ? 1 : 0);
