/**
 * The RBAC objects as the request path's authorizer reads them: decoded once from the replica's
 * watch caches and indexed (roles by name, bindings by namespace), then reused until one of the
 * four caches applies an event, as kube's authorizer reads its informers' indexers. Every
 * non-privileged request is authorized, so rereading (and JSON-decoding) ~150 bootstrap objects
 * per request is what this avoids. While a cache is not live (start, a restart after
 * compaction) the reads go through the fallback (the lookup, which reads the store).
 */
import type { Cacher } from '../cacher/cacher.js';
import { rangeValues } from '../cacher/cacher.js';
import type { ClusterRole, ClusterRoleBinding, RBACObjects, Role, RoleBinding } from './types.js';

export interface RBACCaches {
  roles?: Cacher;
  rolebindings?: Cacher;
  clusterroles?: Cacher;
  clusterrolebindings?: Cacher;
}

const order = ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] as const;

interface Snapshot {
  /** Each cache's tree and last event revision when read: the snapshot holds while they do. */
  stamp: unknown[];
  roles: Map<string, Role>;
  roleBindings: Map<string, RoleBinding[]>;
  clusterRoles: Map<string, ClusterRole>;
  clusterRoleList: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
}

function decodeAll<T>(cacher: Cacher): T[] {
  return [...rangeValues(cacher.cache.tree, cacher.prefix)].map((c) => c.object as unknown as T);
}

function stampOf(caches: RBACCaches): unknown[] | undefined {
  const stamp: unknown[] = [];
  for (const name of order) {
    const c = caches[name];
    if (!c?.live) return undefined;
    stamp.push(c.cache.tree, c.cache.lastEventRevision);
  }
  return stamp;
}

function build(caches: Required<RBACCaches>, stamp: unknown[]): Snapshot {
  const roles = new Map<string, Role>();
  for (const r of decodeAll<Role>(caches.roles)) roles.set(`${r.metadata.namespace ?? ''}/${r.metadata.name}`, r);
  // Keys are namespace/name, so each namespace's bindings come out together and in name order.
  const roleBindings = new Map<string, RoleBinding[]>();
  for (const b of decodeAll<RoleBinding>(caches.rolebindings)) {
    const ns = b.metadata.namespace ?? '';
    let list = roleBindings.get(ns);
    if (!list) roleBindings.set(ns, (list = []));
    list.push(b);
  }
  const clusterRoleList = decodeAll<ClusterRole>(caches.clusterroles);
  const clusterRoles = new Map(clusterRoleList.map((r) => [r.metadata.name, r]));
  return { stamp, roles, roleBindings, clusterRoles, clusterRoleList, clusterRoleBindings: decodeAll<ClusterRoleBinding>(caches.clusterrolebindings) };
}

const sameStamp = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * RBACObjects over the watch caches. Objects handed out are shared by every request until the
 * next change: the resolver only reads them.
 */
export function cachedRBACObjects(caches: () => RBACCaches, fallback: RBACObjects): RBACObjects {
  let snapshot: Snapshot | undefined;
  const current = (): Snapshot | undefined => {
    const c = caches();
    const stamp = stampOf(c);
    if (!stamp) return undefined;
    if (!snapshot || !sameStamp(snapshot.stamp, stamp)) snapshot = build(c as Required<RBACCaches>, stamp);
    return snapshot;
  };
  return {
    getRole: async (namespace, name) => {
      const s = current();
      return s ? s.roles.get(`${namespace}/${name}`) : fallback.getRole(namespace, name);
    },
    listRoleBindings: async (namespace) => {
      const s = current();
      return s ? (s.roleBindings.get(namespace) ?? []) : fallback.listRoleBindings(namespace);
    },
    getClusterRole: async (name) => {
      const s = current();
      return s ? s.clusterRoles.get(name) : fallback.getClusterRole(name);
    },
    listClusterRoles: async () => {
      const s = current();
      return s ? s.clusterRoleList : fallback.listClusterRoles();
    },
    listClusterRoleBindings: async () => {
      const s = current();
      return s ? s.clusterRoleBindings : fallback.listClusterRoleBindings();
    },
  };
}
