/**
 * Small builders for the bootstrap policy data, in the shape of kube's rbacv1helpers:
 * every list of a rule sorted, as RuleOrDie sorts them, so stored objects read as kube's do.
 */
import { rbacGroup, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Role, type RoleBinding, type Subject } from '../types.js';

export const Read = ['get', 'list', 'watch'];
export const Write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const ReadWrite = [...Read, ...Write];

export const legacyGroup = '';
export const admissionregistrationGroup = 'admissionregistration.k8s.io';
export const appsGroup = 'apps';
export const authenticationGroup = 'authentication.k8s.io';
export const authorizationGroup = 'authorization.k8s.io';
export const autoscalingGroup = 'autoscaling';
export const batchGroup = 'batch';
export const certificatesGroup = 'certificates.k8s.io';
export const coordinationGroup = 'coordination.k8s.io';
export const discoveryGroup = 'discovery.k8s.io';
export const eventsGroup = 'events.k8s.io';
export const extensionsGroup = 'extensions';
export const networkingGroup = 'networking.k8s.io';
export const nodeGroup = 'node.k8s.io';
export const policyGroup = 'policy';
export const resourceGroup = 'resource.k8s.io';
export const storageGroup = 'storage.k8s.io';
export { rbacGroup };

/** Labels and annotations every bootstrap object carries (kube's addDefaultMetadata). */
export const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

const sorted = (v: readonly string[]) => [...v].sort();

type Groups = string | readonly string[];
const asList = (g: Groups) => (typeof g === 'string' ? [g] : g);

/** A resource rule: verbs on resources of API groups, optionally only the named objects. */
export function rule(verbs: Groups, groups: Groups, resources: Groups, resourceNames?: readonly string[]): PolicyRule {
  const r: PolicyRule = { verbs: sorted(asList(verbs)), apiGroups: sorted(asList(groups)), resources: sorted(asList(resources)) };
  if (resourceNames) r.resourceNames = sorted(resourceNames);
  return r;
}

/** A non-resource rule: verbs on URLs (a trailing `*` is a prefix). */
export function urls(verbs: Groups, nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: sorted(asList(verbs)), nonResourceURLs: sorted(nonResourceURLs) };
}

/** What every controller and component may do with events. */
export function eventsRule(): PolicyRule {
  return rule(['create', 'update', 'patch'], [legacyGroup, eventsGroup], 'events');
}

function meta(name: string, labels: Record<string, string> = {}, namespace?: string) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...bootstrapLabels, ...labels },
    annotations: { [autoUpdateAnnotation]: 'true' },
  };
}

export function clusterRole(name: string, rules: PolicyRule[], opts: { labels?: Record<string, string>; aggregateFrom?: string } = {}): ClusterRole {
  const role: ClusterRole = { metadata: meta(name, opts.labels), rules };
  if (opts.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [opts.aggregateFrom]: 'true' } }] };
  return role;
}

export function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { metadata: meta(name, {}, namespace), rules };
}

export const user = (name: string): Subject => ({ apiGroup: rbacGroup, kind: 'User', name });
export const group = (name: string): Subject => ({ apiGroup: rbacGroup, kind: 'Group', name });
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

export function clusterRoleBinding(roleName: string, subjects: Subject[], name = roleName): ClusterRoleBinding {
  const b: ClusterRoleBinding = { metadata: meta(name), roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: roleName } };
  if (subjects.length > 0) b.subjects = subjects;
  return b;
}

export function roleBinding(namespace: string, roleName: string, subjects: Subject[], name = roleName): RoleBinding {
  return { metadata: meta(name, {}, namespace), roleRef: { apiGroup: rbacGroup, kind: 'Role', name: roleName }, subjects };
}
