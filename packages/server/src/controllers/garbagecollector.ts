/**
 * kube-controller-manager's garbage collector, in process, ported from kube 1.35's
 * pkg/controller/garbagecollector (graph_builder.go processGraphChanges, garbagecollector.go
 * attemptToDeleteItem, classifyReferences, isDangling, processDeletingDependentsItem,
 * attemptToOrphanWorker, operations.go deleteObject):
 *  - an owner deleted with `foregroundDeletion` has its dependents deleted, and loses the
 *    finalizer once no dependent with blockOwnerDeletion remains;
 *  - an owner deleted with `orphan` has the references to it removed from its dependents, then
 *    loses the finalizer;
 *  - an object all of whose owners are gone (checked against the store by uid) is deleted.
 * It follows the watch caches (every replica's writes), and every write is a compare-and-swap
 * or a delete with a uid precondition, so every replica may run it: duplicates are harmless.
 * As kube's default configuration, events take no part.
 */
import { isStorageError } from '@windlass/storage';
import type { StatusError } from '@windlass/machinery';
import type { CachedObject } from '../cacher/cachedobject.js';
import type { CacheWatcher } from '../cacher/cachewatcher.js';
import type { CacheEventType } from '../cacher/watchcache.js';
import { decodeKeyValue } from '../registry/codec.js';
import { foregroundFinalizer, orphanFinalizer, type PropagationPolicy } from '../registry/deletionpropagation.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';
import {
  cachedMeta, DependencyGraph, deletingDependents, metaOf, nodeOf, ownersOf, takesPart, type GCNode, type OwnerRef,
} from './gcgraph.js';

export interface GarbageCollectorOptions {
  /** Delay before queued work runs, so a burst of events costs one pass per object. */
  debounceMs?: number;
  /** Objects processed at once. */
  workers?: number;
}

type Task = { op: 'delete' | 'orphan'; uid: string };
/** How an owner reference resolves (classifyReferences), or why it cannot. */
type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolvable' | 'invalid';

const noBytes = Buffer.alloc(0);
const maxBackoffMs = 5000;
/** Thrown from an update attempt to write nothing: the object was replaced, or needs no change. */
const gone = new Error('object replaced');
const unchanged = new Error('nothing to change');

export class GarbageCollector {
  readonly graph = new DependencyGraph();
  private watchers = new Map<Store, CacheWatcher | null>();
  private queue = new Map<string, Task>();
  private running = new Map<string, Promise<void>>();
  private again = new Set<string>();
  private failures = new Map<string, number>();
  private retries = new Set<NodeJS.Timeout>();
  private flushTimer?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private kinds?: { from: Store[]; byKind: Map<string, Store[]> };
  private readonly debounceMs: number;
  private readonly workers: number;

  /** `stores`: one store per stored resource (the storage version's, where versions share one). */
  constructor(private stores: () => Store[], opts: GarbageCollectorOptions = {}) {
    this.debounceMs = opts.debounceMs ?? 10;
    this.workers = opts.workers ?? 4;
  }

  start(): void {
    this.attach();
    // A restarted cache closed its watchers: follow it again.
    this.timer = setInterval(() => this.attach(), 2000);
    this.timer.unref();
  }

  private attach(): void {
    for (const store of this.stores()) {
      const cacher = store.cacher;
      const current = this.watchers.get(store);
      if (!cacher || !cacher.live || (current && !current.closed) || ignored(store)) continue;
      // Following a restarted cache again, its current state replaces what the graph held of it:
      // objects not replayed went away unseen.
      const stale = new Set(current ? this.graph.keysUnder(store.resourcePrefix) : []);
      const out = {
        encode: (type: CacheEventType, o: CachedObject) => {
          stale.delete(o.key);
          this.observe(store, type, o);
          return noBytes;
        },
        bookmark: () => noBytes,
        write: () => undefined,
        buffered: () => 0,
        close: () => undefined,
      };
      this.watchers.set(store, cacher.watch({ prefix: store.resourcePrefix, exactKey: false, matches: () => true }, out, { initial: true }, false));
      for (const key of stale) this.removed(key, undefined);
    }
  }

  /** processGraphChanges: keep the graph and queue the objects the change concerns. */
  private observe(store: Store, type: CacheEventType, o: CachedObject): void {
    if (type === 'DELETED') return this.removed(o.key, o);
    if (!takesPart(o)) {
      const old = this.graph.atKey(o.key);
      if (old) {
        this.graph.remove(old);
        this.ownersWaitingOn(old, []);
      }
      return;
    }
    const node = nodeOf(store, o.key, o.object);
    const previous = this.graph.set(node);
    const old = previous && previous.uid === node.uid ? previous : undefined;
    if (previous && !old) this.afterRemoval(previous, previous.namespace);
    // New owner references are verified (kube's virtual owner nodes); removed or unblocking ones may release an owner.
    if (node.owners.some((r) => !old?.owners.some((o) => o.uid === r.uid))) this.enqueue('delete', node.uid);
    if (old) this.ownersWaitingOn(old, node.owners);
    if (deletingDependents(node)) {
      this.enqueue('delete', node.uid);
      if (!old || !deletingDependents(old)) for (const d of this.graph.dependentsOf(node.uid, node.namespace)) this.enqueue('delete', d.uid);
    }
    if (node.deleting && node.orphan) this.enqueue('orphan', node.uid);
  }

  /** An object went away: its dependents may have lost their last owner, its owners a blocking dependent. */
  private removed(key: string, o: CachedObject | undefined): void {
    const node = this.graph.atKey(key);
    if (node) {
      this.graph.remove(node);
      this.afterRemoval(node, node.namespace);
      return;
    }
    if (!o || !this.graph.hasDependents) return;
    const meta = cachedMeta(o);
    for (const d of this.graph.dependentsOf(meta.uid, meta.namespace)) this.enqueue('delete', d.uid);
  }

  private afterRemoval(node: GCNode, namespace: string): void {
    this.ownersWaitingOn(node, []);
    for (const d of this.graph.dependentsOf(node.uid, namespace)) this.enqueue('delete', d.uid);
  }

  /** Owners deleting their dependents that a dependent no longer blocks are looked at again. */
  private ownersWaitingOn(old: GCNode, now: OwnerRef[]): void {
    for (const r of old.owners) {
      const still = now.find((n) => n.uid === r.uid);
      if (still && (still.blockOwnerDeletion || !r.blockOwnerDeletion)) continue;
      const owner = this.graph.get(r.uid);
      if (owner && deletingDependents(owner)) this.enqueue('delete', owner.uid);
    }
  }

  enqueue(op: Task['op'], uid: string): void {
    if (this.stopped || !uid) return;
    const id = `${op}:${uid}`;
    if (this.running.has(id)) {
      this.again.add(id);
      return;
    }
    this.queue.set(id, { op, uid });
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => { this.flushTimer = undefined; this.pump(); }, this.debounceMs);
      this.flushTimer.unref();
    }
  }

  private pump(): void {
    for (const [id, task] of this.queue) {
      if (this.running.size >= this.workers || this.stopped) return;
      this.queue.delete(id);
      const p = (task.op === 'delete' ? this.attemptToDelete(task.uid) : this.attemptToOrphan(task.uid)).then(() => {
        this.failures.delete(id);
      }, (err) => {
        if (this.stopped) return;
        const n = (this.failures.get(id) ?? 0) + 1;
        this.failures.set(id, n);
        if (n > 3) console.error(`garbage collector: ${task.op} ${task.uid}: will retry:`, err);
        const t = setTimeout(() => { this.retries.delete(t); this.enqueue(task.op, task.uid); }, Math.min(maxBackoffMs, 50 * 2 ** n));
        t.unref();
        this.retries.add(t);
      }).finally(() => {
        this.running.delete(id);
        if (this.again.delete(id)) this.enqueue(task.op, task.uid);
        this.pump();
      });
      this.running.set(id, p);
    }
  }

  /** attemptToDeleteItem. */
  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (deletingDependents(node)) return this.processDeletingDependents(node);
    if (node.deleting || node.owners.length === 0) return;
    // Owners the caches show alive settle it without a store read (the common case: a new pod of a ReplicaSet).
    if ((await Promise.all(node.owners.map((r) => this.ownerState(r, node, false)))).every((s) => s === 'solid' || s === 'unresolvable')) return;

    const kv = await node.store.storage.get(node.key);
    if (!kv) return;
    const latest = decodeKeyValue(kv);
    if (latest.metadata.uid !== uid) return;
    const meta = metaOf(latest);
    if (deletingDependents(meta)) return this.processDeletingDependents(node);
    if (meta.deleting) return;
    const refs = ownersOf(latest);
    if (refs.length === 0) return;
    const states = await Promise.all(refs.map((r) => this.ownerState(r, node, true)));
    // A cluster-scoped object naming a namespaced owner is invalid: kube reports it and leaves it alone.
    if (states.includes('invalid')) return;
    const uidsWhere = (s: OwnerState) => refs.filter((_, i) => states[i] === s).map((r) => r.uid);
    const solid = states.filter((s) => s === 'solid' || s === 'unresolvable').length;
    const dangling = uidsWhere('dangling');
    const waiting = uidsWhere('waiting');
    if (solid > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // References to owners that are gone, or that wait for their dependents, are dropped: the object stays.
      const drop = new Set([...dangling, ...waiting]);
      return this.updateOwnerRefs(node, (r) => (drop.has(String(r.uid)) ? null : r));
    }
    if (waiting.length > 0 && this.graph.dependentsOf(uid, node.namespace).length > 0) {
      // A dependent itself deleting its dependents may wait on this object: break the cycle (kube's check, false positives included).
      if (this.graph.dependentsOf(uid, node.namespace).some(deletingDependents)) {
        await this.updateOwnerRefs(node, (r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
      }
      return this.deleteObject(node, latest, 'Foreground');
    }
    const policy: PropagationPolicy = meta.orphan ? 'Orphan' : meta.foreground ? 'Foreground' : 'Background';
    return this.deleteObject(node, latest, policy);
  }

  /** processDeletingDependentsItem: the finalizer goes once no dependent blocks the owner's deletion. */
  private async processDeletingDependents(owner: GCNode): Promise<void> {
    const blocking = this.graph.dependentsOf(owner.uid, owner.namespace)
      .filter((d) => d.owners.some((r) => r.uid === owner.uid && r.blockOwnerDeletion));
    if (blocking.length === 0) return this.removeFinalizer(owner, foregroundFinalizer);
    for (const d of blocking) if (!deletingDependents(d)) this.enqueue('delete', d.uid);
  }

  /** attemptToOrphanWorker: dependents lose their references to the owner, then the owner its `orphan` finalizer. */
  private async attemptToOrphan(uid: string): Promise<void> {
    const owner = this.graph.get(uid);
    if (!owner || !owner.deleting || !owner.orphan) return;
    for (const d of this.graph.dependentsOf(uid, owner.namespace)) await this.updateOwnerRefs(d, (r) => (r.uid === uid ? null : r));
    await this.removeFinalizer(owner, orphanFinalizer);
  }

  /**
   * isDangling and classifyReferences for one reference. The owner is looked for in the
   * dependent's namespace, or cluster-wide for a cluster-scoped kind; without `verify`, only
   * the graph and the watch cache are asked ('dangling' then means "not seen there").
   */
  private async ownerState(ref: OwnerRef, dependent: GCNode, verify: boolean): Promise<OwnerState> {
    const store = this.storeForKind(ref.apiVersion, ref.kind);
    // A kind no stored resource serves is never taken for absent (kube retries such items; nothing ever resolves them here).
    if (!store) return 'unresolvable';
    if (store.def.namespaced && dependent.namespace === '') return 'invalid';
    const key = store.objectKey(store.def.namespaced ? dependent.namespace : '', ref.name);
    const node = this.graph.get(ref.uid);
    if (node && node.key === key) return deletingDependents(node) ? 'waiting' : 'solid';
    const cached = store.cacher?.live ? store.cacher.cache.tree.get(key) : undefined;
    if (cached && cachedMeta(cached).uid === ref.uid) return deletingDependents(cachedMeta(cached)) ? 'waiting' : 'solid';
    if (!verify) return 'dangling';
    const kv = await store.storage.get(key);
    if (!kv) return 'dangling';
    const owner = metaOf(decodeKeyValue(kv));
    if (owner.uid !== ref.uid) return 'dangling';
    return deletingDependents(owner) ? 'waiting' : 'solid';
  }

  /** The store of an owner reference's kind: the named version when served, else another of the group. */
  private storeForKind(apiVersion: string, kind: string): Store | undefined {
    const stores = this.stores();
    if (this.kinds?.from !== stores) {
      const byKind = new Map<string, Store[]>();
      for (const s of stores) {
        const k = `${s.def.group}/${s.def.kind}`;
        byKind.set(k, [...(byKind.get(k) ?? []), s]);
      }
      this.kinds = { from: stores, byKind };
    }
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    const candidates = this.kinds.byKind.get(`${group}/${kind}`);
    return candidates?.find((s) => s.def.version === version) ?? candidates?.[0];
  }

  /** operations.go deleteObject: uid and resourceVersion preconditions; a conflict that left the owners alone retries on the uid alone. */
  private async deleteObject(node: GCNode, latest: KubeObject, policy: PropagationPolicy): Promise<void> {
    const rv = latest.metadata.resourceVersion;
    const del = (resourceVersion?: string) => node.store.delete(node.namespace, node.name, {
      dryRun: false, propagationPolicy: policy, preconditions: { uid: node.uid, ...(resourceVersion ? { resourceVersion } : {}) },
    });
    try {
      await del(rv);
    } catch (err) {
      const code = (err as StatusError).code;
      if (code === 404) return;
      if (code !== 409 || !rv) throw err;
      const kv = await node.store.storage.get(node.key);
      if (!kv) return;
      const live = decodeKeyValue(kv);
      if (live.metadata.uid !== node.uid || JSON.stringify(ownersOf(live)) !== JSON.stringify(ownersOf(latest))) throw err;
      try {
        await del();
      } catch (again) {
        if ((again as StatusError).code !== 404) throw again;
      }
    }
  }

  private async removeFinalizer(node: GCNode, finalizer: string): Promise<void> {
    await this.write(node, (obj) => {
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return false;
      const rest = finalizers.filter((f) => f !== finalizer);
      if (rest.length > 0) obj.metadata.finalizers = rest;
      else delete obj.metadata.finalizers;
      return true;
    });
  }

  /** Rewrites the object's ownerReferences (`map` returns null to drop one). */
  private async updateOwnerRefs(node: GCNode, map: (r: Record<string, unknown>) => Record<string, unknown> | null): Promise<void> {
    await this.write(node, (obj) => {
      const meta = obj.metadata as { ownerReferences?: Array<Record<string, unknown>> };
      const refs = meta.ownerReferences ?? [];
      const next = refs.map(map).filter((r): r is Record<string, unknown> => r !== null);
      if (JSON.stringify(next) === JSON.stringify(refs)) return false;
      if (next.length > 0) meta.ownerReferences = next;
      else delete meta.ownerReferences;
      return true;
    });
  }

  /** A compare-and-swap update of the object with this node's uid; gone or replaced objects are left alone. */
  private async write(node: GCNode, change: (obj: KubeObject) => boolean): Promise<void> {
    try {
      await node.store.guaranteedUpdate(node.namespace, node.name, (current) => {
        if (current.metadata.uid !== node.uid) throw gone;
        if (!change(current)) throw unchanged;
        return current;
      }, { dryRun: false });
    } catch (err) {
      if ((err as StatusError).code === 404 || err === gone || err === unchanged) return;
      if (isStorageError(err, 'NotFound')) return;
      throw err;
    }
  }

  /** Resolves once nothing is queued, running or waiting to retry (tests). */
  async idle(): Promise<void> {
    while (this.queue.size > 0 || this.running.size > 0 || this.flushTimer) {
      await Promise.all(this.running.values());
      await new Promise((r) => setTimeout(r, this.debounceMs + 1));
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const t of this.retries) clearTimeout(t);
    this.queue.clear();
    for (const [store, w] of this.watchers) if (w) store.cacher?.unregister(w);
  }
}

/** kube's default ignored resources (garbagecollector config): events in both groups. */
function ignored(store: Store): boolean {
  return store.kind.resource === 'events' && (store.kind.group === '' || store.kind.group === 'events.k8s.io');
}
