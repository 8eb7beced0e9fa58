/**
 * apiserver_storage_list_* and apiserver_cache_list_* after a known mix of lists, against what
 * kube 1.35/1.36 counts for the same requests (etcd3 store.GetList, Cacher.GetList, the
 * delegator's consistent reads): real servers over HTTP on both backends.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../testing/client.js';
import { samples, value } from '../testing/scrape.js';

const cms = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, app: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app } }, data: { k: 'v' } });

interface Counts {
  storage: { lists: number; fetched: number; evaluated: number; returned: number };
  cache: { lists: number; fetched: number; returned: number };
}

async function scrape(t: TestServer): Promise<string> {
  const r = await t.call('GET', '/metrics');
  expect(r.status).toBe(200);
  return r.text;
}

function counts(text: string, resource: string): Counts {
  const gr = { group: '', resource };
  const v = (name: string, labels: Record<string, string> = gr) => value(text, name, labels) ?? 0;
  return {
    storage: {
      lists: v('apiserver_storage_list_total'),
      fetched: v('apiserver_storage_list_fetched_objects_total'),
      evaluated: v('apiserver_storage_list_evaluated_objects_total'),
      returned: v('apiserver_storage_list_returned_objects_total'),
    },
    cache: {
      lists: v('apiserver_cache_list_total', { ...gr, index: '' }),
      fetched: v('apiserver_cache_list_fetched_objects_total', { ...gr, index: '' }),
      returned: v('apiserver_cache_list_returned_objects_total'),
    },
  };
}

describeBackends('list metrics', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix.slice(0, -1) });
  });
  afterEach(() => t.close());

  it('counts lists from the watch cache and from storage as kube-apiserver does', async () => {
    let last = counts(await scrape(t), 'configmaps');
    // The watch cache listed the store once at start (kube's reflector), when there was nothing.
    expect(last).toEqual({ storage: { lists: 1, fetched: 0, evaluated: 0, returned: 0 }, cache: { lists: 0, fetched: 0, returned: 0 } });
    /** What the requests since the last call added. */
    const added = async (): Promise<Counts> => {
      const now = counts(await scrape(t), 'configmaps');
      const d: Counts = {
        storage: { lists: now.storage.lists - last.storage.lists, fetched: now.storage.fetched - last.storage.fetched, evaluated: now.storage.evaluated - last.storage.evaluated, returned: now.storage.returned - last.storage.returned },
        cache: { lists: now.cache.lists - last.cache.lists, fetched: now.cache.fetched - last.cache.fetched, returned: now.cache.returned - last.cache.returned },
      };
      last = now;
      return d;
    };
    const noStorage = { lists: 0, fetched: 0, evaluated: 0, returned: 0 };
    /** kube's consistent read from the cache: GetCurrentResourceVersion lists the resource's prefix as one (absent) key. */
    const revisionRead = { lists: 1, fetched: 0, evaluated: 0, returned: 0 };
    const list = async (query: string) => {
      const r = await t.call('GET', `${cms}${query}`);
      expect(r.status).toBe(200);
      return r.body;
    };

    // Created in this order; keys sort a1 a2 a3 b1 b2.
    const rvs: string[] = [];
    for (const [name, app] of [['a1', 'a'], ['b1', 'b'], ['a2', 'a'], ['b2', 'b'], ['a3', 'a']]) {
      const r = await t.call('POST', cms, { body: cm(name, app) });
      expect(r.status).toBe(201);
      rvs.push(r.body.metadata.resourceVersion);
    }
    // Writes list nothing.
    expect(await added()).toEqual({ storage: noStorage, cache: { lists: 0, fetched: 0, returned: 0 } });

    // From storage: an Exact list at a revision the cache keeps no snapshot of (a1 b1 a2 then),
    // with a selector that filters: 3 read, 3 tested, 2 returned.
    let body = await list(`?resourceVersion=${rvs[2]}&resourceVersionMatch=Exact&labelSelector=app%3Da`);
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['a1', 'a2']);
    expect(await added()).toEqual({ storage: { lists: 1, fetched: 3, evaluated: 3, returned: 2 }, cache: { lists: 0, fetched: 0, returned: 0 } });
    // A legacy exact page (limit with a resourceVersion) whose selector matches only the last
    // object: the store is read on (kube: pages of 1, then 2) until the page is full.
    body = await list(`?resourceVersion=${rvs[2]}&limit=1&labelSelector=app%3Db`);
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['b1']);
    expect(await added()).toEqual({ storage: { lists: 1, fetched: 3, evaluated: 3, returned: 1 }, cache: { lists: 0, fetched: 0, returned: 0 } });

    // Consistent lists from the cache: kube's revision read, then every object under the prefix.
    expect((await list('')).items).toHaveLength(5);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 1, fetched: 5, returned: 5 } });
    expect((await list('?labelSelector=app%3Da')).items).toHaveLength(3);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 1, fetched: 5, returned: 3 } });

    // Paged: the first page reads the revision and every object (remainingItemCount); the
    // continuations are exact reads of the page's snapshot, from the continue key on.
    body = await list('?limit=2');
    expect(body.metadata.remainingItemCount).toBe(3);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 1, fetched: 5, returned: 2 } });
    body = await list(`?limit=2&continue=${encodeURIComponent(body.metadata.continue)}`);
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['a3', 'b1']);
    body = await list(`?limit=2&continue=${encodeURIComponent(body.metadata.continue)}`);
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['b2']);
    expect(body.metadata.continue).toBeUndefined();
    expect(await added()).toEqual({ storage: noStorage, cache: { lists: 2, fetched: 3 + 1, returned: 2 + 1 } });

    // Paged with a selector that filters: b1 is found after four objects, b2 ends the page.
    body = await list('?limit=1&labelSelector=app%3Db');
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['b1']);
    body = await list(`?limit=1&labelSelector=app%3Db&continue=${encodeURIComponent(body.metadata.continue)}`);
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['b2']);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 2, fetched: 5 + 1, returned: 1 + 1 } });
    // Where Windlass reads less than kube it counts what it read: the page is full at a1, and
    // a2 shows it is not the last; kube's cache copies out all 5 before filtering (fetched 5).
    body = await list('?limit=1&labelSelector=app%3Da');
    expect(body.items.map((i: any) => i.metadata.name)).toEqual(['a1']);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 1, fetched: 2, returned: 1 } });

    // resourceVersion=0 (Any): from the cache, limit ignored, no revision read.
    expect((await list('?resourceVersion=0&limit=1&labelSelector=app%3Db')).items).toHaveLength(2);
    expect(await added()).toEqual({ storage: noStorage, cache: { lists: 1, fetched: 5, returned: 2 } });
    // Not older than a revision: from the cache once it has it, no revision read.
    expect((await list(`?resourceVersion=${rvs[4]}&resourceVersionMatch=NotOlderThan`)).items).toHaveLength(5);
    expect(await added()).toEqual({ storage: noStorage, cache: { lists: 1, fetched: 5, returned: 5 } });

    // Across namespaces: one object elsewhere, counted under the same resource.
    expect((await t.call('POST', '/api/v1/namespaces/kube-system/configmaps', { body: cm('k', 'a') })).status).toBe(201);
    expect((await t.call('GET', '/api/v1/configmaps?labelSelector=app%3Da')).body.items).toHaveLength(4);
    expect(await added()).toEqual({ storage: revisionRead, cache: { lists: 1, fetched: 6, returned: 4 } });

    // Labels: kube's sets, values from the resource definitions only.
    const text = await scrape(t);
    const labelsOf = (name: string) => [...new Set(samples(text, name).map((s) => Object.keys(s.labels).sort().join()))];
    for (const n of ['apiserver_storage_list_total', 'apiserver_storage_list_fetched_objects_total', 'apiserver_storage_list_evaluated_objects_total', 'apiserver_storage_list_returned_objects_total', 'apiserver_cache_list_returned_objects_total']) {
      expect(labelsOf(n)).toEqual(['group,resource']);
    }
    for (const n of ['apiserver_cache_list_total', 'apiserver_cache_list_fetched_objects_total']) expect(labelsOf(n)).toEqual(['group,index,resource']);
    expect(text).toContain('# TYPE apiserver_storage_list_total counter');
    // Every cached resource's initial list is there, e.g. the namespaces bootstrap made.
    expect(value(text, 'apiserver_storage_list_total', { group: '', resource: 'namespaces' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'apiserver_storage_list_returned_objects_total', { group: 'apps', resource: 'deployments' })).toBe(0);
  });
});
