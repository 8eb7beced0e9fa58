/**
 * RBAC's privilege-escalation prevention (pkg/registry/rbac/validation and component-helpers'
 * policy comparator): a user may only write a Role or ClusterRole whose rules they already
 * hold, and only bind a role whose rules they hold, unless they may `escalate` the role or
 * `bind` it. The refusal lists the rules missing, each as kube's CompactString.
 */
import { goQuote } from '@windlass/machinery';
import { aggregateMessage, type RuleResolver } from './resolver.js';
import type { PolicyRule, UserInfo } from './types.js';

const all = '*';

/** validation.BreakdownRule: one rule per group, resource, verb (and resource name), then per URL and verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) {
          for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
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

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined) => (wanted ?? []).every((v) => has(set, v));

function resourceCoversAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, all) || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    // A subresource is covered by `*/<subresource>`; a resource only by itself or `*`.
    if (slash < 0 || !has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

/** validation.ruleCovers: whether an owner rule covers a broken-down rule. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, all) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, all) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** validation.Covers: whether the owner's rules cover the servant's, and the broken-down rules they miss. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing = servantRules.flatMap(breakdownRule).filter((sub) => !ownerRules.some((o) => ruleCovers(o, sub)));
  return { covered: missing.length === 0, missing };
}

/** CompactRules: the simple rules (one group, one resource, verbs only) of a resource merged, verbs in order. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const isSimple = (rule.resourceNames ?? []).length === 0 && (rule.nonResourceURLs ?? []).length === 0 &&
      (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0]]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...rule.verbs];
    else simple.set(key, { apiGroups: [...rule.apiGroups!], resources: [...rule.resources!], verbs: [...rule.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export const goQuoteList = (l: readonly string[]): string => `[${l.map(goQuote).join(' ')}]`;

/** rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, empty fields left out. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Go's sort.Strings order (bytes, which for these ASCII strings is code units). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * validation.ConfirmNoEscalation: undefined when the user's rules in `namespace` cover `rules`,
 * otherwise kube's message naming the user, their groups and the missing rules (sorted, each
 * once), with the errors met resolving the user's rules.
 */
export async function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): Promise<string | undefined> {
  const { rules: owned, errors } = await resolver.rulesFor(user, namespace);
  const { covered, missing } = covers(owned, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort(byteOrder);
  let msg = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  // kube prints the []error holding RulesFor's aggregate with %v.
  if (errors.length > 0) msg += `; resolution errors: [${aggregateMessage(errors)}]`;
  return msg;
}

/** Every verb on every resource and every URL: what setting a ClusterRole's aggregationRule requires. */
export const fullAuthority: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
