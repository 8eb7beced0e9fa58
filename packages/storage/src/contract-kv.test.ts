import { describeBackends } from './testing/backends.js';
import { keyValues as items, rejectsWith } from './testing/assertions.js';
import type { KeyValue } from './types.js';

/** The storage contract (DESIGN.md), key/value half, run against every backend. */

const b = (s: string): Buffer => Buffer.from(s);

describeBackends('storage contract: key/value', (ctx) => {
  describe('create and get', () => {
    test('create stores the value with createRevision == modRevision; a second create is KeyExists', async () => {
      const s = ctx.storage;
      const key = `${ctx.prefix}configmaps/ns/a`;
      const before = await s.currentRevision();
      const kv = await s.create(key, b('one'));
      expect(kv).toEqual({ key, value: b('one'), createRevision: before + 1, modRevision: before + 1 });

      const err = await rejectsWith(s.create(key, b('two')), 'KeyExists');
      expect(err.details?.current).toEqual(kv);
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
      expect(err.details?.current).toEqual(v2);
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
      expect(err.details?.current).toEqual(v2);
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
});
