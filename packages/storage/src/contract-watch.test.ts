import { describeBackends } from './testing/backends.js';
import { keyValues as items, plainEvent as plain, rejectsWith } from './testing/assertions.js';
import { WatchRecorder } from './testing/recorder.js';
import { isStorageError, type KeyValue } from './types.js';

/** The storage contract (DESIGN.md), watch and compaction half, run against every backend. */

const b = (s: string): Buffer => Buffer.from(s);

describeBackends('storage contract: watch and compaction', (ctx) => {
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
