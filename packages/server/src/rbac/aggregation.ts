/**
 * ClusterRole aggregation as kube's clusterrole-aggregation controller computes it
 * (pkg/controller/clusterroleaggregation): a role with an aggregationRule holds the rules of
 * every other ClusterRole any of its selectors matches, taken in name order, each rule once.
 * Windlass runs no controller-manager, so the resolver computes that steady state when it
 * reads an aggregated role instead of trusting its stored rules.
 */
import { labelSelectorFromObject, type LabelSelector } from '@windlass/machinery';
import type { ClusterRole, PolicyRule } from './types.js';

const list = (v: string[] | undefined) => v ?? [];
const sameList = (a: string[] | undefined, b: string[] | undefined) => {
  const x = list(a);
  const y = list(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/** equality.Semantic.DeepEqual of two rules: an absent list equals an empty one. */
export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return sameList(a.verbs, b.verbs) && sameList(a.apiGroups, b.apiGroups) && sameList(a.resources, b.resources) &&
    sameList(a.resourceNames, b.resourceNames) && sameList(a.nonResourceURLs, b.nonResourceURLs);
}

function selectors(role: ClusterRole): LabelSelector[] {
  const out: LabelSelector[] = [];
  for (const s of role.aggregationRule?.clusterRoleSelectors ?? []) {
    try {
      const sel = labelSelectorFromObject(s);
      if (sel) out.push(sel);
    } catch {
      // The controller gives up on a selector it cannot convert; validation refuses those on write.
    }
  }
  return out;
}

/** Whether the role's rules are computed from other roles. */
export function isAggregated(role: ClusterRole): boolean {
  return role.aggregationRule !== undefined && role.aggregationRule !== null;
}

/**
 * The rules `role` has once aggregation settled: its own rules when it has no aggregationRule,
 * otherwise the union of the matched roles' (themselves resolved, cycles cut) rules.
 */
export function effectiveRules(role: ClusterRole, all: readonly ClusterRole[], visiting: Set<string> = new Set()): PolicyRule[] {
  if (!isAggregated(role)) return role.rules ?? [];
  visiting.add(role.metadata.name);
  const sels = selectors(role);
  const matched = all
    .filter((r) => r.metadata.name !== role.metadata.name && sels.some((s) => s.matches(r.metadata.labels ?? {})))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const rules: PolicyRule[] = [];
  for (const source of matched) {
    // A role aggregating back into one being resolved contributes what it holds, as the controller's stored copy would.
    const sourceRules = visiting.has(source.metadata.name) ? (source.rules ?? []) : effectiveRules(source, all, visiting);
    for (const rule of sourceRules) {
      if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
    }
  }
  visiting.delete(role.metadata.name);
  return rules;
}
