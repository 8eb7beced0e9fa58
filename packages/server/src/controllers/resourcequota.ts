/**
 * The resource quota controller of kube-controller-manager, in process, ported from kube 1.35's
 * pkg/controller/resourcequota/resource_quota_controller.go (syncResourceQuota,
 * replenishQuota), its monitors (resource_quota_monitor.go) and the update filter of
 * pkg/quota/v1/install/update_filter.go: a quota's status.hard follows its spec.hard and
 * status.used is recomputed from the namespace's objects when a quota is created or its spec
 * changes, and shortly after objects go away or change what they cost in ways admission never
 * gives back. As kube's monitors, only namespaced resources with create, list, watch and delete
 * are counted, the ignored ones (events, reviews) never. It follows the watch caches, so writes
 * of other replicas count too; a periodic resync (kube's --resource-quota-sync-period) repairs
 * usage charged for writes that failed after admission.
 */
import type { Store } from '../registry/store.js';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import type { CachedObject } from '../cacher/cachedobject.js';
import type { CacheWatcher } from '../cacher/cachewatcher.js';
import type { CacheEventType } from '../cacher/watchcache.js';
import {
  calculateUsage, equalLists, evaluatorsForQuota, isIgnoredResource, isTerminating, parseResourceList, podCountsForQuota, resourceListJSON, type ResourceList,
} from '../admission/resourcequota-usage.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

export interface ResourceQuotaControllerOptions {
  /** Delay between an event and the namespace's recomputation, so a burst of deletes costs one. */
  debounceMs?: number;
  /** Full resync of every quota (kube's default --resource-quota-sync-period is 5m). */
  resyncMs?: number;
}

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;
const noBytes = Buffer.alloc(0);

export class ResourceQuotaController {
  private watchers = new Map<Store, CacheWatcher | null>();
  private pending = new Map<string, NodeJS.Timeout>();
  private running = new Map<string, Promise<void>>();
  private again = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Namespaces with quotas and their names: events elsewhere replenish nothing (replenishQuota's check). */
  private quotaNamespaces = new Map<string, Set<string>>();
  /** What the update filter compares, per object of a namespace with quotas (kube has the old object at hand; a watch cache event does not). */
  private seen = new Map<string, Map<string, string>>();
  private quotableMemo?: { from: Store[]; set: Set<string> };
  private readonly debounceMs: number;
  private readonly resyncMs: number;

  constructor(private lookup: Lookup, private stores: () => Store[], opts: ResourceQuotaControllerOptions = {}) {
    this.debounceMs = opts.debounceMs ?? 50;
    this.resyncMs = opts.resyncMs ?? 5 * 60_000;
  }

  /** Follows every namespaced cache; the quotas' initial state syncs every quota once. */
  start(): void {
    this.attach();
    let last = Date.now();
    this.timer = setInterval(() => {
      // A restarted cache closed its watchers: follow it again (its initial state resyncs its quotas).
      this.attach();
      if (Date.now() - last >= this.resyncMs) {
        last = Date.now();
        void this.resyncAll();
      }
    }, Math.min(this.resyncMs, 5000));
    this.timer.unref();
  }

  private attach(): void {
    for (const store of this.stores()) {
      const cacher = store.cacher;
      const current = this.watchers.get(store);
      if (!cacher || !cacher.live || (current && !current.closed)) continue;
      const out = {
        encode: (type: CacheEventType, o: CachedObject) => { this.observe(store, type, o); return noBytes; },
        bookmark: () => noBytes,
        write: () => undefined,
        buffered: () => 0,
        close: () => undefined,
      };
      this.watchers.set(store, cacher.watch({ prefix: store.resourcePrefix, exactKey: false, matches: () => true }, out, { initial: true }, false));
    }
  }

  private observe(store: Store, type: CacheEventType, o: CachedObject): void {
    const namespace = o.key.slice(store.resourcePrefix.length).split('/')[0];
    if (!namespace) return;
    const resource = store.def.resource;
    if (resource === 'resourcequotas') {
      this.trackQuota(namespace, o.key.slice(o.key.lastIndexOf('/') + 1), type);
      // A quota needs its status written when new, when its spec changed, or when another quota went away (`resourcequotas` counts).
      if (type === 'DELETED' || needsSync(o.object, this.quotable())) this.enqueue(namespace);
      return;
    }
    if (!this.quotaNamespaces.has(namespace) || isIgnoredResource(store.def.group, resource)) return;
    if (type === 'DELETED') {
      this.seen.get(namespace)?.delete(o.key);
      return this.enqueue(namespace);
    }
    // DefaultUpdateFilter: claims change what they hold on every status write (its
    // RequiresQuotaReplenish compares two fresh pointers, so always); pods and Services only
    // through what the filter compares; other kinds never.
    if (store.def.group === '' && resource === 'persistentvolumeclaims') {
      if (type === 'MODIFIED') this.enqueue(namespace);
      return;
    }
    const fingerprint = store.def.group === '' ? updateFilterFingerprint(resource, o) : undefined;
    if (fingerprint === undefined) return;
    let seen = this.seen.get(namespace);
    if (!seen) this.seen.set(namespace, (seen = new Map()));
    const before = seen.get(o.key);
    seen.set(o.key, fingerprint);
    if (type === 'MODIFIED' && before !== fingerprint) this.enqueue(namespace);
  }

  private trackQuota(namespace: string, name: string, type: CacheEventType): void {
    let names = this.quotaNamespaces.get(namespace);
    if (type !== 'DELETED') {
      if (!names) this.quotaNamespaces.set(namespace, (names = new Set()));
      names.add(name);
      return;
    }
    names?.delete(name);
    if (names && names.size === 0) {
      this.quotaNamespaces.delete(namespace);
      this.seen.delete(namespace);
    }
  }

  /** The resources kube's quota monitors follow (GetQuotableResources over namespaced discovery, less the ignored). */
  private quotable(): Set<string> {
    const stores = this.stores();
    if (this.quotableMemo?.from === stores) return this.quotableMemo.set;
    const out = new Set<string>();
    this.quotableMemo = { from: stores, set: out };
    for (const s of stores) {
      const d = s.def;
      if (d.namespaced && ['create', 'list', 'watch', 'delete'].every((v) => d.verbs.includes(v)) && !isIgnoredResource(d.group, d.resource)) out.add(`${d.group}/${d.resource}`);
    }
    return out;
  }

  enqueue(namespace: string): void {
    if (this.stopped || this.pending.has(namespace)) return;
    const t = setTimeout(() => {
      this.pending.delete(namespace);
      this.run(namespace);
    }, this.debounceMs);
    t.unref();
    this.pending.set(namespace, t);
  }

  private run(namespace: string): void {
    if (this.running.has(namespace)) {
      this.again.add(namespace);
      return;
    }
    const p = this.syncNamespace(namespace).catch((err) => {
      if (!this.stopped) console.error(`resourcequota controller: namespace ${namespace}:`, err);
      this.again.add(namespace);
    }).finally(() => {
      this.running.delete(namespace);
      if (this.again.delete(namespace)) this.enqueue(namespace);
    });
    this.running.set(namespace, p);
  }

  private async resyncAll(): Promise<void> {
    const quotas = this.lookup('', 'resourcequotas');
    if (!quotas) return;
    const all = (await quotas.listCached?.('')) ?? (await quotas.list(''));
    for (const ns of new Set(all.map((q) => q.metadata.namespace ?? ''))) if (ns) this.enqueue(ns);
  }

  /** syncResourceQuota for every quota of the namespace. */
  async syncNamespace(namespace: string): Promise<void> {
    const quotas = this.lookup('', 'resourcequotas');
    if (!quotas?.updateStatus) return;
    const items = (await quotas.listCached?.(namespace)) ?? (await quotas.list(namespace));
    const quotable = this.quotable();
    const lookup: Lookup = (group, resource) => (quotable.has(`${group}/${resource}`) ? this.lookup(group, resource) : undefined);
    for (const quota of items) {
      if (this.stopped) return;
      const hard = parseResourceList(obj(quota.spec).hard);
      const observed = await calculateUsage(namespace, quota, hard, lookup);
      await quotas.updateStatus(namespace, quota.metadata.name ?? '', (current) => {
        const currentHard = parseResourceList(obj(current.spec).hard);
        // The spec changed since the usage was computed: its own event computes it again.
        if (!equalLists(currentHard, hard)) return current;
        const status = obj(current.status);
        // kube keeps earlier observations of resources no evaluator measured, then keeps only hard ones.
        const used: ResourceList = new Map(parseResourceList(status.used));
        for (const [k, v] of observed) used.set(k, v);
        const masked: ResourceList = new Map([...used].filter(([k]) => hard.has(k)));
        if (equalLists(parseResourceList(status.hard), hard) && equalLists(parseResourceList(status.used), masked) && Object.keys(obj(status.hard)).length === hard.size) return current;
        current.status = { hard: obj(current.spec).hard ?? {}, used: resourceListJSON(masked) };
        return current;
      }).catch((err: { code?: number }) => {
        if (err.code !== 404) throw err;
      });
    }
  }

  /** Resolves once no recomputation is pending or running (tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.running.size > 0) {
      await Promise.all(this.running.values());
      if (this.pending.size > 0) await new Promise((r) => setTimeout(r, this.debounceMs));
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
    for (const [store, w] of this.watchers) if (w) store.cacher?.unregister(w);
  }
}

/**
 * What DefaultUpdateFilter compares of an updated pod or Service: for pods the Terminating
 * scope, whether it still counts (QuotaV1Pod: not terminal, not past its deletion grace) and
 * the resources the kubelet reports per container (in-place resize); for Services the type
 * quota tells apart. Undefined for kinds whose updates replenish nothing.
 */
function updateFilterFingerprint(resource: string, o: CachedObject): string | undefined {
  if (resource === 'services') {
    const type = obj(o.object.spec).type;
    return type === 'NodePort' || type === 'LoadBalancer' ? type : '';
  }
  if (resource !== 'pods') return undefined;
  const pod = o.object;
  const status = obj(pod.status);
  const resources = (v: unknown) => (Array.isArray(v) ? v : []).map((cs) => [obj(cs).name, obj(cs).resources ?? null]);
  return JSON.stringify([isTerminating(pod), podCountsForQuota(pod, Date.now()), resources(status.containerStatuses), resources(status.initContainerStatuses)]);
}

/**
 * addQuota's priorities: the quota's status does not reflect its spec yet (hard differs), or a
 * hard resource some monitored evaluator measures has no used value. Names nothing measures
 * (count/events, unknown resources) never get one, so they must not ask again on every status
 * write: kube's quota informer ignores updates that leave spec.hard alone.
 */
function needsSync(quota: KubeObject, quotable: Set<string>): boolean {
  const spec = parseResourceList(obj(quota.spec).hard);
  const status = obj(quota.status);
  const hard = parseResourceList(status.hard);
  if (!equalLists(spec, hard)) return true;
  const used = obj(status.used);
  const measured = (name: string) => evaluatorsForQuota([name]).some((e) => quotable.has(`${e.group}/${e.resource}`) && e.matchingResources([name]).length > 0);
  return [...spec.keys()].some((k) => !(k in used) && measured(k));
}
