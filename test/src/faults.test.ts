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
import { checkAcknowledgedWrites } from './faults/writecheck.js';
import type { Op } from './faults/writer.js';
import type { ObjectState } from './kubehttp.js';
import type { Ev } from './watchcheck.js';

test('the write check finds a lost write, a write applied twice and a write nobody made', () => {
  const obj = (name: string, rv: string, seq: string): ObjectState => ({ namespace: 'fault-a', name, uid: `u-${name}`, resourceVersion: rv, labels: {}, data: { seq } });
  const op = (seq: number, kind: Op['kind'], key: string, result?: ObjectState): Op => ({ writer: 'w0', seq, kind, key, sentAt: 0, ackedAt: 1, result, attempts: 1 });
  const acked = [op(1, 'create', 'fault-a/x', obj('x', '10', '1')), op(2, 'update', 'fault-a/x', obj('x', '12', '2')), op(3, 'delete', 'fault-a/x')];
  const good: Ev[] = [
    { type: 'ADDED', obj: obj('x', '10', '1') },
    { type: 'MODIFIED', obj: obj('x', '12', '2') },
    { type: 'DELETED', obj: obj('x', '13', '2') },
  ];
  expect(checkAcknowledgedWrites(acked, good, ['fault-a'])).toEqual([]);
  // The update lost: etcd went from the create to the delete.
  expect(checkAcknowledgedWrites(acked, [good[0], good[2]], ['fault-a']).length).toBeGreaterThan(0);
  // The update applied twice (a retried transaction that was not conditional).
  expect(checkAcknowledgedWrites(acked, [good[0], good[1], { type: 'MODIFIED', obj: obj('x', '13', '2') }, { ...good[2], obj: obj('x', '14', '2') }], ['fault-a']).length).toBeGreaterThan(0);
  // A value other than the one the server answered with.
  expect(checkAcknowledgedWrites(acked, [good[0], { type: 'MODIFIED', obj: obj('x', '12', '9') }, good[2]], ['fault-a']).length).toBeGreaterThan(0);
  // An object in a writers' namespace that no writer made.
  expect(checkAcknowledgedWrites(acked, [...good, { type: 'ADDED', obj: obj('y', '15', '1') }], ['fault-a'])).toEqual([expect.stringContaining('fault-a/y')]);
});

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
