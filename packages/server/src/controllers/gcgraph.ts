/**
 * The garbage collector's dependency graph (kube's GraphBuilder uidToNode with each node's
 * dependents), built from the watch caches. Only objects that take part are nodes: those with
 * ownerReferences or a deletionTimestamp. Owners without either are found in their watch cache
 * when needed, so a cluster of unowned objects costs nothing but a byte search per event.
 */
import type { CachedObject } from '../cacher/cachedobject.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';
import { foregroundFinalizer, orphanFinalizer } from '../registry/deletionpropagation.js';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion: boolean;
}

export interface GCNode {
  uid: string;
  key: string;
  store: Store;
  namespace: string;
  name: string;
  owners: OwnerRef[];
  deleting: boolean;
  /** Has the foregroundDeletion finalizer (kube's node.deletingDependents once deleting). */
  foreground: boolean;
  orphan: boolean;
}

/** What the collector needs of any object's metadata. */
export interface ObjectMeta {
  uid: string;
  namespace: string;
  deleting: boolean;
  foreground: boolean;
  orphan: boolean;
}

/** Bytes only an object that takes part contains: Go's encoding leaves both fields out when empty. */
const ownerReferencesMark = Buffer.from('"ownerReferences":');
const deletionTimestampMark = Buffer.from('"deletionTimestamp":');

export function takesPart(o: CachedObject): boolean {
  const bytes = o.objectBytes();
  return bytes.includes(ownerReferencesMark) || bytes.includes(deletionTimestampMark);
}

export function metaOf(obj: KubeObject): ObjectMeta {
  const m = obj.metadata;
  const finalizers = m.finalizers ?? [];
  return {
    uid: m.uid ?? '', namespace: m.namespace ?? '', deleting: !!m.deletionTimestamp,
    foreground: finalizers.includes(foregroundFinalizer), orphan: finalizers.includes(orphanFinalizer),
  };
}

const metaMemo = new WeakMap<CachedObject, ObjectMeta>();

/** The metadata of a cached object, decoded once per cached revision. */
export function cachedMeta(o: CachedObject): ObjectMeta {
  let m = metaMemo.get(o);
  if (!m) metaMemo.set(o, (m = metaOf(o.object)));
  return m;
}

export function ownersOf(obj: KubeObject): OwnerRef[] {
  const refs = (obj.metadata as { ownerReferences?: Array<Record<string, unknown>> }).ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.map((r) => ({
    apiVersion: String(r.apiVersion ?? ''), kind: String(r.kind ?? ''), name: String(r.name ?? ''), uid: String(r.uid ?? ''),
    blockOwnerDeletion: r.blockOwnerDeletion === true,
  }));
}

export function nodeOf(store: Store, key: string, obj: KubeObject): GCNode {
  const m = metaOf(obj);
  return { ...m, key, store, name: obj.metadata.name ?? '', owners: ownersOf(obj) };
}

/** Being deleted with foregroundDeletion: its dependents go first. */
export const deletingDependents = (n: { deleting: boolean; foreground: boolean }): boolean => n.deleting && n.foreground;

export class DependencyGraph {
  private byUid = new Map<string, GCNode>();
  private byKey = new Map<string, GCNode>();
  /** Owner uid → nodes naming it: dependents are found without scanning. */
  private dependents = new Map<string, Set<GCNode>>();

  get(uid: string): GCNode | undefined {
    return this.byUid.get(uid);
  }

  atKey(key: string): GCNode | undefined {
    return this.byKey.get(key);
  }

  get hasDependents(): boolean {
    return this.dependents.size > 0;
  }

  set(node: GCNode): GCNode | undefined {
    const old = this.byKey.get(node.key);
    if (old) this.remove(old);
    this.byUid.set(node.uid, node);
    this.byKey.set(node.key, node);
    for (const r of node.owners) {
      let set = this.dependents.get(r.uid);
      if (!set) this.dependents.set(r.uid, (set = new Set()));
      set.add(node);
    }
    return old;
  }

  remove(node: GCNode): void {
    if (this.byKey.get(node.key) === node) this.byKey.delete(node.key);
    if (this.byUid.get(node.uid) === node) this.byUid.delete(node.uid);
    for (const r of node.owners) {
      const set = this.dependents.get(r.uid);
      set?.delete(node);
      if (set?.size === 0) this.dependents.delete(r.uid);
    }
  }

  /**
   * The dependents of an owner: nodes naming its uid that may reference it, i.e. in its
   * namespace, or anywhere for a cluster-scoped owner (a reference across namespaces, or from a
   * cluster-scoped object to a namespaced one, never resolves to it).
   */
  dependentsOf(uid: string, ownerNamespace: string): GCNode[] {
    const set = this.dependents.get(uid);
    if (!set) return [];
    return [...set].filter((d) => ownerNamespace === '' || d.namespace === ownerNamespace);
  }

  /** Nodes whose keys start with `prefix` (a watch cache's objects, when it restarts). */
  keysUnder(prefix: string): string[] {
    return [...this.byKey.keys()].filter((k) => k.startsWith(prefix));
  }
}
