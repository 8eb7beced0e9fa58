import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedStorage } from './embedded.js';
import { MAX_BATCH_BYTES, MAX_BATCH_OPS } from './embedded/group-commit.js';
import { rejectsWith } from './testing/assertions.js';
import { WatchRecorder } from './testing/recorder.js';
import { isStorageError, type KeyValue } from './types.js';

/**
 * Group commit on the embedded backend: writes submitted in one turn of the event loop
 * share a transaction, each compare sees the batch's earlier writes, and nothing is
 * visible or acknowledged before the COMMIT.
 */

const b = (s: string): Buffer => Buffer.from(s);
const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'windlass-group-'));
  path = join(dir, 'state.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('creates submitted in one tick commit in one batch, with consecutive revisions in arrival order', async () => {
  const s = new EmbeddedStorage({ path, progressIntervalMs: 0 });
  const n = 300;
  const writes = range(0, n).map((i) => s.create(`/registry/k${i}`, b(String(i))));
  // Read when the first write is acknowledged: the whole batch committed with it.
  const revisionAtFirstAck = writes[0].then(() => s.currentRevision());
  const kvs = await Promise.all(writes);
  expect(kvs.map((kv) => kv.modRevision)).toEqual(range(2, n));
  expect(kvs.map((kv) => kv.createRevision)).toEqual(range(2, n));
  expect(await revisionAtFirstAck).toBe(n + 1);
  expect((await s.range('/registry/', { prefix: true })).count).toBe(n);
  await s.close();
});

test('writes submitted by separate callbacks of one event-loop phase share a batch', async () => {
  // Stands in for requests parsed by separate I/O callbacks of one poll phase: a flush
  // after each callback's microtasks would commit them one by one.
  const s = new EmbeddedStorage(':memory:');
  let revisionAtFirstAck: Promise<number> | undefined;
  const writes = await new Promise<Promise<KeyValue>[]>((resolve) => {
    const submitted: Promise<KeyValue>[] = [];
    for (let i = 0; i < 3; i++) {
      setImmediate(() => {
        submitted.push(s.create(`/registry/k${i}`, b(String(i))));
        revisionAtFirstAck ??= submitted[0].then(() => s.currentRevision());
        if (submitted.length === 3) resolve(submitted);
      });
    }
  });
  expect((await Promise.all(writes)).map((kv) => kv.modRevision)).toEqual([2, 3, 4]);
  expect(await revisionAtFirstAck).toBe(4);
  await s.close();
});

test('a write is neither visible nor acknowledged before its batch is committed to the file', async () => {
  const s = new EmbeddedStorage({ path, progressIntervalMs: 0 });
  const onDisk = new Database(path, { readonly: true });
  const committedRow = onDisk.prepare('SELECT id FROM kv WHERE name = ?');
  const p = s.create('/registry/a', b('1')).then((kv) => ({ kv, row: committedRow.get('/registry/a') }));
  // Reads made in the same tick as the write see the state before it.
  const revision = s.currentRevision();
  const absent = s.get('/registry/a');
  const count = s.range('/registry/', { prefix: true, countOnly: true });
  expect(await revision).toBe(1);
  expect(await absent).toBeNull();
  expect((await count).count).toBe(0);
  // By the time the promise resolves, another connection to the file sees the row.
  const { kv, row } = await p;
  expect(row).toEqual({ id: 2 });
  expect(await s.get('/registry/a')).toEqual(kv);
  expect(await s.currentRevision()).toBe(2);
  onDisk.close();
  await s.close();
});

test('two creates of one key in a batch: one KeyExists, which takes no revision', async () => {
  const s = new EmbeddedStorage(':memory:');
  const rec = new WatchRecorder();
  await s.watch('/registry/', 0, rec);
  const first = s.create('/registry/a', b('first'));
  const second = s.create('/registry/a', b('second'));
  const other = s.create('/registry/b', b('other'));
  const a = await first;
  expect(a.modRevision).toBe(2);
  const err = await rejectsWith(second, 'KeyExists');
  expect(err.details?.current).toEqual(a);
  expect((await other).modRevision).toBe(3);
  expect(await s.currentRevision()).toBe(3);
  expect((await s.get('/registry/a'))?.value.toString()).toBe('first');
  await rec.untilKeyAt('/registry/b', 3);
  expect(rec.received.map((e) => `${e.key}@${e.revision}`)).toEqual(['/registry/a@2', '/registry/b@3']);
  await s.close();
});

test('compares in a batch see the batch\'s earlier writes', async () => {
  const s = new EmbeddedStorage(':memory:');
  const rec = new WatchRecorder();
  await s.watch('/registry/', 0, rec, { prevKv: true });
  // All submitted in one tick against a store at revision 1, so the revisions are known.
  const created = s.create('/registry/a', b('v1'));
  const updated = s.update('/registry/a', b('v2'), 2);
  const stale = s.update('/registry/a', b('stale'), 2);
  const deleted = s.delete('/registry/a', 3);
  const afterDelete = s.update('/registry/a', b('gone'), 3);
  const recreated = s.create('/registry/a', b('v3'));

  expect((await created).modRevision).toBe(2);
  expect(await updated).toEqual({ key: '/registry/a', value: b('v2'), createRevision: 2, modRevision: 3 });
  expect((await rejectsWith(stale, 'Conflict')).details?.current?.modRevision).toBe(3);
  expect(await deleted).toEqual({ deleted: { key: '/registry/a', value: b('v2'), createRevision: 2, modRevision: 3 }, revision: 4 });
  await rejectsWith(afterDelete, 'NotFound');
  expect(await recreated).toEqual({ key: '/registry/a', value: b('v3'), createRevision: 5, modRevision: 5 });

  await rec.untilKeyAt('/registry/a', 5);
  expect(rec.received.map((e) => `${e.type}@${e.revision} ${e.value.toString()} prev=${e.prevValue?.toString() ?? '-'}`)).toEqual([
    'PUT@2 v1 prev=-',
    'PUT@3 v2 prev=v1',
    'DELETE@4  prev=v2',
    'PUT@5 v3 prev=-',
  ]);
  await s.close();
});

test('a tick with more writes than one batch holds commits in several, and watchers see every write once, in order', async () => {
  const s = new EmbeddedStorage(':memory:');
  const before = new WatchRecorder();
  await s.watch('/registry/', 0, before);
  const n = 2 * MAX_BATCH_OPS + 500;
  const writes = range(0, n).map((i) => s.create(`/registry/k${i}`, b(String(i))));
  // A watcher that starts between batches, from the first revision: replay, then live, no gap.
  const between = new WatchRecorder();
  const atFirstAck = writes[0].then(async () => {
    const revision = await s.currentRevision();
    await s.watch('/registry/', 2, between);
    return revision;
  });
  const kvs = await Promise.all(writes);
  expect(await atFirstAck).toBe(1 + MAX_BATCH_OPS);
  expect(kvs.map((kv) => kv.modRevision)).toEqual(range(2, n));

  const last = n + 1;
  await before.untilKeyAt(`/registry/k${n - 1}`, last);
  await between.untilKeyAt(`/registry/k${n - 1}`, last);
  for (const rec of [before, between]) {
    expect(rec.received.map((e) => e.revision)).toEqual(range(2, n));
    expect(rec.received.map((e) => e.key)).toEqual(range(0, n).map((i) => `/registry/k${i}`));
  }
  await s.close();
});

test('a batch is bounded by bytes too', async () => {
  const s = new EmbeddedStorage(':memory:');
  const big = Buffer.alloc(1 << 20, 'x');
  const n = MAX_BATCH_BYTES / big.length + 4;
  const writes = range(0, n).map((i) => s.create(`/registry/big${i}`, big));
  const atFirstAck = writes[0].then(() => s.currentRevision());
  const kvs = await Promise.all(writes);
  const firstBatch = (await atFirstAck) - 1;
  expect(firstBatch).toBeGreaterThan(1);
  expect(firstBatch).toBeLessThanOrEqual(MAX_BATCH_BYTES / big.length);
  expect(kvs.map((kv) => kv.modRevision)).toEqual(range(2, n));
  await s.close();
});

test('a transaction that fails rejects every write of its batch, publishes none and takes no revision', async () => {
  const s = new EmbeddedStorage({ path, progressIntervalMs: 0 });
  const rec = new WatchRecorder();
  await s.watch('/registry/', 0, rec);
  // Stands in for a disk error: SQLite fails the batch's third insert.
  const admin = new Database(path);
  admin.exec(`CREATE TRIGGER fail BEFORE INSERT ON kv WHEN NEW.name = '/registry/boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
  const results = await Promise.allSettled([
    s.create('/registry/x', b('x')),
    s.create('/registry/x', b('dup')),
    s.create('/registry/boom', b('boom')),
    s.create('/registry/y', b('y')),
  ]);
  for (const r of results) expect(r.status).toBe('rejected');
  const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as Error) : undefined));
  // The duplicate too: the create it collided with was rolled back, so KeyExists would be a lie.
  expect(isStorageError(reasons[1], 'KeyExists')).toBe(false);
  for (const err of reasons) expect(err?.message).toMatch(/injected failure/);
  expect(await s.currentRevision()).toBe(1);
  expect(await s.get('/registry/x')).toBeNull();

  admin.exec('DROP TRIGGER fail');
  admin.close();
  const z = await s.create('/registry/z', b('z'));
  expect(z.modRevision).toBe(2);
  await rec.untilKeyAt('/registry/z', 2);
  expect(rec.received.map((e) => e.key)).toEqual(['/registry/z']);
  await s.close();
});

test('close() commits the writes already submitted, then refuses new ones with Unavailable', async () => {
  const s = new EmbeddedStorage({ path, progressIntervalMs: 0 });
  const n = MAX_BATCH_OPS + 10;
  const writes = range(0, n).map((i) => s.create(`/registry/k${i}`, b(String(i))));
  const update = s.update('/registry/k0', b('updated'), 2);
  await s.close();
  await rejectsWith(s.create('/registry/late', b('late')), 'Unavailable');
  const kvs: KeyValue[] = await Promise.all(writes);
  expect(kvs.map((kv) => kv.modRevision)).toEqual(range(2, n));
  expect((await update).modRevision).toBe(n + 2);

  const reopened = new EmbeddedStorage({ path, progressIntervalMs: 0 });
  expect(await reopened.currentRevision()).toBe(n + 2);
  expect((await reopened.get('/registry/k0'))?.value.toString()).toBe('updated');
  expect((await reopened.range('/registry/', { prefix: true, countOnly: true })).count).toBe(n);
  expect(await reopened.get('/registry/late')).toBeNull();
  await reopened.close();
});
