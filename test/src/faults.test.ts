/**
 * One short fault run (test/src/faults/run.ts) so CI keeps the mechanism honest: the HA
 * topology (3 etcd members, 3 replicas, the /readyz-checked balancer), writers and 20
 * watchers through the balancer, one replica and then the etcd leader killed with SIGKILL
 * and started again. Every watcher must see exactly etcd's history, every acknowledged
 * write must be in it, clients must have seen only retryable errors. The 10-run with ~100
 * watchers is bench/src/faults (figures in bench/RESULTS.md).
 */
import { removeDir, tempDir } from './harness.js';
import { formatReport } from './faults/report.js';
import { runFaults } from './faults/run.js';

test('writers and watchers through the balancer survive a replica and the etcd leader killed: no lost write, no gap, only retryable errors', async () => {
  const dir = tempDir('windlass-faults-');
  const report = await runFaults({ dir, watchers: 20, writers: 4, writeRate: 30, faults: ['replica', 'etcd-leader'], seed: 1, settleSeconds: 2 });
  console.log(formatReport(report, 'fault run'));
  expect(report.problems).toEqual([]);
  // The faults happened and the paths they exercise ran.
  expect(report.faults.map((f) => f.fault)).toEqual(['kill -9 replica', 'kill -9 etcd leader']);
  expect(report.faults[0].restartToReadyMs).toBeGreaterThan(0);
  expect(Object.keys(report.faults[1].firstWriteAfterKillMs ?? {})).toHaveLength(3);
  expect(report.watchRequests).toBeGreaterThan(report.watchers); // watches broke and resumed
  expect(report.writesAcknowledged).toBeGreaterThan(100);
  expect(report.eventsChecked).toBeGreaterThan(report.historyEvents);
  removeDir(dir);
}, 150000);
