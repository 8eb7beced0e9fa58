/**
 * What an object costs against a ResourceQuota, ported from kube's quota evaluators
 * (pkg/quota/v1/evaluator/core/{pods,services,persistent_volume_claims}.go and the generic
 * object-count evaluator of k8s.io/apiserver pkg/quota/v1/generic/evaluator.go): the usage
 * of one object, the scopes it matches, and the sum over a namespace that the quota
 * controller writes to status.used. Shared by the admission plugin and the controller, so
 * both charge exactly the same amounts.
 */
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import { canonicalQuantity, compareQuantities, parseQuantity, scaledValue, type Quantity } from '../registry/validation/quantity.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A corev1.ResourceList of parsed quantities. */
export type ResourceList = Map<string, Quantity>;

// ---------------------------------------------------------------------------------------------
// Quantities and resource lists (k8s.io/apiserver pkg/quota/v1/resources.go)

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

const negate = (q: Quantity): Quantity => ({ ...q, mantissa: -q.mantissa, cached: '' });
const isZero = (q: Quantity) => q.mantissa === 0n;
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
  return new Map([...l].filter(([, v]) => !isZero(v)));
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
  for (const e of list(obj(spec.scopeSelector).matchExpressions)) {
    out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

/** ScopedResourceSelectorRequirementsAsSelector over a set holding the object's value for the scope (if any). */
function selectorMatches(sel: ScopeSelector, value: string | undefined): boolean {
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

export interface Evaluator {
  group: string;
  resource: string;
  /** Whether a write of this kind can change quota usage (kube's Handles). */
  handles(operation: 'CREATE' | 'UPDATE', subresource: string): boolean;
  /** The quota resource names this evaluator accounts for, out of `names`. */
  matchingResources(names: Iterable<string>): string[];
  matchesScope(sel: ScopeSelector, o: KubeObject, now: number): boolean;
  usage(o: KubeObject, now: number): ResourceList;
  /** An error message when a required resource is missing from the object (pods: `must specify …`). */
  constraints?(required: string[], o: KubeObject): string | undefined;
}

/** ObjectCountQuotaResourceNameFor. */
export const objectCountName = (group: string, resource: string) => (group ? `count/${resource}.${group}` : `count/${resource}`);

const noScope = () => false;

/** The generic object-count evaluator, with kube's legacy alias for four core kinds (`configmaps`, `secrets`…). */
export function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group, resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    matchesScope: noScope,
    usage: () => new Map(names.map((n) => [n, quantity(1)])),
  };
}

const legacyAliases: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

// Pods ------------------------------------------------------------------------------------------

const podResources = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
const podResourcePrefixes = ['hugepages-', 'requests.hugepages-'];
const nativeResource = (n: string) => !n.includes('/') || n.includes('kubernetes.io/');
const isExtendedResourceNameForQuota = (n: string) => !nativeResource(n) && n.startsWith('requests.');
/** helper.IsExtendedResourceName: fully qualified, outside kubernetes.io, not `requests.`-prefixed. */
const isExtendedResourceName = (n: string) => !nativeResource(n) && !n.startsWith('requests.');
/** Quotas on these make every container state them (a compatibility rule kube keeps). */
const validationSet = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** podComputeUsageHelper. */
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', quantity(1)]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) { out.set(r, req); out.set(`requests.${r}`, req); }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, req] of requests) {
    if (r.startsWith('hugepages-')) { out.set(r, req); out.set(`requests.${r}`, req); }
    if (isExtendedResourceName(r)) out.set(`requests.${r}`, req);
  }
  return out;
}

const maxLists = (a: ResourceList, b: ResourceList): ResourceList => {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? maxQuantity(out.get(k)!, v) : v);
  return out;
};

/**
 * resourcehelper.PodRequests / PodLimits: the containers' sum, restartable init containers
 * (sidecars) added to it, and at least what any init container needs on top of the sidecars
 * started before it; then pod overhead. Pod-level resources, where set, replace cpu and memory.
 */
export function podTotals(pod: KubeObject, which: 'requests' | 'limits'): ResourceList {
  const spec = obj(pod.spec);
  let total: ResourceList = new Map();
  for (const c of list(spec.containers)) total = addLists(total, parseResourceList(obj(c.resources)[which]));
  let sidecars: ResourceList = new Map();
  let init: ResourceList = new Map();
  for (const c of list(spec.initContainers)) {
    let own = parseResourceList(obj(c.resources)[which]);
    if (c.restartPolicy === 'Always') {
      total = addLists(total, own);
      sidecars = addLists(sidecars, own);
      own = sidecars;
    } else {
      own = addLists(own, sidecars);
    }
    init = maxLists(init, own);
  }
  total = maxLists(total, init);
  const podLevel = parseResourceList(obj(spec.resources)[which]);
  for (const r of ['cpu', 'memory']) if (podLevel.has(r)) total.set(r, podLevel.get(r)!);
  return addLists(total, parseResourceList(spec.overhead));
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace period, stop counting. */
export function podCountsForQuota(pod: KubeObject, now: number): boolean {
  const phase = obj(pod.status).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const ts = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (ts && typeof grace === 'number' && now > Date.parse(ts) + grace * 1000) return false;
  return true;
}

/** qos.GetPodQOS(pod) == BestEffort: no cpu or memory request or limit above zero anywhere. */
export function isBestEffort(pod: KubeObject): boolean {
  const spec = obj(pod.spec);
  const lists = [...list(spec.containers), ...list(spec.initContainers)].flatMap((c) => [obj(c.resources).requests, obj(c.resources).limits]);
  lists.push(obj(spec.resources).requests, obj(spec.resources).limits);
  for (const l of lists) {
    for (const [k, q] of parseResourceList(l)) if ((k === 'cpu' || k === 'memory') && q.mantissa > 0n) return false;
  }
  return true;
}

const isTerminating = (pod: KubeObject) => {
  const d = obj(pod.spec).activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
};

function usesCrossNamespacePodAffinity(pod: KubeObject): boolean {
  const affinity = obj(obj(pod.spec).affinity);
  const crosses = (t: Json) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || (t.namespaceSelector !== undefined && t.namespaceSelector !== null);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity[kind]);
    if (list(a.requiredDuringSchedulingIgnoredDuringExecution).some(crosses)) return true;
    if (list(a.preferredDuringSchedulingIgnoredDuringExecution).some((w) => crosses(obj(w.podAffinityTerm)))) return true;
  }
  return false;
}

/** podMatchesScopeFunc. */
function podMatchesScope(sel: ScopeSelector, pod: KubeObject): boolean {
  switch (sel.scopeName) {
    case 'Terminating': return isTerminating(pod);
    case 'NotTerminating': return !isTerminating(pod);
    case 'BestEffort': return isBestEffort(pod);
    case 'NotBestEffort': return !isBestEffort(pod);
    case 'PriorityClass': {
      const pc = String(obj(pod.spec).priorityClassName ?? '');
      if (sel.operator === 'Exists') return pc !== '';
      return selectorMatches(sel, pc === '' ? undefined : pc);
    }
    case 'CrossNamespacePodAffinity': return usesCrossNamespacePodAffinity(pod);
    default: return false;
  }
}

/** PodUsageFunc: count/pods always; compute resources and `pods` only while the pod counts. */
export function podUsage(pod: KubeObject, now: number): ResourceList {
  const out: ResourceList = new Map([['count/pods', quantity(1)]]);
  if (!podCountsForQuota(pod, now)) return out;
  return addLists(out, podComputeUsage(podTotals(pod, 'requests'), podTotals(pod, 'limits')));
}

const podEvaluator: Evaluator = {
  group: '', resource: 'pods',
  // In-place resize (pods/resize) is not served, so only creates change what a pod costs.
  handles: (op, sub) => op === 'CREATE' && sub === '',
  matchingResources(input) {
    const names = [...input];
    return [
      ...names.filter((n) => podResources.includes(n)),
      ...names.filter((n) => podResourcePrefixes.some((p) => n.startsWith(p)) || isExtendedResourceNameForQuota(n)),
    ];
  },
  matchesScope: podMatchesScope,
  usage: podUsage,
  constraints(required, pod) {
    const requiredSet = required.filter((r) => validationSet.has(r));
    const missing = new Map<string, Set<string>>();
    const spec = obj(pod.spec);
    for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
      const have = podComputeUsage(parseResourceList(obj(c.resources).requests), parseResourceList(obj(c.resources).limits));
      for (const r of requiredSet) {
        if (have.has(r)) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(String(c.name ?? ''));
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

// Services --------------------------------------------------------------------------------------

const serviceResources = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'];

export function serviceUsage(svc: KubeObject): ResourceList {
  const spec = obj(svc.spec);
  const ports = list(spec.ports);
  const out: ResourceList = new Map([['count/services', quantity(1)], ['services', quantity(1)], ['services.loadbalancers', quantity(0)], ['services.nodeports', quantity(0)]]);
  if (spec.type === 'NodePort') out.set('services.nodeports', quantity(ports.length));
  if (spec.type === 'LoadBalancer') {
    // Without node port allocation only the ports that name one explicitly count.
    const nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length;
    out.set('services.nodeports', quantity(nodePorts));
    out.set('services.loadbalancers', quantity(1));
  }
  return out;
}

const serviceEvaluator: Evaluator = {
  group: '', resource: 'services',
  // A Service's type can change, so updates are charged their difference.
  handles: (op, sub) => sub === '' && (op === 'CREATE' || op === 'UPDATE'),
  matchingResources: (input) => [...input].filter((n) => serviceResources.includes(n)),
  matchesScope: noScope,
  usage: serviceUsage,
};

// PersistentVolumeClaims -----------------------------------------------------------------------

const storageClassSuffix = '.storageclass.storage.k8s.io/';
const pvcResources = ['persistentvolumeclaims', 'requests.storage'];

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName. */
function claimClass(pvc: KubeObject): string {
  const ann = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (ann !== undefined) return ann;
  const sc = obj(pvc.spec).storageClassName;
  return typeof sc === 'string' ? sc : '';
}

/** Whole bytes, rounded up (kube rounds a fractional request so quota arithmetic stays exact). */
function roundUp(q: Quantity): Quantity {
  if (q.exponent >= 0) return q;
  return { mantissa: scaledValue(q, 0), exponent: 0, format: q.format, internal: { kind: 'dec' }, cached: '' };
}

function claimStorage(pvc: KubeObject): Quantity | undefined {
  const requested = toQuantity(obj(obj(obj(pvc.spec).resources).requests).storage);
  if (!requested) return undefined;
  let result = roundUp(requested);
  const allocated = toQuantity(obj(obj(pvc.status).allocatedResources).storage);
  if (allocated && compareQuantities(allocated, result) > 0) result = roundUp(allocated);
  return result;
}

export function pvcUsage(pvc: KubeObject): ResourceList {
  const out: ResourceList = new Map([['persistentvolumeclaims', quantity(1)], ['count/persistentvolumeclaims', quantity(1)]]);
  const cls = claimClass(pvc);
  if (cls) out.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, quantity(1));
  const storage = claimStorage(pvc);
  if (storage) {
    out.set('requests.storage', storage);
    if (cls) out.set(`${cls}${storageClassSuffix}requests.storage`, storage);
  }
  return out;
}

function vacNames(pvc: KubeObject): string[] {
  const names = new Set<string>();
  const spec = obj(pvc.spec), status = obj(pvc.status);
  if (typeof spec.volumeAttributesClassName === 'string' && spec.volumeAttributesClassName) names.add(spec.volumeAttributesClassName);
  if (typeof status.currentVolumeAttributesClassName === 'string' && status.currentVolumeAttributesClassName) names.add(status.currentVolumeAttributesClassName);
  const target = obj(status.modifyVolumeStatus).targetVolumeAttributesClassName;
  if (typeof target === 'string' && target) names.add(target);
  return [...names];
}

const pvcEvaluator: Evaluator = {
  group: '', resource: 'persistentvolumeclaims',
  // A claim's request may grow (expansion); its status changes are not charged here.
  handles: (op, sub) => sub === '' && (op === 'CREATE' || op === 'UPDATE'),
  matchingResources: (input) => [...input].filter((n) => n === 'count/persistentvolumeclaims' || pvcResources.includes(n) || pvcResources.some((r) => n.endsWith(storageClassSuffix + r))),
  matchesScope(sel, pvc) {
    if (sel.scopeName !== 'VolumeAttributesClass') return false;
    const names = vacNames(pvc);
    if (sel.operator === 'Exists') return names.length > 0;
    if (names.length === 0) return selectorMatches(sel, undefined);
    return names.some((n) => selectorMatches(sel, n));
  },
  usage: pvcUsage,
};

// Registry -------------------------------------------------------------------------------------

const specific = new Map<string, Evaluator>([['/pods', podEvaluator], ['/services', serviceEvaluator], ['/persistentvolumeclaims', pvcEvaluator]]);
const generic = new Map<string, Evaluator>();

/** The evaluator of a resource: kube's specific ones, else an object counter (created on first use, as kube's admission does). */
export function evaluatorFor(group: string, resource: string): Evaluator {
  const key = `${group}/${resource}`;
  const found = specific.get(key) ?? generic.get(key);
  if (found) return found;
  const e = objectCountEvaluator(group, resource, group === '' ? legacyAliases[resource] : undefined);
  generic.set(key, e);
  return e;
}

/**
 * The evaluators a quota's hard resources need: the specific ones, the four aliased counters,
 * and a counter for each `count/<resource>[.<group>]` named.
 */
export function evaluatorsForQuota(hardNames: Iterable<string>): Evaluator[] {
  const out = new Map<string, Evaluator>();
  const add = (e: Evaluator) => out.set(`${e.group}/${e.resource}`, e);
  for (const e of specific.values()) add(e);
  for (const r of Object.keys(legacyAliases)) add(evaluatorFor('', r));
  for (const name of hardNames) {
    if (!name.startsWith('count/')) continue;
    const gr = name.slice('count/'.length);
    const dot = gr.indexOf('.');
    add(dot < 0 ? evaluatorFor('', gr) : evaluatorFor(gr.slice(dot + 1), gr.slice(0, dot)));
  }
  return [...out.values()];
}

/** generic.Matches: the quota tracks one of the evaluator's resources and every scope selects the object. */
export function quotaMatches(e: Evaluator, quota: KubeObject, o: KubeObject, now: number): boolean {
  const hard = Object.keys(obj(obj(quota.status).hard));
  if (e.matchingResources(hard).length === 0) return false;
  return quotaScopeSelectors(quota).every((s) => e.matchesScope(s, o, now));
}

/**
 * quota.CalculateUsage: what the namespace's objects use of the quota's hard resources,
 * through the evaluators' objects (the lookup's cache-first lists), counting only objects
 * that every scope of the quota selects.
 */
export async function calculateUsage(namespace: string, quota: KubeObject, hard: ResourceList, lookup: (group: string, resource: string) => AdmissionLookup | undefined, now = Date.now()): Promise<ResourceList> {
  const hardNames = [...hard.keys()];
  const selectors = quotaScopeSelectors(quota);
  let used: ResourceList = new Map();
  for (const e of evaluatorsForQuota(hardNames)) {
    const names = e.matchingResources(hardNames);
    if (names.length === 0) continue;
    let stats: ResourceList = new Map(names.map((n) => [n, quantity(0)]));
    const source = lookup(e.group, e.resource);
    const items = source ? await source.list(namespace) : [];
    for (const item of items) {
      if (selectors.every((s) => e.matchesScope(s, item, now))) stats = addLists(stats, e.usage(item, now));
    }
    used = addLists(used, mask(stats, names));
  }
  return used;
}
