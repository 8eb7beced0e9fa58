/**
 * kube-apiserver's rbac/bootstrap-roles post-start hook: the default policy is created at
 * server start wherever it is missing, and objects that exist are reconciled with it as kube
 * does (reconcile.ts: missing rules, subjects, labels and annotations added, unless annotated
 * `autoupdate: "false"`). Safe to run on every replica at once: a create that lost the race
 * is the other replica's success, and an update that lost one is computed again.
 */
import type { KubeObject } from '../../registry/types.js';
import { effectiveRules, isAggregated } from '../aggregation.js';
import type { Lookup } from '../source.js';
import { rbacGroup, type ClusterRole, type Role, type RoleBinding } from '../types.js';
import { reconcileBinding, reconcileRole } from './reconcile.js';
import { controllerRoleBindings, controllerRoles } from './controllers.js';
import { namespaceRoleBindings, namespaceRoles } from './namespaced.js';
import { clusterRoleBindings, clusterRoles } from './policy.js';

export interface BootstrapPolicy {
  clusterRoles: ClusterRole[];
  clusterRoleBindings: RoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
}

/** Everything the hook ensures, in kube's order. */
export function bootstrapPolicy(): BootstrapPolicy {
  return {
    clusterRoles: [...clusterRoles(), ...controllerRoles()],
    clusterRoleBindings: [...clusterRoleBindings(), ...controllerRoleBindings()],
    roles: namespaceRoles(),
    roleBindings: namespaceRoleBindings(),
  };
}

const apiVersion = `${rbacGroup}/v1`;

function objectOf(kind: string, o: ClusterRole | Role | RoleBinding): KubeObject {
  return { apiVersion, kind, ...structuredClone(o) } as unknown as KubeObject;
}

const maxAttempts = 5;

/** What reconciling one existing object asks for: nothing, an update, or a delete and create (a binding's new roleRef). */
function reconciled(kind: string, existing: KubeObject, expected: ClusterRole | Role | RoleBinding): { op: 'none' } | { op: 'update' | 'recreate'; obj: KubeObject } {
  if (kind.endsWith('Binding')) {
    const r = reconcileBinding(existing as unknown as RoleBinding, expected as RoleBinding);
    return r.op === 'none' ? r : { op: r.op, obj: objectOf(kind, r.binding) };
  }
  const r = reconcileRole(existing as unknown as ClusterRole, expected as ClusterRole);
  return r.op === 'none' ? r : { op: 'update', obj: { ...existing, ...(r.role as unknown as KubeObject) } };
}

/**
 * Each default object created if missing, else reconciled. Returns the names created and
 * updated (`ns/name` for namespaced ones).
 */
async function ensureEach(lookup: Lookup, resource: string, kind: string, items: Array<ClusterRole | Role | RoleBinding>, prepare?: (o: ClusterRole) => void): Promise<{ created: string[]; updated: string[] }> {
  const store = lookup(rbacGroup, resource);
  if (!store) throw new Error(`${resource}.${rbacGroup} is not served`);
  const created: string[] = [], updated: string[] = [];
  // All at once: the store batches concurrent writes (one transaction per turn on embedded storage), so a first start stays fast.
  await Promise.all(items.map(async (item) => {
    const ns = item.metadata.namespace ?? '';
    const id = ns ? `${ns}/${item.metadata.name}` : item.metadata.name;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await store.get(ns, item.metadata.name);
      try {
        if (!existing) {
          const obj = objectOf(kind, item);
          prepare?.(obj as unknown as ClusterRole);
          await store.create(ns, obj);
          created.push(id);
          return;
        }
        const r = reconciled(kind, existing, item);
        if (r.op === 'none' || !store.update) return;
        if (r.op === 'recreate') {
          await store.delete(ns, item.metadata.name);
          await store.create(ns, r.obj);
        } else {
          prepare?.(r.obj as unknown as ClusterRole);
          await store.update(ns, r.obj);
        }
        updated.push(id);
        return;
      } catch (err) {
        // Another replica created, changed or removed it meanwhile: look again.
        const code = (err as { code?: number }).code;
        if (code !== 409 && code !== 404) throw err;
      }
    }
  }));
  return { created: created.sort(), updated: updated.sort() };
}

async function ensureNamespaces(lookup: Lookup, names: Iterable<string>): Promise<void> {
  const namespaces = lookup('', 'namespaces');
  if (!namespaces) return;
  await Promise.all([...names].map(async (name) => {
    if (await namespaces.get('', name)) return;
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }));
}

type ByResource = Record<'clusterroles' | 'clusterrolebindings' | 'roles' | 'rolebindings', string[]>;

export interface EnsureResult {
  /** What was created, by resource: `clusterroles: ['view', …]`, `roles: ['kube-system/…']`. */
  created: ByResource;
  /** What existed and was reconciled with the default. */
  updated: ByResource;
}

/**
 * Creates the default ClusterRoles (cluster-admin, admin, edit, view, system:*…), their
 * ClusterRoleBindings, and the Roles and RoleBindings of kube-system and kube-public that do
 * not exist yet, and reconciles those that do. Aggregated roles (admin, edit, view) are stored
 * with the rules the aggregation controller would give them.
 */
export async function ensureBootstrapPolicy(lookup: Lookup, policy: BootstrapPolicy = bootstrapPolicy()): Promise<EnsureResult> {
  const stored = ((await lookup(rbacGroup, 'clusterroles')?.list('')) ?? []) as unknown as ClusterRole[];
  const storedNames = new Set(stored.map((r) => r.metadata.name));
  const all = [...stored, ...policy.clusterRoles.filter((r) => !storedNames.has(r.metadata.name))];
  const aggregate = (role: ClusterRole) => {
    if (isAggregated(role)) role.rules = effectiveRules(role, all);
  };
  // All four at once (a binding may name a role not yet there, as in kube), so that their writes share transactions.
  const namespaced = async () => {
    await ensureNamespaces(lookup, new Set([...policy.roles, ...policy.roleBindings].map((o) => o.metadata.namespace!)));
    return Promise.all([ensureEach(lookup, 'roles', 'Role', policy.roles), ensureEach(lookup, 'rolebindings', 'RoleBinding', policy.roleBindings)]);
  };
  const [clusterroles, clusterrolebindings, [roles, rolebindings]] = await Promise.all([
    ensureEach(lookup, 'clusterroles', 'ClusterRole', policy.clusterRoles, aggregate),
    ensureEach(lookup, 'clusterrolebindings', 'ClusterRoleBinding', policy.clusterRoleBindings),
    namespaced(),
  ]);
  return {
    created: { clusterroles: clusterroles.created, clusterrolebindings: clusterrolebindings.created, roles: roles.created, rolebindings: rolebindings.created },
    updated: { clusterroles: clusterroles.updated, clusterrolebindings: clusterrolebindings.updated, roles: roles.updated, rolebindings: rolebindings.updated },
  };
}
