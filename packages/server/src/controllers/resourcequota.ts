/**
 * The resource quota controller of kube-controller-manager (pkg/controller/resourcequota),
 * in process: a quota's status.hard follows its spec.hard and status.used is recomputed from
 * the namespace's objects when a quota is created or its spec changes, and shortly after
 * objects go away or stop counting (deleted, a pod reaching a terminal phase, a Service or
 * claim changing), which admission never gives back. It follows the watch caches, so
 * writes of other replicas count too; a periodic resync (kube's --resource-quota-sync-period)
 * repairs usage charged for writes that failed after admission.
 */
import type { Store } from '../registry/store.js';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import type { CachedObject } from '../cacher/cachedobject.js';
import type { CacheWatcher } from '../cacher/cachewatcher.js';
import type { CacheEventType } from '../cacher/watchcache.js';
import { calculateUsage, equalLists, parseResourceList, resourceListJSON, type ResourceList } from '../admission/resourcequota-usage.js';

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
      // A quota needs its status written when new, when its spec changed, or when another quota went away (`resourcequotas` counts).
      if (type === 'DELETED' || needsSync(o.object)) this.enqueue(namespace);
      return;
    }
    if (type === 'DELETED') return this.enqueue(namespace);
    if (type !== 'MODIFIED') return;
    // Changes that can lower usage, which admission never gives back.
    if (resource === 'pods') {
      // The pod's field-selector attributes carry its phase: no decoding on the hot path.
      const phase = o.attrs.fields['status.phase'];
      if (phase === 'Succeeded' || phase === 'Failed') this.enqueue(namespace);
    } else if (resource === 'services' || resource === 'persistentvolumeclaims') {
      this.enqueue(namespace);
    }
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
    for (const quota of items) {
      if (this.stopped) return;
      const hard = parseResourceList(obj(quota.spec).hard);
      const observed = await calculateUsage(namespace, quota, hard, this.lookup);
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

/** The quota's status does not reflect its spec yet: hard differs, or a hard resource has no used value. */
function needsSync(quota: KubeObject): boolean {
  const spec = parseResourceList(obj(quota.spec).hard);
  const status = obj(quota.status);
  const hard = parseResourceList(status.hard);
  if (!equalLists(spec, hard)) return true;
  const used = obj(status.used);
  return [...spec.keys()].some((k) => !(k in used));
}
