/**
 * kube's RBAC reconciliation (pkg/registry/rbac/reconciliation) in its union form, as the
 * rbac/bootstrap-roles post-start hook runs it on every start: a default role that exists
 * gets back the rules, aggregation selectors, labels and annotations of the default it lacks
 * (a user's additions are kept), a default binding the subjects it lacks, and a binding whose
 * roleRef differs is recreated. Objects annotated `rbac.authorization.kubernetes.io/autoupdate:
 * "false"` are left alone. So a server upgraded to a policy with more rules updates the roles
 * stored by the older one.
 */
import type { ClusterRole, PolicyRule, RoleBinding, Subject } from '../types.js';

export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

type Selector = NonNullable<NonNullable<ClusterRole['aggregationRule']>['clusterRoleSelectors']>[number];

export type RoleReconciliation = { op: 'none' } | { op: 'update'; role: ClusterRole };
export type BindingReconciliation = { op: 'none' } | { op: 'update'; binding: RoleBinding } | { op: 'recreate'; binding: RoleBinding };

const isProtected = (o: { metadata: { annotations?: Record<string, string> } }) => o.metadata.annotations?.[autoUpdateAnnotation] === 'false';

/** Go's merge(expected, existing): the existing values win, missing keys are added; nil stays nil only if both are. */
function merge(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...expected, ...existing };
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {}), kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a![k] === b?.[k]);
}

/** Splits a rule into rules of one verb on one resource (and one name) or one URL: kube's BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames!) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const hasAll = (set: readonly string[] | undefined, items: readonly string[] | undefined) => (items ?? []).every((i) => (set ?? []).includes(i));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if ((owner ?? []).includes('*') || hasAll(owner, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (owner?.includes(path)) return true;
    const slash = path.indexOf('/');
    // `*/status` covers every resource's status subresource.
    return slash >= 0 && (owner ?? []).includes(`*/${path.slice(slash + 1)}`);
  });
}

const urlCovers = (owner: string, path: string) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

/** Whether `owner` grants everything the atomic rule `sub` does: kube's ruleCovers. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups, sub.apiGroups);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resourcesCover(owner.resources, sub.resources) && names && urls;
}

const ruleKey = (r: PolicyRule) => JSON.stringify([r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? [], r.verbs]);

/** The atomic rules of `servant` that no rule of `owner` covers: kube's Covers. */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  // Every start compares each stored default role with the same default: a rule the owner holds
  // verbatim covers itself, without breaking it down into one rule per verb and resource.
  const verbatim = new Set(owner.map(ruleKey));
  return servant.filter((rule) => !verbatim.has(ruleKey(rule))).flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

const sameSelector = (a: Selector, b: Selector) => JSON.stringify(a) === JSON.stringify(b);

/** Expected labels and annotations added to `target` (a copy of `existing`), existing values kept; whether any was. */
function reconcileMetadata(target: ClusterRole | RoleBinding, expected: ClusterRole | RoleBinding, existing: ClusterRole | RoleBinding): boolean {
  let changed = false;
  const annotations = merge(expected.metadata.annotations, existing.metadata.annotations);
  if (!sameMap(annotations, existing.metadata.annotations)) (target.metadata.annotations = annotations), (changed = true);
  const labels = merge(expected.metadata.labels, existing.metadata.labels);
  if (!sameMap(labels, existing.metadata.labels)) (target.metadata.labels = labels), (changed = true);
  return changed;
}

/** The existing role made to hold at least what the expected one does (kube's computeReconciledRole, union). */
export function reconcileRole(existing: ClusterRole, expected: ClusterRole): RoleReconciliation {
  if (isProtected(existing)) return { op: 'none' };
  const role = structuredClone(existing);
  let changed = reconcileMetadata(role, expected, existing);
  const missing = uncoveredRules(existing.rules ?? [], expected.rules ?? []);
  if (missing.length > 0) (role.rules = [...(existing.rules ?? []), ...missing]), (changed = true);
  const expectedSelectors = expected.aggregationRule?.clusterRoleSelectors ?? [];
  if (!expected.aggregationRule && existing.aggregationRule) {
    role.aggregationRule = null;
    changed = true;
  } else if (expected.aggregationRule) {
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const lacking = expectedSelectors.filter((s) => !have.some((h) => sameSelector(h, s)));
    if (!existing.aggregationRule || lacking.length > 0) {
      role.aggregationRule = { ...role.aggregationRule, clusterRoleSelectors: [...have, ...lacking] };
      changed = true;
    }
  }
  return changed ? { op: 'update', role } : { op: 'none' };
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

/** kube's computeReconciledRoleBinding, union: subjects added, a different roleRef recreated. */
export function reconcileBinding(existing: RoleBinding, expected: RoleBinding): BindingReconciliation {
  if (isProtected(existing)) return { op: 'none' };
  const ref = existing.roleRef, want = expected.roleRef;
  if (ref.apiGroup !== want.apiGroup || ref.kind !== want.kind || ref.name !== want.name) return { op: 'recreate', binding: structuredClone(expected) };
  const binding = structuredClone(existing);
  let changed = reconcileMetadata(binding, expected, existing);
  const have = existing.subjects ?? [];
  const missing = (expected.subjects ?? []).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (missing.length > 0) (binding.subjects = [...have, ...missing]), (changed = true);
  return changed ? { op: 'update', binding } : { op: 'none' };
}
