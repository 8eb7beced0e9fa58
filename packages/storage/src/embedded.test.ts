import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedStorage } from './embedded.js';
import { openDatabase } from './embedded/schema.js';
import { WatchRecorder } from './testing/recorder.js';
import { isStorageError, type StorageWatchEvent } from './types.js';

/** Behaviour specific to the embedded backend; the shared contract is in contract.test.ts. */

const b = (s: string): Buffer => Buffer.from(s);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'windlass-embedded-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('an empty store is at revision 1, like a fresh etcd; the first write gets 2', async () => {
  const s = new EmbeddedStorage(':memory:');
  expect(await s.currentRevision()).toBe(1);
  expect(await s.compactedRevision()).toBe(0);
  expect((await s.range('/', { prefix: true })).revision).toBe(1);
  expect((await s.create('/a', b('1'))).modRevision).toBe(2);
  await s.close();
});

test('the revision is known without a read: every acknowledged write is at or below it, none pending above it', async () => {
  const s = new EmbeddedStorage(':memory:');
  expect(s.currentRevisionNow()).toBe(1);
  const writes = [s.create('/a', b('1')), s.create('/b', b('2'))];
  // Submitted, not committed: not yet part of the revision anyone may be answered with.
  expect(s.currentRevisionNow()).toBe(1);
  const done = await Promise.all(writes);
  expect(s.currentRevisionNow()).toBe(Math.max(...done.map((kv) => kv.modRevision)));
  expect(await s.currentRevision()).toBe(s.currentRevisionNow());
  await s.close();
  expect(() => s.currentRevisionNow()).toThrow(expect.objectContaining({ code: 'Unavailable' }));
});

test('a file store keeps data, revision and compaction across reopen, creating its directory', async () => {
  const path = join(dir, 'nested', 'dir', 'state.db');
  const s1 = new EmbeddedStorage({ path });
  const a = await s1.create('/registry/a', b('1'));
  const a2 = await s1.update('/registry/a', b('2'), a.modRevision);
  const c = await s1.create('/registry/c', b('3'));
  await s1.delete('/registry/c', c.modRevision);
  await s1.compact(a2.modRevision);
  const rev = await s1.currentRevision();
  await s1.close();

  const s2 = new EmbeddedStorage({ path });
  expect(await s2.currentRevision()).toBe(rev);
  expect(await s2.compactedRevision()).toBe(a2.modRevision);
  expect(await s2.get('/registry/a')).toEqual(a2);
  expect(await s2.get('/registry/c')).toBeNull();
  expect((await s2.create('/registry/d', b('4'))).modRevision).toBe(rev + 1);
  await s2.close();
});

test('compaction physically removes superseded rows and old tombstones, keeping history above it', async () => {
  const path = join(dir, 'state.db');
  const s = new EmbeddedStorage({ path });
  let v = await s.create('/registry/a', b('0'));
  for (let i = 1; i <= 9; i++) v = await s.update('/registry/a', b(String(i)), v.modRevision);
  const gone = await s.create('/registry/gone', b('x'));
  await s.delete('/registry/gone', gone.modRevision);
  const keep = await s.create('/registry/keep', b('k'));
  const at = await s.currentRevision();
  await s.update('/registry/a', b('after'), v.modRevision);
  await s.compact(at);
  await s.close();

  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT id, name, deleted FROM kv ORDER BY id').all();
  db.close();
  // Left: a's state at `at`, keep, and a's write after `at`.
  expect(rows).toEqual([
    { id: v.modRevision, name: '/registry/a', deleted: 0 },
    { id: keep.modRevision, name: '/registry/keep', deleted: 0 },
    { id: at + 1, name: '/registry/a', deleted: 0 },
  ]);
});

test('a replay longer than one page of the log arrives complete and in order, then live events', async () => {
  const s = new EmbeddedStorage(':memory:');
  const n = 2500;
  for (let i = 0; i < n; i++) {
    await s.create(`/registry/${i % 2 === 0 ? 'even' : 'odd'}/k${i}`, b(String(i)));
  }
  const rec = new WatchRecorder();
  await s.watch('/registry/even/', 2, rec);
  const live = await s.create('/registry/even/live', b('live'));
  await rec.untilKeyAt('/registry/even/live', live.modRevision);
  const expected = Array.from({ length: n / 2 }, (_, j) => 2 + 2 * j);
  expect(rec.received.map((e) => e.revision)).toEqual([...expected, live.modRevision]);
  expect(rec.batches.length).toBeGreaterThan(1);
  await s.close();
});

test('compaction while a replay is still paging ends the watch with Compacted instead of a gap', async () => {
  const s = new EmbeddedStorage(':memory:');
  for (let i = 0; i < 2500; i++) await s.create(`/registry/k${i}`, b(String(i)));
  const rec = new WatchRecorder();
  await s.watch('/registry/', 2, rec);
  // Delivery is asynchronous, so this compaction lands before the first page is read.
  await s.compact(await s.currentRevision());
  const err = await rec.untilError();
  expect(isStorageError(err, 'Compacted')).toBe(true);
  expect(rec.received).toEqual([]);
  await s.close();
});

test('progress notifications come periodically without being requested', async () => {
  const s = new EmbeddedStorage({ path: ':memory:', progressIntervalMs: 20 });
  const rec = new WatchRecorder();
  await s.watch('/registry/', 0, rec, { progressNotify: true });
  const kv = await s.create('/registry/a', b('1'));
  await rec.untilProgress(kv.modRevision);
  expect(rec.received.map((e) => e.revision)).toEqual([kv.modRevision]);
  await s.close();
});

test('a listener that throws ends only its own watch, with its error', async () => {
  const s = new EmbeddedStorage(':memory:');
  const boom = new Error('listener failed');
  const errors: Error[] = [];
  const seen: StorageWatchEvent[] = [];
  await s.watch('/registry/', 0, {
    events: (evs) => {
      seen.push(...evs);
      throw boom;
    },
    error: (err) => errors.push(err),
  });
  const healthy = new WatchRecorder();
  await s.watch('/registry/', 0, healthy);
  const first = await s.create('/registry/a', b('1'));
  await healthy.untilKeyAt('/registry/a', first.modRevision);
  const second = await s.create('/registry/b', b('2'));
  await healthy.untilKeyAt('/registry/b', second.modRevision);
  expect(errors).toEqual([boom]);
  expect(seen.map((e) => e.key)).toEqual(['/registry/a']);
  await s.close();
});

test('event values do not alias the buffer the caller wrote', async () => {
  const s = new EmbeddedStorage(':memory:');
  const rec = new WatchRecorder();
  await s.watch('/registry/', 0, rec);
  const value = b('original');
  const kv = await s.create('/registry/a', value);
  value.write('mutated!');
  await rec.untilKeyAt('/registry/a', kv.modRevision);
  expect(rec.received[0].value.toString()).toBe('original');
  expect((await s.get('/registry/a'))?.value.toString()).toBe('original');
  await s.close();
});

test('a closed store refuses operations with Unavailable', async () => {
  const s = new EmbeddedStorage(':memory:');
  await s.close();
  await expect(s.get('/a')).rejects.toMatchObject({ code: 'Unavailable' });
  await expect(s.create('/a', b('1'))).rejects.toMatchObject({ code: 'Unavailable' });
});

test('a delete made exactly at the compacted revision is still replayed from it', async () => {
  // etcd drops such a tombstone (mvcc keyIndex.keep); keeping it costs one row and spares
  // a watch resuming at the compacted revision from missing the deletion.
  const s = new EmbeddedStorage(':memory:');
  const a = await s.create('/registry/a', b('1'));
  const del = await s.delete('/registry/a', a.modRevision);
  await s.compact(del.revision);
  const rec = new WatchRecorder();
  await s.watch('/registry/', del.revision, rec);
  const next = await s.create('/registry/b', b('2'));
  await rec.untilKeyAt('/registry/b', next.modRevision);
  expect(rec.received.map((e) => `${e.type} ${e.key}@${e.revision}`)).toEqual([
    `DELETE /registry/a@${del.revision}`,
    `PUT /registry/b@${next.modRevision}`,
  ]);
  await s.close();
});

test("SQLite's page cache is SQLite's own 2 MB, not better-sqlite3's 16 MB: the watch cache serves the reads", () => {
  const db = openDatabase(join(dir, 'pages.db'));
  try {
    expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
  } finally {
    db.close();
  }
});
