/**
 * RBAC's escalation prevention as kube's policy-based REST storages (pkg/registry/rbac/*
 * /policybased): a write of a Role or ClusterRole whose rules the writer does not hold, or of
 * a binding to a role whose rules the writer does not hold, is 403 unless the writer is in
 * system:masters or may `escalate` the role (`bind` the referenced role). They run as the last
 * mutating step, where kube's storages run: after mutating admission, before validation.
 */
import { newBadRequest, newForbidden, newNotFound } from '@windlass/machinery';
import { confirmNoEscalation, fullAuthority } from '../../../rbac/escalation.js';
import { RuleResolver } from '../../../rbac/resolver.js';
import { rbacObjectsFrom } from '../../../rbac/source.js';
import { systemPrivilegedGroup, type Attributes, type PolicyRule, type RoleRef } from '../../../rbac/types.js';
import type { AdmissionAttributes, AdmissionPlugin, KubeObject } from '../../types.js';
import { group } from './rules.js';

type Resource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

/** rbacregistry.EscalationAllowed: system:masters may grant anything. */
const escalationAllowed = (attrs: AdmissionAttributes) => attrs.user.groups.includes(systemPrivilegedGroup);

async function allowedTo(attrs: AdmissionAttributes, a: Omit<Attributes, 'user' | 'resourceRequest' | 'apiVersion'>): Promise<boolean> {
  const authorizer = attrs.ctx?.authorizer;
  if (!authorizer) return false;
  return (await authorizer.authorize({ ...a, user: attrs.user, resourceRequest: true, apiVersion: '*' })).decision === 'Allow';
}

/** rbacregistry.IsOnlyMutatingGCFields: an update changing only owner references and finalizers is never an escalation. */
function onlyGCFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = o.metadata ?? {};
    return JSON.stringify(canonical({ ...o, metadata: meta }));
  };
  return strip(obj) === strip(old);
}

/** Sorted keys and no empty values, so equal objects print alike (apiequality.Semantic: nil and empty are equal). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || x === null || (Array.isArray(x) && x.length === 0) || (typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0)) continue;
    out[k] = canonical(x);
  }
  return out;
}

const resolverOf = (attrs: AdmissionAttributes) => new RuleResolver(rbacObjectsFrom(attrs.lookup));

async function refuseEscalation(attrs: AdmissionAttributes, resource: Resource, namespace: string, rules: readonly PolicyRule[]): Promise<void> {
  const msg = await confirmNoEscalation(resolverOf(attrs), attrs.user, namespace, rules);
  if (msg !== undefined) throw newForbidden({ group, resource }, attrs.obj.metadata.name ?? '', msg);
}

const rulesOf = (o: KubeObject | undefined) => ((o?.rules ?? []) as PolicyRule[]);
const hasAggregationRule = (o: KubeObject | undefined) =>
  ((o?.aggregationRule as { clusterRoleSelectors?: unknown[] | null } | null | undefined)?.clusterRoleSelectors ?? []).length > 0;

/** Role and ClusterRole writes: the writer holds the rules, or may `escalate` the role. */
function roleGuard(resource: 'roles' | 'clusterroles'): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    async mutate(attrs) {
      if (attrs.subresource || escalationAllowed(attrs)) return;
      const namespace = resource === 'roles' ? (attrs.obj.metadata.namespace ?? '') : '';
      // The name of the request: a create is addressed to the collection.
      const name = attrs.operation === 'UPDATE' ? (attrs.obj.metadata.name ?? '') : '';
      if (await allowedTo(attrs, { verb: 'escalate', apiGroup: group, resource, namespace, name })) return;
      if (attrs.operation === 'UPDATE' && onlyGCFields(attrs.obj, attrs.old)) return;
      await refuseEscalation(attrs, resource, namespace, rulesOf(attrs.obj));
      // An aggregation rule can gather anything (and stop a role from being tightened): it takes every right.
      if (resource === 'clusterroles' && (hasAggregationRule(attrs.obj) || (attrs.operation === 'UPDATE' && hasAggregationRule(attrs.old)))) {
        if (await confirmNoEscalation(resolverOf(attrs), attrs.user, namespace, fullAuthority) !== undefined) {
          throw newForbidden({ group, resource }, attrs.obj.metadata.name ?? '', 'must have cluster-admin privileges to use the aggregationRule');
        }
      }
    },
  };
}

/** RoleBinding and ClusterRoleBinding writes: the writer may `bind` the role, or holds its rules. */
function bindingGuard(resource: 'rolebindings' | 'clusterrolebindings'): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    async mutate(attrs) {
      if (attrs.subresource || escalationAllowed(attrs)) return;
      const namespace = resource === 'rolebindings' ? (attrs.obj.metadata.namespace ?? '') : '';
      if (resource === 'rolebindings' && !namespace) throw newBadRequest('namespace is required');
      if (attrs.operation === 'UPDATE' && onlyGCFields(attrs.obj, attrs.old)) return;
      const ref = (attrs.obj.roleRef ?? {}) as RoleRef;
      const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
      if (roleResource && await allowedTo(attrs, { verb: 'bind', apiGroup: ref.apiGroup, resource: roleResource, namespace, name: ref.name })) return;
      let rules: PolicyRule[];
      try {
        rules = await resolverOf(attrs).roleReferenceRules(ref, namespace, async () => rbacObjectsFrom(attrs.lookup).listClusterRoles());
      } catch (err) {
        // kube reads the role through its registry, whose miss is the role's NotFound.
        if (roleResource && /not found$/.test((err as Error).message)) throw newNotFound({ group, resource: roleResource }, ref.name);
        throw err;
      }
      await refuseEscalation(attrs, resource, namespace, rules);
    },
  };
}

export const rolesGuard = roleGuard('roles');
export const clusterRolesGuard = roleGuard('clusterroles');
export const roleBindingsGuard = bindingGuard('rolebindings');
export const clusterRoleBindingsGuard = bindingGuard('clusterrolebindings');
