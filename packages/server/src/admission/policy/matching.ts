/**
 * Which requests an admission policy's matchResources (and a binding's) select, as kube's
 * admission/plugin/policy/matching and webhook/predicates do: namespaceSelector, objectSelector,
 * resourceRules and excludeResourceRules (operations, groups, versions, resources with
 * subresources, scope, resourceNames), with matchPolicy Equivalent trying the same resource's
 * other served versions.
 */
import { labelSelectorFromObject, type LabelSelectorObject } from '@windlass/machinery';
import type { DynamicAdmissionAttributes, KubeObject } from '../../registry/types.js';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorObject | null;
  objectSelector?: LabelSelectorObject | null;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** The request a rule is matched against: its resource may be replaced by an equivalent one. */
export interface RuleAttributes {
  operation: string;
  resource: GroupVersionResource;
  subresource: string;
  namespace: string;
  name: string;
}

const any = (values: string[] | undefined, v: string) => (values ?? []).some((x) => x === '*' || x === v);

/** kube's rules.Matcher. */
export function ruleMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  switch (rule.scope ?? '*') {
    // A Namespace is cluster-scoped, though a namespace's own path names it.
    case 'Namespaced': if (isNamespace || a.namespace === '') return false; break;
    case 'Cluster': if (!isNamespace && a.namespace !== '') return false; break;
  }
  if (!any(rule.operations, a.operation)) return false;
  if (!any(rule.apiGroups, a.resource.group) || !any(rule.apiVersions, a.resource.version)) return false;
  return (rule.resources ?? []).some((r) => {
    const slash = r.indexOf('/');
    const [res, sub] = slash < 0 ? [r, ''] : [r.slice(0, slash), r.slice(slash + 1)];
    if (res !== '*' && res !== a.resource.resource) return false;
    // `pods` is the main resource only, `pods/*` every subresource, `*/*` everything.
    return slash < 0 ? a.subresource === '' : sub === '*' || sub === a.subresource;
  });
}

function namedRulesMatch(rules: NamedRuleWithOperations[] | undefined, a: RuleAttributes, equivalents: GroupVersionResource[], equivalent: boolean): GroupVersionResource | undefined {
  const named = (rule: NamedRuleWithOperations) => !rule.resourceNames?.length || rule.resourceNames.includes(a.name);
  for (const rule of rules ?? []) if (ruleMatches(rule, a) && named(rule)) return a.resource;
  if (!equivalent) return undefined;
  for (const rule of rules ?? []) {
    for (const resource of equivalents) {
      if (resource.version === a.resource.version) continue;
      if (ruleMatches(rule, { ...a, resource }) && named(rule)) return resource;
    }
  }
  return undefined;
}

/** The labels a namespaceSelector sees: a Namespace's own, else its namespace's (undefined: cluster-scoped, never exempt). */
export type NamespaceLabels = (a: DynamicAdmissionAttributes) => Promise<Record<string, string> | undefined | null>;

export interface MatchContext {
  /** The same group and resource in the other served versions, for matchPolicy Equivalent. */
  equivalents(resource: GroupVersionResource): GroupVersionResource[];
  namespaceLabels: NamespaceLabels;
}

export function requestResource(a: DynamicAdmissionAttributes): GroupVersionResource {
  return { group: a.def.group, version: a.def.version, resource: a.def.resource };
}

const labelsOf = (o: KubeObject | undefined) => o?.metadata?.labels ?? {};

/**
 * kube's Matcher.Matches: the resource it matched as (an equivalent version with matchPolicy
 * Equivalent), or undefined. A namespace that does not exist is kube's 404, thrown.
 */
export async function matchesResources(m: MatchResources | undefined, a: DynamicAdmissionAttributes, ctx: MatchContext): Promise<GroupVersionResource | undefined> {
  const resource = requestResource(a);
  if (!m) return resource;
  const attrs: RuleAttributes = { operation: a.operation, resource, subresource: a.subresource, namespace: a.namespace, name: a.name };
  const nsSelector = labelSelectorFromObject(m.namespaceSelector ?? {});
  if (nsSelector && !nsSelector.empty) {
    const labels = await ctx.namespaceLabels(a);
    if (labels !== undefined && !nsSelector.matches(labels ?? {})) return undefined;
  }
  const objSelector = labelSelectorFromObject(m.objectSelector ?? {});
  if (objSelector && !objSelector.empty && !objSelector.matches(labelsOf(a.obj)) && !objSelector.matches(labelsOf(a.old))) return undefined;
  const equivalent = (m.matchPolicy ?? 'Equivalent') === 'Equivalent';
  const equivalents = equivalent ? ctx.equivalents(resource) : [];
  if (namedRulesMatch(m.excludeResourceRules, attrs, equivalents, equivalent)) return undefined;
  if (!m.resourceRules?.length) return resource;
  return namedRulesMatch(m.resourceRules, attrs, equivalents, equivalent);
}
