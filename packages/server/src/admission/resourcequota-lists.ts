/**
 * The vocabulary of quota evaluation: resource lists of quantities and their arithmetic
 * (k8s.io/apiserver pkg/quota/v1/resources.go), quota scope selectors, and the Evaluator
 * every quota-tracked resource has (pkg/quota/v1/interfaces.go). The evaluators themselves
 * are in resourcequota-usage.ts and resourcequota-pods.ts.
 */
import type { AdmissionOperation, KubeObject } from '../registry/types.js';
import { canonicalQuantity, compareQuantities, parseQuantity, type Quantity } from '../registry/validation/quantity.js';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Json => (isObject(v) ? v : {});
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A corev1.ResourceList of parsed quantities. */
export type ResourceList = Map<string, Quantity>;

export const quantity = (n: number | bigint): Quantity => ({ mantissa: BigInt(n), exponent: 0, format: 'DecimalSI', internal: { kind: 'dec' }, cached: '' });

export function toQuantity(v: unknown): Quantity | undefined {
  return typeof v === 'string' ? parseQuantity(v) : typeof v === 'number' ? parseQuantity(String(v)) : undefined;
}

/** Quantity.Add: a zero left-hand side takes the other's format (so `0` + `128Mi` prints `128Mi`). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const e = Math.min(a.exponent, b.exponent);
  const mantissa = a.mantissa * 10n ** BigInt(a.exponent - e) + b.mantissa * 10n ** BigInt(b.exponent - e);
  return { mantissa, exponent: e, format: a.mantissa === 0n ? b.format : a.format, internal: { kind: 'dec' }, cached: '' };
}

export const negate = (q: Quantity): Quantity => ({ ...q, mantissa: -q.mantissa, cached: '' });
const maxQuantity = (a: Quantity, b: Quantity) => (compareQuantities(a, b) >= 0 ? a : b);

export function parseResourceList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, raw] of Object.entries(obj(v))) {
    const q = toQuantity(raw);
    if (q) out.set(k, q);
  }
  return out;
}

/** The list as the API writes it: canonical quantity strings, keys sorted. */
export function resourceListJSON(l: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...l.keys()].sort()) out[k] = canonicalQuantity(l.get(k)!);
  return out;
}

/** quota.Add: the union, summing shared keys. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? addQuantity(out.get(k)!, v) : v);
  return out;
}

/** resourcehelper's max(a, b...): every name of any list, at its largest. */
export function maxLists(a: ResourceList, ...rest: ResourceList[]): ResourceList {
  const out: ResourceList = new Map(a);
  for (const b of rest) for (const [k, v] of b) out.set(k, out.has(k) ? maxQuantity(out.get(k)!, v) : v);
  return out;
}

/** quota.SubtractWithNonNegativeResult. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const d = b.has(k) ? addQuantity(v, negate(b.get(k)!)) : v;
    out.set(k, d.mantissa > 0n ? d : quantity(0));
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, quantity(0));
  return out;
}

/** quota.Mask: only the named resources. */
export function mask(l: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) if (l.has(n)) out.set(n, l.get(n)!);
  return out;
}

export function removeZeros(l: ResourceList): ResourceList {
  return new Map([...l].filter(([, v]) => v.mantissa !== 0n));
}

/** quota.LessThanOrEqual(a, hard): the names whose usage in `a` is above `hard`. */
export function exceeded(a: ResourceList, hard: ResourceList): string[] {
  const out: string[] = [];
  for (const [k, limit] of hard) {
    const v = a.get(k);
    if (v && compareQuantities(v, limit) > 0) out.push(k);
  }
  return out;
}

export function equalLists(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || compareQuantities(v, w) !== 0) return false;
  }
  return true;
}

/** prettyPrint of the admission plugin: `k=v` sorted by name, comma separated. */
export function prettyPrint(l: ResourceList): string {
  return [...l.keys()].sort().map((k) => `${k}=${canonicalQuantity(l.get(k)!)}`).join(',');
}

// ---------------------------------------------------------------------------------------------
// Scopes

/** A ScopedResourceSelectorRequirement; `spec.scopes` entries are the Exists form. */
export interface ScopeSelector {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** getScopeSelectorsFromQuota. */
export function quotaScopeSelectors(quota: KubeObject): ScopeSelector[] {
  const spec = obj(quota.spec);
  const out: ScopeSelector[] = (Array.isArray(spec.scopes) ? spec.scopes : []).map((s) => ({ scopeName: String(s), operator: 'Exists' }));
  for (const e of list(obj(spec.scopeSelector).matchExpressions)) out.push(scopeSelectorOf(e));
  return out;
}

export function scopeSelectorOf(e: Json): ScopeSelector {
  return { scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : undefined };
}

/** Go's `%v` of a []ScopedResourceSelectorRequirement, as kube's uncovered-scopes error prints it: `[{PriorityClass In [high]}]`. */
export function goScopeSelectors(sels: ScopeSelector[]): string {
  return `[${sels.map((s) => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/** ScopedResourceSelectorRequirementsAsSelector over a set holding the object's value for the scope (if any). */
export function selectorMatches(sel: ScopeSelector, value: string | undefined): boolean {
  const values = sel.values ?? [];
  switch (sel.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluators

/** What an evaluator's Handles looks at (admission.Attributes). */
export interface QuotaAttributes {
  operation: AdmissionOperation;
  subresource: string;
  obj: KubeObject;
  old?: KubeObject;
}

export interface Evaluator {
  group: string;
  resource: string;
  /** Whether a write of this kind can change quota usage (kube's Handles). */
  handles(a: QuotaAttributes): boolean;
  /** The quota resource names this evaluator accounts for, out of `names`. */
  matchingResources(names: Iterable<string>): string[];
  /** Scopes of objects without any (every kind but pods and claims) match none. */
  matchesScope(sel: ScopeSelector, o: KubeObject, now: number): boolean;
  usage(o: KubeObject, now: number): ResourceList;
  /** An error message when a required resource is missing from the object (pods: `must specify …`). */
  constraints?(required: string[], o: KubeObject): string | undefined;
}

/** MatchingScopes: the selectors the object satisfies. */
export const matchingScopes = (e: Evaluator, o: KubeObject, sels: ScopeSelector[], now: number): ScopeSelector[] => sels.filter((s) => e.matchesScope(s, o, now));

/** UncoveredQuotaScopes: the limited scopes no quota's matched scope of the same name covers. */
export const uncoveredScopes = (limited: ScopeSelector[], matched: ScopeSelector[]): ScopeSelector[] =>
  limited.filter((l) => !matched.some((m) => m.scopeName === l.scopeName));

/** ObjectCountQuotaResourceNameFor. */
export const objectCountName = (group: string, resource: string) => (group ? `count/${resource}.${group}` : `count/${resource}`);

export const noScope = () => false;
