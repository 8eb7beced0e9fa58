/**
 * kube-apiserver's rbac/bootstrap-roles post-start hook: the default policy is created at
 * server start wherever it is missing. Objects that exist are left as they are (kube would
 * also add back rules removed from roles annotated `autoupdate: "true"`; that needs an update
 * through the lookup). Safe to run on every replica at once: a create that lost the race is
 * the other replica's success.
 */
import type { KubeObject } from '../../registry/types.js';
import { effectiveRules, isAggregated } from '../aggregation.js';
import type { Lookup } from '../source.js';
import { rbacGroup, type ClusterRole, type Role, type RoleBinding } from '../types.js';
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

async function createIfMissing(lookup: Lookup, resource: string, kind: string, items: Array<ClusterRole | Role | RoleBinding>, prepare?: (o: ClusterRole) => void): Promise<string[]> {
  const store = lookup(rbacGroup, resource);
  if (!store) throw new Error(`${resource}.${rbacGroup} is not served`);
  const created: string[] = [];
  // All at once: the store batches concurrent writes (one transaction per turn on embedded storage), so a first start stays fast.
  await Promise.all(items.map(async (item) => {
    const ns = item.metadata.namespace ?? '';
    if (await store.get(ns, item.metadata.name)) return;
    const obj = objectOf(kind, item);
    prepare?.(obj as unknown as ClusterRole);
    try {
      await store.create(ns, obj);
      created.push(ns ? `${ns}/${item.metadata.name}` : item.metadata.name);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }));
  created.sort();
  return created;
}

async function ensureNamespaces(lookup: Lookup, names: Iterable<string>): Promise<void> {
  const namespaces = lookup('', 'namespaces');
  if (!namespaces) return;
  for (const name of names) {
    if (await namespaces.get('', name)) continue;
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }
}

export interface EnsureResult {
  /** What was created, by resource: `clusterroles: ['view', …]`, `roles: ['kube-system/…']`. */
  created: Record<'clusterroles' | 'clusterrolebindings' | 'roles' | 'rolebindings', string[]>;
}

/**
 * Creates the default ClusterRoles (cluster-admin, admin, edit, view, system:*…), their
 * ClusterRoleBindings, and the Roles and RoleBindings of kube-system and kube-public that do
 * not exist yet. Aggregated roles (admin, edit, view) are stored with the rules the
 * aggregation controller would give them.
 */
export async function ensureBootstrapPolicy(lookup: Lookup, policy: BootstrapPolicy = bootstrapPolicy()): Promise<EnsureResult> {
  const stored = ((await lookup(rbacGroup, 'clusterroles')?.list('')) ?? []) as unknown as ClusterRole[];
  const storedNames = new Set(stored.map((r) => r.metadata.name));
  const all = [...stored, ...policy.clusterRoles.filter((r) => !storedNames.has(r.metadata.name))];
  const aggregate = (role: ClusterRole) => {
    if (isAggregated(role)) role.rules = effectiveRules(role, all);
  };
  const created: EnsureResult['created'] = {
    clusterroles: await createIfMissing(lookup, 'clusterroles', 'ClusterRole', policy.clusterRoles, aggregate),
    clusterrolebindings: await createIfMissing(lookup, 'clusterrolebindings', 'ClusterRoleBinding', policy.clusterRoleBindings),
    roles: [],
    rolebindings: [],
  };
  await ensureNamespaces(lookup, new Set([...policy.roles, ...policy.roleBindings].map((o) => o.metadata.namespace!)));
  created.roles = await createIfMissing(lookup, 'roles', 'Role', policy.roles);
  created.rolebindings = await createIfMissing(lookup, 'rolebindings', 'RoleBinding', policy.roleBindings);
  return { created };
}
