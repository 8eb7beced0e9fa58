/**
 * Whether one PolicyRule allows a request: kube's rbac.RuleAllows and the matchers of
 * pkg/apis/rbac/v1/evaluation_helpers.go. `*` matches every verb, group, resource and URL;
 * `*\/sub` matches that subresource of any resource; a URL ending in `*` is a prefix; an
 * empty resourceNames list matches every name.
 */
import type { Attributes, PolicyRule } from './types.js';

const all = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === all || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === all || g === group);
}

/** `combined` is `resource` or `resource/subresource`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === all || r === combined) return true;
    // `*/<subresource>` grants that subresource of every resource.
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, url: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === all || u === url) return true;
    // Go's strings.TrimRight drops every trailing `*`, so `/apis/**` is the prefix `/apis/` too.
    if (u.endsWith('*') && url.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.resourceRequest) {
    const sub = attrs.subresource ?? '';
    const combined = sub ? `${attrs.resource ?? ''}/${sub}` : (attrs.resource ?? '');
    return apiGroupMatches(rule, attrs.apiGroup ?? '') && resourceMatches(rule, combined, sub) && resourceNameMatches(rule, attrs.name ?? '');
  }
  return nonResourceURLMatches(rule, attrs.path ?? '');
}

export function rulesAllow(attrs: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(attrs, r));
}
