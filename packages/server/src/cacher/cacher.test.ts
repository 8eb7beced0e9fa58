import { EmbeddedStorage } from '@windlass/storage';
import { Cacher, defaultCacherOptions } from './cacher.js';
import { CachedObject } from './cachedobject.js';
import type { WatchOutput } from './cachewatcher.js';
import { serializationStats } from './stats.js';

const prefix = '/registry/configmaps/';
const value = (name: string, v: string) => Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns' }, data: { v } }));

/** A client that records what it is sent; `stalled` ones never drain, as a client that stopped reading. */
function client(stalled = false) {
  const lines: string[] = [];
  let pending = 0;
  let closed = false;
  const out: WatchOutput = {
    encode: (type, obj: CachedObject) => obj.eventBytes(type),
    bookmark: (rv) => Buffer.from(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"${rv}"}}}\n`),
    write: (b) => {
      if (stalled) pending += b.length;
      else lines.push(b.toString());
    },
    buffered: () => pending,
    close: () => { closed = true; },
  };
  return { out, lines, get closed() { return closed; }, events: () => lines.map((l) => JSON.parse(l)) };
}

const filter = { prefix, exactKey: false, matches: () => true };

async function settle(cacher: Cacher, storage: EmbeddedStorage) {
  await cacher.waitUntilFresh(await storage.currentRevision());
}

test('one serialization per event, whatever the number of watchers; every watcher gets every event in order', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const cacher = new Cacher(prefix, storage);
  await cacher.whenReady();
  const start = await storage.currentRevision();
  const clients = Array.from({ length: 200 }, () => client());
  for (const c of clients) cacher.watch(filter, c.out, { initial: false, fromRevision: start }, false);
  const before = serializationStats.events;
  const revs: number[] = [];
  for (let i = 0; i < 50; i++) revs.push((await storage.create(`${prefix}ns/o${i}`, value(`o${i}`, 'x'))).modRevision);
  await settle(cacher, storage);
  expect(serializationStats.events - before).toBe(50);
  for (const c of clients) {
    expect(c.events().map((e) => Number(e.object.metadata.resourceVersion))).toEqual(revs);
  }
  cacher.stop();
  await storage.close();
});

test('a watcher that stops reading is closed; the others keep receiving everything', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const cacher = new Cacher(prefix, storage, { ...defaultCacherOptions, maxWatcherBufferedBytes: 4096 });
  await cacher.whenReady();
  const start = await storage.currentRevision();
  const slow = client(true);
  const fast = client();
  cacher.watch(filter, slow.out, { initial: false, fromRevision: start }, false);
  cacher.watch(filter, fast.out, { initial: false, fromRevision: start }, false);
  for (let i = 0; i < 100; i++) await storage.create(`${prefix}ns/o${i}`, value(`o${i}`, 'y'.repeat(100)));
  await settle(cacher, storage);
  expect(slow.closed).toBe(true);
  expect(fast.closed).toBe(false);
  expect(fast.events().length).toBe(100);
  expect(cacher.watcherCount).toBe(1);
  cacher.stop();
  await storage.close();
});

test('a paged list\'s snapshot keeps answering for its revision after later events; the ring says how far back a watch may start', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const cacher = new Cacher(prefix, storage, { ...defaultCacherOptions, maxEvents: 3 });
  await cacher.whenReady();
  const names = (tree: ReturnType<typeof cacher.cache.snapshotAt>) => [...tree!.values()].map((o) => `${o.object.metadata.name}=${(o.object.data as any).v}`);
  const r1 = (await storage.create(`${prefix}ns/a`, value('a', '1'))).modRevision;
  await settle(cacher, storage);
  const listed = cacher.current(true);
  const r2 = (await storage.update(`${prefix}ns/a`, value('a', '2'), r1)).modRevision;
  const r3 = (await storage.create(`${prefix}ns/b`, value('b', '1'))).modRevision;
  await settle(cacher, storage);
  expect(listed.revision).toBeGreaterThanOrEqual(r1);
  expect(listed.revision).toBeLessThan(r2);
  expect(names(listed.tree)).toEqual(['a=1']);
  expect(names(cacher.cache.snapshotAt(listed.revision))).toEqual(['a=1']);
  expect(names(cacher.cache.snapshotAt(r3))).toEqual(['a=2', 'b=1']);
  // No list was served at r2: no snapshot holds it, and such a list reads the store instead.
  expect(cacher.cache.snapshotAt(r2)).toBeUndefined();
  for (let i = 0; i < 3; i++) await storage.create(`${prefix}ns/c${i}`, value('c', '1'));
  await settle(cacher, storage);
  // Only the last 3 events are kept: a watch from before them is expired.
  expect(cacher.watch(filter, client().out, { initial: false, fromRevision: r2 }, false)).toBeNull();
  expect(cacher.watch(filter, client().out, { initial: false, fromRevision: r3 }, false)).not.toBeNull();
  cacher.compacted(r3 + 1);
  expect(cacher.cache.snapshotAt(r3)).toBeUndefined();
  expect(cacher.watch(filter, client().out, { initial: false, fromRevision: r3 }, false)).toBeNull();
  cacher.stop();
  await storage.close();
});

test("a write whose own event came first is answered with the cache's object and leaves no second copy behind", async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const cacher = new Cacher(prefix, storage);
  await cacher.whenReady();
  const key = `${prefix}ns/a`;
  const stored = value('a', '1');
  const rev = (await storage.create(key, stored)).modRevision;
  await settle(cacher, storage);
  const inCache = cacher.cache.tree.get(key)!;
  expect(cacher.appliedWrite(key, rev)).toBe(inCache);
  expect(cacher.appliedWrite(key, rev - 1)).toBeUndefined();
  // The write's answer arrives after its event: nothing is kept for an event that will not come.
  const recent = (cacher as unknown as { recent: Map<string, CachedObject> }).recent;
  cacher.wrote(CachedObject.fromStored(key, rev, stored, cacher.attrsOf));
  expect(recent.size).toBe(0);
  // A write ahead of its event is kept, and its event takes that object rather than decoding another.
  const next = value('a', '2');
  const rev2 = (await storage.update(key, next, rev)).modRevision;
  const own = CachedObject.fromStored(key, rev2, next, cacher.attrsOf);
  cacher.wrote(own);
  await settle(cacher, storage);
  expect(cacher.cache.tree.get(key)).toBe(own);
  expect(recent.size).toBe(0);
  cacher.stop();
  await storage.close();
});

test('the initial list is read in pages at one revision and holds every object', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  for (let i = 0; i < 2500; i++) await storage.create(`${prefix}ns/o${String(i).padStart(4, '0')}`, value(`o${i}`, 'z'));
  const cacher = new Cacher(prefix, storage);
  await cacher.whenReady();
  expect(cacher.cache.tree.size).toBe(2500);
  expect(cacher.cache.resourceVersion).toBe(await storage.currentRevision());
  cacher.stop();
  await storage.close();
});

test('expired events and snapshots are let go even when few are live (no unbounded arrays at low write rates)', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const cacher = new Cacher(prefix, storage, { ...defaultCacherOptions, historyWindowMs: 0, snapshotWindowMs: 0 });
  await cacher.whenReady();
  for (let i = 0; i < 3000; i++) {
    await storage.create(`${prefix}ns/o${i}`, value(`o${i}`, 'x'));
    if (i % 100 === 0) cacher.current(true);
    // A new millisecond each time, so every earlier entry is outside the 0 ms windows.
    if (i % 500 === 0) await new Promise((r) => setTimeout(r, 2));
  }
  await settle(cacher, storage);
  const internals = cacher.cache as unknown as { ring: unknown[]; snapshots: unknown[] };
  // Dead prefixes are sliced away once over 1024: without that they grew to 3000 and 30.
  expect(internals.ring.length).toBeLessThan(2100);
  expect(internals.ring.filter((e) => e !== undefined).length).toBeLessThan(1100);
  expect(cacher.cache.tree.size).toBe(3000);
  cacher.stop();
  await storage.close();
});
