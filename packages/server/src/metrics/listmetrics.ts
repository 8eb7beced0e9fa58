/**
 * What serving a LIST costs, with kube's names (kube 1.35/1.36):
 *
 * - From storage (k8s.io/apiserver pkg/storage/etcd3/metrics, recorded by store.GetList even
 *   when it fails): apiserver_storage_list_total, and per list the objects read from the store
 *   (`_fetched_objects_total`: every key-value of every range read, pages of a selector's
 *   search included), tested against the selectors (`_evaluated_objects_total`: those looked
 *   at before the page was full) and returned (`_returned_objects_total`); labels group and
 *   resource.
 * - From the watch cache (pkg/storage/cacher/metrics, recorded by Cacher.GetList):
 *   apiserver_cache_list_total and `_fetched_objects_total` labelled group, resource and
 *   index (the cache index used; Windlass has none, so ""), `_returned_objects_total` by
 *   group and resource only.
 *
 * Two kube behaviours are kept so the same request mix counts the same:
 * - A consistent LIST served from the cache first reads the store's current revision, and
 *   kube's etcd3 GetCurrentResourceVersion does that through GetList on the resource's prefix
 *   as a single key (nothing is there): one more storage list of 0 objects per such LIST.
 *   Windlass reads that revision once for every consistent read arriving together, but
 *   counts it per LIST as kube does.
 * - The watch cache's own list of the store when it (re)initialises is a storage list of
 *   every object of the resource (kube's reflector, in pages of 10,000 objects: below that,
 *   one list); taken from the Cacher's counts at scrape time.
 *
 * Where Windlass reads less than kube, it counts what it read: a paged cache list with a
 * selector stops at the page's end, where kube's cache copies out every object after the
 * continue key first; a storage list whose selector leaves the page short reads further
 * pages of `limit` objects, where kube doubles the page size each time.
 *
 * Recording adds to a few numbers the Store holds on to; the series are made at scrape time.
 */
import type { Registry } from 'prom-client';
import { Counter, type CounterSeries } from './series.js';

/** Where a cache list page reports what it read: objects visited, objects returned. */
export interface CacheListSink {
  listed(fetched: number, returned: number): void;
}

/** The list counts of one stored resource. */
export class ListSeries {
  storageLists = 0;
  storageFetched = 0;
  storageEvaluated = 0;
  storageReturned = 0;
  cacheLists = 0;
  cacheFetched = 0;
  cacheReturned = 0;
  /** The watch cache's (re)initialisations and the objects they listed, read from the Cacher at scrape time. */
  initLists = 0;
  initObjects = 0;
  /** A list served from the cache. */
  readonly cache: CacheListSink = {
    listed: (fetched, returned) => {
      this.cacheLists++;
      this.cacheFetched += fetched;
      this.cacheReturned += returned;
    },
  };
  /** A consistent list served from the cache: also kube's revision read, a storage list of nothing. */
  readonly consistentCache: CacheListSink = {
    listed: (fetched, returned) => {
      this.storageLists++;
      this.cache.listed(fetched, returned);
    },
  };
  exposed?: { total: CounterSeries; fetched: CounterSeries; evaluated: CounterSeries; returned: CounterSeries };
  exposedCache?: { total: CounterSeries; fetched: CounterSeries; returned: CounterSeries };

  constructor(readonly group: string, readonly resource: string) {}

  /** A list read from the store (kube's RecordStorageListMetrics). */
  fromStorage(fetched: number, evaluated: number, returned: number): void {
    this.storageLists++;
    this.storageFetched += fetched;
    this.storageEvaluated += evaluated;
    this.storageReturned += returned;
  }
}

export class ListMetrics {
  readonly storageTotal = new Counter('apiserver_storage_list_total', 'Number of LIST requests served from storage', ['group', 'resource']);
  readonly storageFetched = new Counter('apiserver_storage_list_fetched_objects_total', 'Number of objects read from storage in the course of serving a LIST request', ['group', 'resource']);
  readonly storageEvaluated = new Counter('apiserver_storage_list_evaluated_objects_total', 'Number of objects tested in the course of serving a LIST request from storage', ['group', 'resource']);
  readonly storageReturned = new Counter('apiserver_storage_list_returned_objects_total', 'Number of objects returned for a LIST request from storage', ['group', 'resource']);
  readonly cacheTotal = new Counter('apiserver_cache_list_total', 'Number of LIST requests served from watch cache', ['group', 'resource', 'index']);
  readonly cacheFetched = new Counter('apiserver_cache_list_fetched_objects_total', 'Number of objects read from watch cache in the course of serving a LIST request', ['group', 'resource', 'index']);
  readonly cacheReturned = new Counter('apiserver_cache_list_returned_objects_total', 'Number of objects returned for a LIST request from watch cache', ['group', 'resource']);

  private readonly all: ListSeries[] = [];

  /**
   * @param refresh brings the watch caches' initialisation counts up to date before a scrape
   * reads them (StorageMetrics walks the caches).
   */
  constructor(private readonly refresh: () => void) {
    const collect = () => this.collect();
    for (const f of this.families()) f.collect = collect;
  }

  private families(): Counter[] {
    return [this.storageTotal, this.storageFetched, this.storageEvaluated, this.storageReturned, this.cacheTotal, this.cacheFetched, this.cacheReturned];
  }

  register(registry: Registry): void {
    for (const f of this.families()) f.register(registry);
  }

  series(group: string, resource: string): ListSeries {
    const s = new ListSeries(group, resource);
    this.all.push(s);
    return s;
  }

  /** Series appear once something was counted, as kube's vectors' members do. Idempotent: each family's scrape calls it. */
  private collect(): void {
    this.refresh();
    for (const s of this.all) {
      const lists = s.storageLists + s.initLists;
      if (lists > 0) {
        const e = (s.exposed ??= {
          total: this.storageTotal.child(s.group, s.resource),
          fetched: this.storageFetched.child(s.group, s.resource),
          evaluated: this.storageEvaluated.child(s.group, s.resource),
          returned: this.storageReturned.child(s.group, s.resource),
        });
        e.total.value = lists;
        e.fetched.value = s.storageFetched + s.initObjects;
        e.evaluated.value = s.storageEvaluated + s.initObjects;
        e.returned.value = s.storageReturned + s.initObjects;
      }
      if (s.cacheLists > 0) {
        const e = (s.exposedCache ??= {
          total: this.cacheTotal.child(s.group, s.resource, ''),
          fetched: this.cacheFetched.child(s.group, s.resource, ''),
          returned: this.cacheReturned.child(s.group, s.resource),
        });
        e.total.value = s.cacheLists;
        e.fetched.value = s.cacheFetched;
        e.returned.value = s.cacheReturned;
      }
    }
  }
}
