/**
 * The stored RBAC objects as the authorizer reads them, through the server's lookup of other
 * resources (the watch cache, falling back to the store), as kube's authorizer reads informers.
 */
import type { AdmissionLookup, StoreContext } from '../registry/types.js';
import { rbacGroup, type ClusterRole, type ClusterRoleBinding, type RBACObjects, type Role, type RoleBinding } from './types.js';

export type Lookup = StoreContext['lookup'];

export function rbacObjectsFrom(lookup: Lookup): RBACObjects {
  const store = (resource: string): AdmissionLookup => {
    const l = lookup(rbacGroup, resource);
    if (!l) throw new Error(`${resource}.${rbacGroup} is not served`);
    return l;
  };
  return {
    getRole: async (namespace, name) => (await store('roles').get(namespace, name)) as unknown as Role | undefined,
    listRoleBindings: async (namespace) => (await store('rolebindings').list(namespace)) as unknown as RoleBinding[],
    getClusterRole: async (name) => (await store('clusterroles').get('', name)) as unknown as ClusterRole | undefined,
    listClusterRoles: async () => (await store('clusterroles').list('')) as unknown as ClusterRole[],
    listClusterRoleBindings: async () => (await store('clusterrolebindings').list('')) as unknown as ClusterRoleBinding[],
  };
}
