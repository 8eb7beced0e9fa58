import type { Storage } from '@windlass/storage';
import { describeBackends, WatchRecorder } from '@windlass/storage/testing';
import { Compactor, compactKey } from './compactor.js';

/** The storage, recording the revisions compact() is called with. */
function recordingCompactions(storage: Storage): { storage: Storage; compactions: number[] } {
  const compactions: number[] = [];
  const wrapped = new Proxy(storage, {
    get(target, prop) {
      if (prop === 'compact') {
        return (revision: number) => {
          compactions.push(revision);
          return target.compact(revision);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { storage: wrapped, compactions };
}

/** Polls until `probe` holds; the timeout only bounds a failing test. */
async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeBackends('compactor', (ctx) => {
  let compactors: Compactor[] = [];
  afterEach(() => {
    for (const c of compactors) c.stop();
    compactors = [];
  });

  const compactor = (storage: Storage, onCompacted?: (revision: number) => void): Compactor => {
    const c = new Compactor({ storage, key: compactKey(`${ctx.prefix}registry`), intervalMs: 0, onCompacted });
    compactors.push(c);
    return c;
  };
  const write = (name: string) => ctx.storage.create(`${ctx.prefix}registry/things/${name}`, Buffer.from(name));
  /** A second connection to the same data (etcd), or the same store (embedded :memory: cannot be opened twice). */
  const sameStore = () => (ctx.backend === 'etcd' ? ctx.open() : Promise.resolve(ctx.storage));

  test('each tick compacts up to the revision seen at the previous tick, never the first tick', async () => {
    const { storage, compactions } = recordingCompactions(ctx.storage);
    const c = compactor(storage);
    await write('a');
    expect(await c.tick()).toBe(0);
    const firstTick = await ctx.storage.currentRevision();
    expect(compactions).toEqual([]);
    await write('b');
    expect(await c.tick()).toBe(firstTick);
    const secondTick = await ctx.storage.currentRevision();
    await write('c');
    expect(await c.tick()).toBe(secondTick);
    expect(compactions).toEqual([firstTick, secondTick]);
    expect(await ctx.storage.compactedRevision()).toBe(secondTick);
    // The key records what was compacted to, as kube's compact_rev_key does.
    const kv = await ctx.storage.get(compactKey(`${ctx.prefix}registry`));
    expect(kv!.value.toString()).toBe(String(secondTick));
  });

  test('two replicas on one store: exactly one compacts each interval, the other takes over when it stops', async () => {
    const a = recordingCompactions(ctx.storage);
    const b = recordingCompactions(await sameStore());
    const ca = compactor(a.storage);
    const cb = compactor(b.storage);

    expect(await ca.tick()).toBe(0);
    expect(await cb.tick()).toBe(0);
    const seenByB = await ctx.storage.currentRevision();
    await write('x');
    expect(await ca.tick()).toBeGreaterThan(0);
    // B's turn came after A's in the same interval: A compacted it already.
    expect(await cb.tick()).toBe(0);
    expect(b.compactions).toEqual([]);
    const seenByBAgain = await ctx.storage.currentRevision();
    expect(seenByBAgain).toBeGreaterThan(seenByB);

    // A is gone: B's next turn wins and keeps one interval of history.
    await write('y');
    expect(await cb.tick()).toBe(seenByBAgain);
    expect(b.compactions).toEqual([seenByBAgain]);
    expect(a.compactions).toHaveLength(1);
  });

  test('replicas ticking at the same moment: one compaction per round', async () => {
    const a = recordingCompactions(ctx.storage);
    const b = recordingCompactions(await sameStore());
    const ca = compactor(a.storage);
    const cb = compactor(b.storage);
    expect(await Promise.all([ca.tick(), cb.tick()])).toEqual([0, 0]);
    for (let round = 1; round <= 4; round++) {
      await write(`r${round}`);
      const results = await Promise.all([ca.tick(), cb.tick()]);
      expect(results.filter((r) => r > 0)).toHaveLength(1);
      expect(a.compactions.length + b.compactions.length).toBe(round);
    }
  });

  test('a compaction someone else already made is not an error', async () => {
    const c = compactor(ctx.storage);
    expect(await c.tick()).toBe(0);
    await write('a');
    const elsewhere = await ctx.storage.currentRevision();
    await ctx.storage.compact(elsewhere);
    expect(await c.tick()).toBe(0);
    expect(await ctx.storage.compactedRevision()).toBe(elsewhere);
    // The next turn goes on as usual.
    const seen = await ctx.storage.currentRevision();
    await write('b');
    expect(await c.tick()).toBe(seen);
  });

  test('compactTo compacts now and fails with the storage error at or below the compacted revision, or in the future', async () => {
    const reported: number[] = [];
    const c = compactor(ctx.storage, (r) => reported.push(r));
    await write('a');
    await write('b');
    const target = (await ctx.storage.currentRevision()) - 1;
    await c.compactTo(target);
    expect(await ctx.storage.compactedRevision()).toBe(target);
    expect(reported).toEqual([target]);
    await expect(c.compactTo(target)).rejects.toMatchObject({ name: 'StorageError', code: 'Compacted' });
    await expect(c.compactTo(target + 1000)).rejects.toMatchObject({ name: 'StorageError', code: 'FutureRevision' });
    expect(reported).toEqual([target]);
  });

  test('every replica hears of a compaction made by another, periodic or on demand', async () => {
    const heard: number[] = [];
    const listener = compactor(await sameStore(), (r) => heard.push(r));
    await listener.start();
    const worker = compactor(ctx.storage);
    await worker.tick();
    const seen = await ctx.storage.currentRevision();
    await write('a');
    expect(await worker.tick()).toBe(seen);
    await until(`the listener to hear of ${seen}`, () => heard.includes(seen));
    await write('b');
    const onDemand = await ctx.storage.currentRevision();
    await worker.compactTo(onDemand);
    await until(`the listener to hear of ${onDemand}`, () => heard.includes(onDemand));
    expect(heard).toEqual([seen, onDemand]);
  });

  test('the periodic loop: each compaction is recorded in the key and targets the previous turn', async () => {
    const key = compactKey(`${ctx.prefix}registry`);
    const recorder = new WatchRecorder();
    const watch = await ctx.storage.watch(key, (await ctx.storage.currentRevision()) + 1, recorder);
    const reported: number[] = [];
    const c = new Compactor({ storage: ctx.storage, key, intervalMs: 10, onCompacted: (r) => reported.push(r) });
    compactors.push(c);
    try {
      await c.start();
      await recorder.until('four turns', () => recorder.received.length >= 4);
      c.stop();
      const turns = recorder.received.slice(0, 4);
      expect(turns.map((e) => e.type)).toEqual(['PUT', 'PUT', 'PUT', 'PUT']);
      expect(turns[0].value.toString()).toBe('0');
      for (let i = 1; i < turns.length; i++) expect(turns[i].value.toString()).toBe(String(turns[i - 1].revision));
      const targets = turns.slice(1).map((e) => Number(e.value.toString()));
      await until('the third compaction', async () => (await ctx.storage.compactedRevision()) >= targets[2]);
      // The report follows the compaction's answer; on a loaded machine it may come a moment later.
      await until('three compactions reported', () => reported.length >= 3);
      expect(reported.slice(0, 3)).toEqual(targets);
    } finally {
      watch.close();
    }
  });
});
