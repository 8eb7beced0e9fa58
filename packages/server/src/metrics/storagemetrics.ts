/**
 * Storage and watch-cache metrics with kube's names (k8s.io/apiserver/pkg/storage/etcd3/metrics
 * and pkg/storage/cacher/metrics). Requests to the store are timed by MeteredStorage, a
 * wrapper of the Storage interface, so backends stay untouched; object counts and cache
 * figures are read from the watch caches at scrape time, costing requests nothing.
 */
import type { Storage, RangeOptions, RangeResult, KeyValue, WatchListener, WatchOptions, WatchHandle } from '@windlass/storage';
import type { Registry } from 'prom-client';
import type { Cacher } from '../cacher/cacher.js';
import type { ResourceDefinition } from '../registry/types.js';
import { Counter, Gauge, Histogram, type CounterSeries, type HistogramSeries } from './series.js';
import { ListMetrics, type ListSeries } from './listmetrics.js';

const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** etcd3 store's operation names. */
const operations = ['get', 'list', 'listWithCount', 'create', 'update', 'delete', 'compact'] as const;
type Operation = (typeof operations)[number];

class OperationSeries {
  constructor(readonly duration: HistogramSeries, readonly total: CounterSeries, readonly errors: CounterSeries) {}
}

/** The series of one stored resource (kube labels them by group and resource), made on first use. */
class ResourceSeries {
  private readonly ops: Partial<Record<Operation, OperationSeries>> = {};
  private received?: CounterSeries;
  private listSeries?: ListSeries;
  constructor(private readonly m: StorageMetrics, private readonly group: string, private readonly resource: string) {}

  op(op: Operation): OperationSeries {
    let s = this.ops[op];
    if (!s) {
      const { m, group, resource } = this;
      s = this.ops[op] = new OperationSeries(m.etcdDuration.child(op, group, resource), m.etcdRequests.child(op, group, resource), m.etcdErrors.child(op, group, resource));
    }
    return s;
  }

  get eventsReceived(): CounterSeries {
    return (this.received ??= this.m.storageEventsReceived.child(this.group, this.resource));
  }

  get lists(): ListSeries {
    return (this.listSeries ??= this.m.lists.series(this.group, this.resource));
  }
}

/** A stored resource type as the metrics see it: its definition and its watch cache. */
export interface CachedResource {
  def: ResourceDefinition;
  cacher: Cacher;
}

export interface StorageSize {
  /** etcd's client URL, or the embedded store's file. */
  endpoint: string;
  bytes: number;
}

export class StorageMetrics {
  readonly etcdDuration = new Histogram('etcd_request_duration_seconds', 'Etcd request latency in seconds for each operation and object type.', ['operation', 'group', 'resource'], latencyBuckets);
  readonly etcdRequests = new Counter('etcd_requests_total', 'Etcd request counts for each operation and object type.', ['operation', 'group', 'resource']);
  readonly etcdErrors = new Counter('etcd_request_errors_total', 'Etcd failed request counts for each operation and object type.', ['operation', 'group', 'resource']);
  readonly storageEventsReceived = new Counter('apiserver_storage_events_received_total', 'Number of etcd events received split by kind.', ['group', 'resource']);
  readonly storageObjects = new Gauge('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.', ['resource']).aggregate('max');
  readonly resourceObjects = new Gauge('apiserver_resource_objects', 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.', ['group', 'resource']).aggregate('max');
  readonly storageSize = new Gauge('apiserver_storage_size_bytes', 'Size of the storage database file physically allocated in bytes.', ['storage_cluster_id']).aggregate('max');
  readonly dbTotalSize = new Gauge('apiserver_storage_db_total_size_in_bytes', '(Deprecated since 1.28.0) Total size of the storage database file physically allocated in bytes.', ['endpoint']).aggregate('max');
  readonly initEvents = new Counter('apiserver_init_events_total', 'Counter of init events processed in watch cache broken by resource type.', ['group', 'resource']);
  readonly cacheEventsReceived = new Counter('apiserver_watch_cache_events_received_total', 'Counter of events received in watch cache broken by resource type.', ['group', 'resource']);
  readonly cacheEventsDispatched = new Counter('apiserver_watch_cache_events_dispatched_total', 'Counter of events dispatched in watch cache broken by resource type.', ['group', 'resource']);
  readonly cacheInitializations = new Counter('apiserver_watch_cache_initializations_total', 'Counter of watch cache initializations broken by resource type.', ['group', 'resource']);
  readonly cacheResourceVersion = new Gauge('apiserver_watch_cache_resource_version', 'Current resource version of watch cache broken by resource type. This is truncated to the 15 least significant digits.', ['group', 'resource']).aggregate('max');
  readonly registeredWatchers = new Gauge('apiserver_registered_watchers', 'Number of currently registered watchers for a given resources', ['group', 'version', 'kind']);

  /** apiserver_storage_list_* and apiserver_cache_list_*. */
  readonly lists: ListMetrics;

  private readonly byPrefix = new Map<string, ResourceSeries>();
  private readonly unknown: ResourceSeries;

  constructor(private readonly registryPrefix: string, resources: () => CachedResource[], storageSize?: () => Promise<StorageSize[]>) {
    this.unknown = new ResourceSeries(this, '', '');
    // Each watch cache's initial lists are storage lists (kube's reflector lists through the store).
    this.lists = new ListMetrics(() => {
      for (const { cacher } of resources()) {
        const s = this.seriesFor(cacher.prefix).lists;
        s.initLists = cacher.stats.initializations;
        s.initObjects = cacher.stats.initEvents;
      }
    });
    this.collectCaches(resources);
    if (storageSize) this.collectSize(storageSize);
  }

  register(registry: Registry): void {
    for (const f of [
      this.etcdDuration, this.etcdRequests, this.etcdErrors, this.storageEventsReceived, this.storageObjects, this.resourceObjects, this.storageSize, this.dbTotalSize,
      this.initEvents, this.cacheEventsReceived, this.cacheEventsDispatched, this.cacheInitializations, this.cacheResourceVersion, this.registeredWatchers,
    ]) f.register(registry);
    this.lists.register(registry);
  }

  /** Keys are <prefix>/<keyPrefix>/…, the key prefix one or two segments (configmaps, services/specs). */
  addResource(def: ResourceDefinition): void {
    const keyPrefix = def.keyPrefix ?? def.resource;
    if (!this.byPrefix.has(keyPrefix)) this.byPrefix.set(keyPrefix, new ResourceSeries(this, def.group, def.resource));
  }

  /** Bounded: a key outside every known resource counts under empty labels. */
  seriesFor(key: string): ResourceSeries {
    const start = this.registryPrefix.length + 1;
    if (!key.startsWith(this.registryPrefix) || key.length <= start) return this.unknown;
    const end = key.indexOf('/', start);
    const one = this.byPrefix.get(key.slice(start, end < 0 ? key.length : end));
    if (one || end < 0) return one ?? this.unknown;
    const end2 = key.indexOf('/', end + 1);
    return this.byPrefix.get(key.slice(start, end2 < 0 ? key.length : end2)) ?? this.unknown;
  }

  private collectCaches(resources: () => CachedResource[]): void {
    // One family's collect sets every cache figure, so a scrape walks the caches once.
    const known = new Map<Cacher, { objects: ReturnType<Gauge['child']>; objectsByGroup: ReturnType<Gauge['child']>; init: CounterSeries; received: CounterSeries; dispatched: CounterSeries; inits: CounterSeries; rv: ReturnType<Gauge['child']> }>();
    const watchers = new Map<Cacher, ReturnType<Gauge['child']>>();
    this.storageObjects.collect = () => {
      for (const { def, cacher } of resources()) {
        let s = known.get(cacher);
        if (!s) {
          const gr = def.group ? `${def.resource}.${def.group}` : def.resource;
          s = {
            objects: this.storageObjects.child(gr),
            objectsByGroup: this.resourceObjects.child(def.group, def.resource),
            init: this.initEvents.child(def.group, def.resource),
            received: this.cacheEventsReceived.child(def.group, def.resource),
            dispatched: this.cacheEventsDispatched.child(def.group, def.resource),
            inits: this.cacheInitializations.child(def.group, def.resource),
            rv: this.cacheResourceVersion.child(def.group, def.resource),
          };
          known.set(cacher, s);
          watchers.set(cacher, this.registeredWatchers.child(def.group, def.version, def.kind));
        }
        const count = cacher.live ? cacher.cache.tree.size : -1;
        s.objects.set(count);
        s.objectsByGroup.set(count);
        s.init.value = cacher.stats.initEvents;
        s.received.value = cacher.stats.eventsReceived;
        s.dispatched.value = cacher.stats.eventsDispatched;
        s.inits.value = cacher.stats.initializations;
        s.rv.set(cacher.cache.resourceVersion % 1e15);
        watchers.get(cacher)!.set(cacher.watcherCount);
      }
    };
  }

  private collectSize(storageSize: () => Promise<StorageSize[]>): void {
    const byEndpoint = new Map<string, { size: ReturnType<Gauge['child']>; total: ReturnType<Gauge['child']> }>();
    this.storageSize.collect = async () => {
      let sizes: StorageSize[];
      try {
        sizes = await storageSize();
      } catch {
        return;
      }
      sizes.forEach((s, i) => {
        let g = byEndpoint.get(s.endpoint);
        if (!g) {
          g = { size: this.storageSize.child(`etcd-${i}`), total: this.dbTotalSize.child(s.endpoint) };
          byEndpoint.set(s.endpoint, g);
        }
        g.size.set(s.bytes);
        g.total.set(s.bytes);
      });
    };
  }
}

function since(start: number): number {
  return (performance.now() - start) / 1000;
}

/** The Storage interface, each request timed and counted under its resource's labels. */
export class MeteredStorage implements Storage {
  /** Forwarded only where the inner store has it: no request, so nothing to measure. */
  readonly currentRevisionNow?: () => number;

  constructor(private readonly inner: Storage, private readonly m: StorageMetrics) {
    if (inner.currentRevisionNow) this.currentRevisionNow = () => inner.currentRevisionNow!();
  }

  get name(): string {
    return this.inner.name;
  }

  /** The list counts of the resource stored under `keyPrefix` (`<registry>/<resource>/`). */
  listSeries(keyPrefix: string): ListSeries {
    return this.m.seriesFor(keyPrefix).lists;
  }

  get supportsProgressRequests(): boolean | undefined {
    return this.inner.supportsProgressRequests;
  }

  private async timed<T>(op: OperationSeries, run: Promise<T>): Promise<T> {
    const start = performance.now();
    op.total.inc();
    try {
      return await run;
    } catch (err) {
      op.errors.inc();
      throw err;
    } finally {
      op.duration.observe(since(start));
    }
  }

  range(key: string, opts?: RangeOptions & { prefix?: boolean }): Promise<RangeResult> {
    const series = this.m.seriesFor(key);
    return this.timed(series.op(opts?.countOnly ? 'listWithCount' : opts?.prefix ? 'list' : 'get'), this.inner.range(key, opts));
  }

  get(key: string, revision?: number): Promise<KeyValue | null> {
    return this.timed(this.m.seriesFor(key).op('get'), this.inner.get(key, revision));
  }

  create(key: string, value: Buffer): Promise<KeyValue> {
    return this.timed(this.m.seriesFor(key).op('create'), this.inner.create(key, value));
  }

  update(key: string, value: Buffer, expectedModRevision: number): Promise<KeyValue> {
    return this.timed(this.m.seriesFor(key).op('update'), this.inner.update(key, value, expectedModRevision));
  }

  delete(key: string, expectedModRevision: number): Promise<{ deleted: KeyValue; revision: number }> {
    return this.timed(this.m.seriesFor(key).op('delete'), this.inner.delete(key, expectedModRevision));
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener, opts?: WatchOptions): Promise<WatchHandle> {
    const m = this.m;
    return this.inner.watch(prefix, fromRevision, {
      events(events) {
        for (const ev of events) m.seriesFor(ev.key).eventsReceived.inc();
        listener.events(events);
      },
      progress: listener.progress ? (revision) => listener.progress!(revision) : undefined,
      error: (err) => listener.error(err),
    }, opts);
  }

  currentRevision(opts?: { waitMs?: number }): Promise<number> {
    // A count-only read of the whole registry in kube's etcd3 store.
    return this.timed(this.m.seriesFor('').op('listWithCount'), this.inner.currentRevision(opts));
  }

  compact(revision: number): Promise<void> {
    return this.timed(this.m.seriesFor('').op('compact'), this.inner.compact(revision));
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Where a Store counts its lists: undefined over storage that is not metered (a Store made on its own in a test). */
export function listSeriesFor(storage: Storage, keyPrefix: string): ListSeries | undefined {
  return storage instanceof MeteredStorage ? storage.listSeries(keyPrefix) : undefined;
}
