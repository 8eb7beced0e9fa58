/**
 * Consistent reads (GET and LIST without resourceVersion) served from the watch cache keep
 * spec 4.4's guarantee: they see every write acknowledged before they started, here written
 * through another replica on the same store while they run (on etcd, over its own connection;
 * embedded, two servers in one process on one store). And they come from the cache: the
 * reading replica's store sees no object reads, only revision probes.
 */
import { describeBackends } from '@windlass/storage/testing';
import type { Storage, WatchListener, WatchOptions } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';

/** The real store, with its object reads counted (revision probes are count-only ranges). */
function counting(storage: Storage) {
  const counts = { get: 0, range: 0 };
  const proxy = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'get') return (...args: Parameters<Storage['get']>) => { counts.get++; return target.get(...args); };
      if (prop === 'range') return (...args: Parameters<Storage['range']>) => { if (!args[1]?.countOnly) counts.range++; return target.range(...args); };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { storage: proxy, counts };
}

describeBackends('consistent reads from the cache across replicas', (ctx) => {
  let writer: TestServer;
  let reader: TestServer;
  let counts: { get: number; range: number };
  beforeEach(async () => {
    const registryPrefix = ctx.prefix + 'registry';
    writer = await startTestServer({ storage: ctx.storage, registryPrefix });
    const c = counting(ctx.backend === 'etcd' ? await ctx.open() : ctx.storage);
    counts = c.counts;
    reader = await startTestServer({ storage: c.storage, registryPrefix, cacher: { consistencyWaitMs: 300 } });
  });
  afterEach(async () => {
    await reader.close();
    await writer.close();
  });

  test('every write acknowledged by one replica is seen by the next GET and LIST on the other', async () => {
    const before = { ...counts };
    const seen: string[] = [];
    await Promise.all([0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 15; i++) {
        const name = `w${w}-${i}`;
        const created = await writer.call('POST', cms, { body: { metadata: { name }, data: { v: '1' } } });
        expect(created.status).toBe(201);
        const updated = await writer.call('PUT', `${cms}/${name}`, { body: { ...created.body, data: { v: '2' } } });
        expect(updated.status).toBe(200);
        const acked = Number(updated.body.metadata.resourceVersion);
        const got = await reader.call('GET', `${cms}/${name}`);
        expect(got.status).toBe(200);
        expect(got.body.data.v).toBe('2');
        expect(Number(got.body.metadata.resourceVersion)).toBe(acked);
        const list = await reader.call('GET', cms);
        expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(acked);
        const item = list.body.items.find((o: any) => o.metadata.name === name);
        expect(item?.data.v).toBe('2');
        seen.push(name);
      }
    }));
    expect(seen).toHaveLength(60);
    // Served from the cache: no object was read from the store for those 120 reads.
    expect(counts.get - before.get).toBe(0);
    expect(counts.range - before.range).toBe(0);
  });

  test('updates start from the cache: conditioned on a write just made through the other replica they succeed; a stale precondition is a 409 without a store read', async () => {
    let obj = (await writer.call('POST', cms, { body: { metadata: { name: 'u' }, data: { n: '0' } } })).body;
    for (let i = 1; i <= 20; i++) {
      // The reader's cache may not have the writer's last write yet: its copy is then re-read from the store.
      const put = await reader.call('PUT', `${cms}/u`, { body: { ...obj, data: { n: String(i) } } });
      expect(put.status).toBe(200);
      const next = await writer.call('PATCH', `${cms}/u`, { body: { data: { n: `${i}w` } }, contentType: 'application/merge-patch+json' });
      expect(next.status).toBe(200);
      obj = next.body;
    }
    await reader.call('GET', `${cms}/u`);
    const before = counts.get;
    const stale = await reader.call('PUT', `${cms}/u`, { body: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) - 1) } } });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe('Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again');
    expect(counts.get - before).toBe(0);
  });

  test('a delete acknowledged by one replica is a 404 on the other at once', async () => {
    await writer.call('POST', cms, { body: { metadata: { name: 'gone' } } });
    expect((await reader.call('GET', `${cms}/gone`)).status).toBe(200);
    expect((await writer.call('DELETE', `${cms}/gone`)).status).toBe(200);
    expect((await reader.call('GET', `${cms}/gone`)).status).toBe(404);
    expect((await reader.call('GET', cms)).body.items).toEqual([]);
  });

  if (ctx.backend === 'etcd') {
    test('a write outside the registry prefix (another program on the same etcd) makes the read go to the store, still right', async () => {
      await writer.call('POST', cms, { body: { metadata: { name: 'a' }, data: { v: '1' } } });
      await ctx.storage.create(`${ctx.prefix}elsewhere/k`, Buffer.from('x'));
      const before = counts.get;
      const got = await reader.call('GET', `${cms}/a`);
      expect(got.status).toBe(200);
      expect(got.body.data.v).toBe('1');
      // The registry watch never sees that revision, so after consistencyWaitMs the store answered.
      expect(counts.get - before).toBe(1);
      // The next registry write brings the cache past it: reads come from the cache again.
      const upd = await writer.call('PATCH', `${cms}/a`, { body: { data: { v: '2' } }, contentType: 'application/merge-patch+json' });
      const again = await reader.call('GET', `${cms}/a`);
      expect(again.body.data.v).toBe('2');
      expect(again.body.metadata.resourceVersion).toBe(upd.body.metadata.resourceVersion);
      expect(counts.get - before).toBe(1);
    });
  }
});

/** The store with its watch events held back: a replica whose cache lags behind writes others acknowledged. */
function lagging(storage: Storage, delayMs: number): Storage {
  return new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'watch') {
        return (prefix: string, from: number, listener: WatchListener, opts?: WatchOptions) => target.watch(prefix, from, {
          events: (events) => void setTimeout(() => listener.events(events), delayMs),
          progress: listener.progress && ((rev) => void setTimeout(() => listener.progress!(rev), delayMs)),
          error: (err) => void setTimeout(() => listener.error(err), delayMs),
        }, opts);
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describeBackends('writes started from a lagging cache', (ctx) => {
  test('a write that is a no-op against a stale cached copy is computed again on the store\'s copy, not answered with the stale one', async () => {
    const registryPrefix = ctx.prefix + 'registry';
    const writer = await startTestServer({ storage: ctx.storage, registryPrefix });
    const reader = await startTestServer({ storage: lagging(ctx.backend === 'etcd' ? await ctx.open() : ctx.storage, 200), registryPrefix });
    try {
      await writer.call('POST', cms, { body: { metadata: { name: 'n' }, data: { n: 'a' } } });
      await new Promise((r) => setTimeout(r, 400));
      const moved = await writer.call('PATCH', `${cms}/n`, { body: { data: { n: 'b' } }, contentType: 'application/merge-patch+json' });
      expect(moved.status).toBe(200);
      // The reader's cache still has n=a: against it this patch changes nothing; against the store's copy it does.
      const back = await reader.call('PATCH', `${cms}/n`, { body: { data: { n: 'a' } }, contentType: 'application/merge-patch+json' });
      expect(back.status).toBe(200);
      expect(back.body.data.n).toBe('a');
      expect(Number(back.body.metadata.resourceVersion)).toBeGreaterThan(Number(moved.body.metadata.resourceVersion));
      expect((await writer.call('GET', `${cms}/n`)).body.data.n).toBe('a');
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
