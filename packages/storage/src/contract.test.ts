import { describeBackends } from './testing/backends.js';
import { WatchRecorder } from './testing/recorder.js';
import { isStorageError, type KeyValue, type StorageErrorCode, type StorageWatchEvent } from './types.js';

/** The storage contract (DESIGN.md), run against every backend. */

const b = (s: string): Buffer => Buffer.from(s);

async function rejectsWith<T>(p: Promise<T>, code: StorageErrorCode): Promise<Error> {
  try {
    await p;
  } catch (err) {
    if (isStorageError(err, code)) return err;
    throw new Error(`expected StorageError ${code}, got ${String(err)}`);
  }
  throw new Error(`expected StorageError ${code}, but the call succeeded`);
}

/** The parts of an event a test compares: Buffers as strings. */
function plain(e: StorageWatchEvent): Record<string, unknown> {
  return {
    type: e.type,
    key: e.key,
    revision: e.revision,
    value: e.value.toString(),
    createRevision: e.createRevision,
    ...(e.prevValue !== undefined ? { prevValue: e.prevValue.toString(), prevModRevision: e.prevModRevision } : {}),
  };
}

const items = (kvs: KeyValue[]): string[] => kvs.map((kv) => `${kv.key}=${kv.value.toString()}`);

describeBackends('storage contract', (ctx) => {
  describe('create and get', () => {
    test('create stores the value with createRevision == modRevision; a second create is KeyExists', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}configmaps/ns/a`;
      const before = await s.currentRevision();
      const kv = await s.create(key, b('one'));
      expect(kv).toEqual({ key, value: b('one'), createRevision: before + 1, modRevision: before + 1 });

      const err = await rejectsWith(s.create(key, b('two')), 'KeyExists');
      expect((err as { details?: { current?: KeyValue } }).details?.current).toEqual(kv);
      expect((await s.get(key))?.value.toString()).toBe('one');
    });

    test('get returns the current value, null when absent, and old values at old revisions', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}configmaps/ns/a`;
      expect(await s.get(key)).toBeNull();
      const v1 = await s.create(key, b('v1'));
      const v2 = await s.update(key, b('v2'), v1.modRevision);
      expect(await s.get(key)).toEqual(v2);
      expect(await s.get(key, v1.modRevision)).toEqual(v1);
      expect(await s.get(`${key}x`)).toBeNull();
      // A key is not a prefix: get of the parent does not find children.
      expect(await s.get(`${ctx.prefix}configmaps/ns`)).toBeNull();
    });

    test('a key can be created again after deletion, with a new createRevision', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const first = await s.create(key, b('1'));
      await s.delete(key, first.modRevision);
      const again = await s.create(key, b('2'));
      expect(again.createRevision).toBeGreaterThan(first.createRevision);
      expect(again.createRevision).toBe(again.modRevision);
    });
  });

  describe('range', () => {
    test('a prefix range returns exactly the keys under it, in key order', async () => {
      const s = ctx.storage;
      const p = `${ctx.prefix}configmaps/`;
      for (const k of ['ns/c', 'ns/a', 'ns2/x', 'ns/b', 'nsx', 'ns/a/deeper']) await s.create(p + k, b(k));
      await s.create(`${ctx.prefix}configmapsz/ns/a`, b('sibling'));

      const res = await s.range(`${p}ns/`, { prefix: true });
      expect(res.items.map((kv) => kv.key)).toEqual([`${p}ns/a`, `${p}ns/a/deeper`, `${p}ns/b`, `${p}ns/c`]);
      expect(res.items[0].value.toString()).toBe('ns/a');
      expect(res.count).toBe(4);
      expect(res.more).toBe(false);
      expect(res.revision).toBe(await s.currentRevision());

      const all = await s.range(p, { prefix: true });
      expect(all.items.map((kv) => kv.key.slice(p.length))).toEqual(['ns/a', 'ns/a/deeper', 'ns/b', 'ns/c', 'ns2/x', 'nsx']);

      const one = await s.range(`${p}ns/a`);
      expect(one.items.map((kv) => kv.key)).toEqual([`${p}ns/a`]);
      expect(one.count).toBe(1);
    });

    test('a range at an old revision shows the state then, including keys deleted since', async () => {
      const s = ctx.storage;
      const p = `${ctx.prefix}pods/`;
      const a1 = await s.create(`${p}a`, b('a1'));
      const a2 = await s.update(`${p}a`, b('a2'), a1.modRevision);
      const bb = await s.create(`${p}b`, b('b1'));
      const del = await s.delete(`${p}a`, a2.modRevision);
      expect(del.deleted).toEqual(a2);

      const at = async (revision?: number): Promise<string[]> => {
        const res = await s.range(p, { prefix: true, revision });
        if (revision) expect(res.revision).toBe(revision);
        return items(res.items);
      };
      expect(await at(a1.modRevision)).toEqual([`${p}a=a1`]);
      expect(await at(a2.modRevision)).toEqual([`${p}a=a2`]);
      expect(await at(bb.modRevision)).toEqual([`${p}a=a2`, `${p}b=b1`]);
      expect(await at(del.revision)).toEqual([`${p}b=b1`]);
      expect(await at()).toEqual([`${p}b=b1`]);
      const old = await s.range(p, { prefix: true, revision: bb.modRevision });
      expect(old.items[0]).toEqual(a2);
      expect(old.count).toBe(2);
    });

    test('limit and startKey page through a range with the right count and more', async () => {
      const s = ctx.storage;
      const p = `${ctx.prefix}secrets/`;
      const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
      for (const n of [...names].reverse()) await s.create(p + n, b(n));
      const rev = await s.currentRevision();

      const page1 = await s.range(p, { prefix: true, limit: 3 });
      expect(page1.items.map((kv) => kv.key)).toEqual([`${p}a`, `${p}b`, `${p}c`]);
      expect(page1).toMatchObject({ count: 7, more: true, revision: rev });

      // Writes between pages must not show in pages read at the first page's revision.
      await s.delete(`${p}e`, (await s.get(`${p}e`))!.modRevision);
      await s.create(`${p}dd`, b('dd'));

      const next = (kv: KeyValue): string => `${kv.key}\0`;
      const page2 = await s.range(p, { prefix: true, limit: 3, startKey: next(page1.items[2]), revision: rev });
      expect(page2.items.map((kv) => kv.key)).toEqual([`${p}d`, `${p}e`, `${p}f`]);
      expect(page2).toMatchObject({ count: 4, more: true, revision: rev });

      const page3 = await s.range(p, { prefix: true, limit: 3, startKey: next(page2.items[2]), revision: rev });
      expect(page3.items.map((kv) => kv.key)).toEqual([`${p}g`]);
      expect(page3).toMatchObject({ count: 1, more: false, revision: rev });

      const exact = await s.range(p, { prefix: true, limit: 7, revision: rev });
      expect(exact).toMatchObject({ count: 7, more: false });
      expect(exact.items).toHaveLength(7);

      const now = await s.range(p, { prefix: true, startKey: `${p}d` });
      expect(now.items.map((kv) => kv.key.slice(p.length))).toEqual(['d', 'dd', 'f', 'g']);
      expect(now).toMatchObject({ count: 4, more: false });

      const counted = await s.range(p, { prefix: true, countOnly: true, revision: rev });
      expect(counted).toMatchObject({ items: [], count: 7, more: false, revision: rev });

      await rejectsWith(s.range(p, { prefix: true, startKey: `${ctx.prefix}other` }), 'InvalidArgument');
    });

    test('a revision above the current one is FutureRevision', async () => {
      const s = ctx.storage;
      await s.create(`${ctx.prefix}a`, b('1'));
      const current = await s.currentRevision();
      await rejectsWith(s.range(ctx.prefix, { prefix: true, revision: current + 100 }), 'FutureRevision');
      await rejectsWith(s.get(`${ctx.prefix}a`, current + 1), 'FutureRevision');
      expect((await s.range(ctx.prefix, { prefix: true, revision: current })).items).toHaveLength(1);
    });
  });

  describe('compare-and-swap', () => {
    test('update succeeds on the expected modRevision and keeps createRevision', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const v1 = await s.create(key, b('v1'));
      const v2 = await s.update(key, b('v2'), v1.modRevision);
      expect(v2).toEqual({ key, value: b('v2'), createRevision: v1.createRevision, modRevision: v1.modRevision + 1 });
      expect(await s.get(key)).toEqual(v2);
    });

    test('a stale update is a Conflict carrying the current kv and changes nothing', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const v1 = await s.create(key, b('v1'));
      const v2 = await s.update(key, b('v2'), v1.modRevision);
      const before = await s.currentRevision();
      const err = await rejectsWith(s.update(key, b('lost'), v1.modRevision), 'Conflict');
      expect((err as { details?: { current?: KeyValue } }).details?.current).toEqual(v2);
      expect(await s.get(key)).toEqual(v2);
      expect(await s.currentRevision()).toBe(before);
    });

    test('update of an absent key is NotFound, also with a plausible revision', async () => {
      const s = ctx.storage;
      const other = await s.create(`${ctx.prefix}other`, b('x'));
      await rejectsWith(s.update(`${ctx.prefix}absent`, b('v'), other.modRevision), 'NotFound');
      expect(await s.get(`${ctx.prefix}absent`)).toBeNull();
      await rejectsWith(s.update(`${ctx.prefix}absent`, b('v'), 0), 'InvalidArgument');
      expect(await s.get(`${ctx.prefix}absent`)).toBeNull();
    });

    test('delete compares modRevision: Conflict when stale, then deletes, then NotFound', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const v1 = await s.create(key, b('v1'));
      const v2 = await s.update(key, b('v2'), v1.modRevision);
      const err = await rejectsWith(s.delete(key, v1.modRevision), 'Conflict');
      expect((err as { details?: { current?: KeyValue } }).details?.current).toEqual(v2);
      expect(await s.get(key)).toEqual(v2);

      const res = await s.delete(key, v2.modRevision);
      expect(res).toEqual({ deleted: v2, revision: v2.modRevision + 1 });
      expect(await s.get(key)).toBeNull();
      expect(await s.currentRevision()).toBe(res.revision);
      await rejectsWith(s.delete(key, v2.modRevision), 'NotFound');
      await rejectsWith(s.delete(`${ctx.prefix}never`, v2.modRevision), 'NotFound');
    });

    test('every write gets the next revision; failed writes get none', async () => {
      const s = ctx.storage;
      const p = ctx.prefix;
      let last = await s.currentRevision();
      const expectNext = (rev: number): void => {
        expect(rev).toBe(last + 1);
        last = rev;
      };
      const a = await s.create(`${p}a`, b('1'));
      expectNext(a.modRevision);
      const c = await s.create(`${p}c`, b('1'));
      expectNext(c.modRevision);
      await rejectsWith(s.create(`${p}a`, b('2')), 'KeyExists');
      const a2 = await s.update(`${p}a`, b('2'), a.modRevision);
      expectNext(a2.modRevision);
      await rejectsWith(s.update(`${p}c`, b('2'), a.modRevision), 'Conflict');
      const d = await s.delete(`${p}c`, c.modRevision);
      expectNext(d.revision);
      expect(await s.currentRevision()).toBe(last);
      expect((await s.range(p, { prefix: true })).revision).toBe(last);
      expect((await s.get(`${p}a`))?.createRevision).toBe(a.modRevision);
    });
  });

  describe('watch', () => {
    test('from a past revision: replays exactly the history, then live events', async () => {
      const s = ctx.storage;
      const p = `${ctx.prefix}cm/`;
      const a1 = await s.create(`${p}a`, b('a1'));
      await s.create(`${ctx.prefix}other/x`, b('not watched'));
      const a2 = await s.update(`${p}a`, b('a2'), a1.modRevision);
      const b1 = await s.create(`${p}b`, b('b1'));
      const delA = await s.delete(`${p}a`, a2.modRevision);

      const rec = new WatchRecorder();
      // progressNotify too: no progress may claim a revision whose replayed events are still to come.
      const handle = await s.watch(p, a2.modRevision, rec, { prevKv: true, progressNotify: true });
      const b2 = await s.update(`${p}b`, b('b2'), b1.modRevision);
      await s.create(`${ctx.prefix}other/y`, b('not watched'));
      const c1 = await s.create(`${p}c`, b('c1'));
      await rec.untilKeyAt(`${p}c`, c1.modRevision);
      handle.requestProgress();
      await rec.untilProgress(c1.modRevision);
      handle.close();

      // Holds even for old etcd: progress was only requested after every event arrived.
      expect(rec.earlyProgress(rec.received.map((e) => e.revision))).toEqual([]);
      expect(rec.received.map(plain)).toEqual([
        { type: 'PUT', key: `${p}a`, revision: a2.modRevision, value: 'a2', createRevision: a1.modRevision, prevValue: 'a1', prevModRevision: a1.modRevision },
        { type: 'PUT', key: `${p}b`, revision: b1.modRevision, value: 'b1', createRevision: b1.modRevision },
        { type: 'DELETE', key: `${p}a`, revision: delA.revision, value: '', createRevision: 0, prevValue: 'a2', prevModRevision: a2.modRevision },
        { type: 'PUT', key: `${p}b`, revision: b2.modRevision, value: 'b2', createRevision: b1.modRevision, prevValue: 'b1', prevModRevision: b1.modRevision },
        { type: 'PUT', key: `${p}c`, revision: c1.modRevision, value: 'c1', createRevision: c1.modRevision },
      ]);
      expect(rec.errors).toEqual([]);
    });

    test('without prevKv, events carry no previous value', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const rec = new WatchRecorder();
      await s.watch(ctx.prefix, 0, rec);
      const v1 = await s.create(key, b('1'));
      const v2 = await s.update(key, b('2'), v1.modRevision);
      const del = await s.delete(key, v2.modRevision);
      await rec.untilKeyAt(key, del.revision);
      expect(rec.received.map(plain)).toEqual([
        { type: 'PUT', key, revision: v1.modRevision, value: '1', createRevision: v1.modRevision },
        { type: 'PUT', key, revision: v2.modRevision, value: '2', createRevision: v1.modRevision },
        { type: 'DELETE', key, revision: del.revision, value: '', createRevision: 0 },
      ]);
    });

    test('fromRevision 0 starts after the current revision; a closed watch gets nothing more', async () => {
      const s = ctx.storage;
      const p = ctx.prefix;
      const old = await s.create(`${p}old`, b('before the watch'));
      const rec = new WatchRecorder();
      const handle = await s.watch(p, 0, rec);
      const fresh = await s.create(`${p}new`, b('after'));
      await rec.untilKeyAt(`${p}new`, fresh.modRevision);
      handle.close();
      await s.update(`${p}old`, b('after close'), old.modRevision);

      // A second watch proves the write was published; the closed one must not have it.
      const witness = new WatchRecorder();
      await s.watch(p, fresh.modRevision, witness);
      await witness.untilEvent((e) => e.key === `${p}old`);
      expect(rec.received.map((e) => e.key)).toEqual([`${p}new`]);
    });

    test('a key watch sees only that key; a prefix watch only keys under it, not siblings', async () => {
      const s = ctx.storage;
      const base = `${ctx.prefix}configmaps/`;
      const keyRec = new WatchRecorder();
      const prefixRec = new WatchRecorder();
      await s.watch(`${base}a`, 0, keyRec);
      await s.watch(`${base}a/`, 0, prefixRec);

      const a = await s.create(`${base}a`, b('key'));
      await s.create(`${base}ab`, b('sibling key'));
      await s.create(`${base}ab/x`, b('sibling prefix'));
      await s.create(`${base}a0`, b('sibling'));
      const ax = await s.create(`${base}a/x`, b('child'));
      await s.create(`${base}a/y/z`, b('grandchild'));
      const lastKey = await s.update(`${base}a`, b('key again'), a.modRevision);

      await keyRec.untilKeyAt(`${base}a`, lastKey.modRevision);
      await prefixRec.untilKeyAt(`${base}a/y/z`, ax.modRevision + 1);
      expect(keyRec.received.map((e) => e.key)).toEqual([`${base}a`, `${base}a`]);
      expect(prefixRec.received.map((e) => e.key)).toEqual([`${base}a/x`, `${base}a/y/z`]);
    });

    test('a watch from a future revision starts there', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}a`;
      const start = (await s.currentRevision()) + 2;
      const rec = new WatchRecorder();
      await s.watch(ctx.prefix, start, rec);
      const v1 = await s.create(key, b('1'));
      const v2 = await s.update(key, b('2'), v1.modRevision);
      expect(v2.modRevision).toBe(start);
      await rec.untilKeyAt(key, v2.modRevision);
      expect(rec.received.map((e) => e.revision)).toEqual([v2.modRevision]);
    });

    test('requestProgress is answered with a revision at or above the last write', async () => {
      const s = ctx.storage;
      const p = ctx.prefix;
      const rec = new WatchRecorder();
      const idle = new WatchRecorder();
      const handle = await s.watch(p, 0, rec, { progressNotify: true });
      const idleHandle = await s.watch(`${ctx.prefix}nothing-here/`, 0, idle, { progressNotify: true });
      let last = 0;
      for (const n of ['a', 'b', 'c']) last = (await s.create(p + n, b(n))).modRevision;
      handle.requestProgress();
      await rec.untilProgress(last);
      const reported = rec.progressed.find((r) => r >= last)!;
      if (ctx.storage.supportsProgressRequests !== false) {
        // Exact progress: every event at or below the reported revision came first.
        expect(rec.received.map((e) => e.revision)).toEqual([last - 2, last - 1, last]);
        expect(reported).toBeLessThanOrEqual(await s.currentRevision());
      }
      idleHandle.requestProgress();
      await idle.untilProgress(last);
      expect(idle.received).toEqual([]);
      handle.close();
      idleHandle.close();
    });

    test('events arrive in revision order across batches, also under many writes', async () => {
      const s = ctx.storage;
      const p = ctx.prefix;
      const rec = new WatchRecorder();
      const from = (await s.currentRevision()) + 1;
      await s.watch(p, from, rec, { prevKv: true });
      const writes: Promise<KeyValue>[] = [];
      for (let i = 0; i < 100; i++) writes.push(s.create(`${p}k${i}`, b(String(i))));
      const done = await Promise.all(writes);
      const lastRev = Math.max(...done.map((kv) => kv.modRevision));
      await rec.until('all 100 events', () => rec.received.length >= 100);
      const revs = rec.received.map((e) => e.revision);
      expect(revs).toEqual([...revs].sort((x, y) => x - y));
      expect(new Set(revs).size).toBe(100);
      expect(revs[revs.length - 1]).toBe(lastRev);
    });
  });

  describe('compaction', () => {
    test('reads and watches below the compacted revision fail with Compacted; live state survives', async () => {
      const s = ctx.storage;
      const p = ctx.prefix;
      const keep = await s.create(`${p}keep`, b('untouched'));
      const gone = await s.create(`${p}gone`, b('deleted before compaction'));
      const a1 = await s.create(`${p}a`, b('a1'));
      const goneDel = await s.delete(`${p}gone`, gone.modRevision);
      const a2 = await s.update(`${p}a`, b('a2'), a1.modRevision);
      const a3 = await s.update(`${p}a`, b('a3'), a2.modRevision);
      const at = a2.modRevision;
      expect(goneDel.revision).toBeLessThan(at);

      await s.compact(at);
      expect(await s.compactedRevision()).toBe(at);

      await rejectsWith(s.range(p, { prefix: true, revision: a1.modRevision }), 'Compacted');
      await rejectsWith(s.get(`${p}a`, at - 1), 'Compacted');
      expect(items((await s.range(p, { prefix: true, revision: at })).items)).toEqual([`${p}a=a2`, `${p}keep=untouched`]);
      expect(items((await s.range(p, { prefix: true })).items)).toEqual([`${p}a=a3`, `${p}keep=untouched`]);
      expect(await s.get(`${p}keep`)).toEqual(keep);
      expect(await s.get(`${p}gone`)).toBeNull();

      const tooOld = new WatchRecorder();
      await s.watch(p, a1.modRevision, tooOld);
      const err = await tooOld.untilError();
      expect(isStorageError(err, 'Compacted')).toBe(true);
      expect(tooOld.received).toEqual([]);

      const fromCompacted = new WatchRecorder();
      await s.watch(p, at, fromCompacted);
      await fromCompacted.untilKeyAt(`${p}a`, a3.modRevision);
      expect(fromCompacted.received.map((e) => `${e.key}@${e.revision}=${e.value.toString()}`)).toEqual([
        `${p}a@${a2.modRevision}=a2`,
        `${p}a@${a3.modRevision}=a3`,
      ]);

      await rejectsWith(s.compact(at), 'Compacted');
      await rejectsWith(s.compact((await s.currentRevision()) + 10), 'FutureRevision');
    });
  });
});
