/**
 * What an object costs against a ResourceQuota, ported from kube 1.35's quota evaluators
 * (pkg/quota/v1/evaluator/core/{pods,services,persistent_volume_claims,resource_claims}.go,
 * registry.go, the generic object-count evaluator of k8s.io/apiserver
 * pkg/quota/v1/generic/evaluator.go and quota.CalculateUsage of pkg/quota/v1/resources.go):
 * the usage of one object, the scopes it matches, and the sum over a namespace that the quota
 * controller writes to status.used. Shared by the admission plugin and the controller, so
 * both charge exactly the same amounts.
 */
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import { compareQuantities, scaledValue, type Quantity } from '../registry/validation/quantity.js';
import {
  addLists, addQuantity, list, mask, noScope, obj, objectCountName, quantity, quotaScopeSelectors, selectorMatches, toQuantity,
  type Evaluator, type QuotaAttributes, type ResourceList,
} from './resourcequota-lists.js';
import { podEvaluator } from './resourcequota-pods.js';

export * from './resourcequota-lists.js';
export { isBestEffort, isTerminating, podCountsForQuota, podTotals, podUsage } from './resourcequota-pods.js';

/** The generic object-count evaluator: creates of the main resource cost one, with kube's legacy alias for four core kinds (`configmaps`, `secrets`…). */
export function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group, resource,
    handles: (a) => a.subresource === '' && a.operation === 'CREATE',
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    matchesScope: noScope,
    usage: () => new Map(names.map((n) => [n, quantity(1)])),
  };
}

/** legacyObjectCountAliases (evaluator/core/registry.go); `services` and `persistentvolumeclaims` are their evaluators' own. */
const legacyAliases: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/**
 * DefaultIgnoredResources (pkg/quota/v1/install/registry.go): never charged by admission and
 * never counted by the controller. The virtual ones are never stored here anyway.
 */
const ignoredResources = new Set([
  '/bindings', '/componentstatuses', '/events', 'events.k8s.io/events',
  'authentication.k8s.io/tokenreviews', 'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews', 'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews', 'authorization.k8s.io/selfsubjectrulesreviews',
]);
export const isIgnoredResource = (group: string, resource: string) => ignoredResources.has(`${group}/${resource}`);

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
  // A Service's type can change, so updates are charged their difference; kube's Handles looks
  // at the operation only, so status writes are checked too (they change nothing it charges).
  handles: (a) => a.operation === 'CREATE' || a.operation === 'UPDATE',
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
  // A claim's request may grow (expansion). Status writes are handled when RequiresQuotaReplenish,
  // which in kube compares two freshly allocated *Quantity pointers (Storage()) and so is always
  // true: every status write is evaluated, its growth (allocatedResources) charged unchecked.
  handles: (a: QuotaAttributes) => (a.subresource === '' || a.subresource === 'status') && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
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

// ResourceClaims (resource.k8s.io, DynamicResourceAllocation GA) -------------------------------

const claimCountName = 'count/resourceclaims.resource.k8s.io';
/** corev1.ResourceClaimsPerClass: `<device class>.deviceclass.resource.k8s.io/devices`. */
const perDeviceClass = '.deviceclass.resource.k8s.io/devices';
/** resourceapi.AllocationResultsMaxSize: what an `All` request is charged, its worst case. */
const allocationResultsMaxSize = 32;

function deviceCount(req: Record<string, unknown>): number {
  switch (req.allocationMode) {
    case 'ExactCount': return typeof req.count === 'number' ? req.count : 0;
    case 'All': return allocationResultsMaxSize;
    // An unknown mode (after a downgrade) counts nothing, as in kube.
    default: return 0;
  }
}

/**
 * claimEvaluator.Usage: the claim, plus per device class the devices its requests may take;
 * a request with alternatives (firstAvailable) is charged its largest per class. The
 * DRAExtendedResource (alpha, off) charges through the owning pod are not ported.
 */
export function claimUsage(claim: KubeObject): ResourceList {
  const out: ResourceList = new Map([[claimCountName, quantity(1)]]);
  const add = (cls: unknown, n: number) => {
    const name = `${String(cls ?? '')}${perDeviceClass}`;
    out.set(name, addQuantity(out.get(name) ?? quantity(0), quantity(n)));
  };
  for (const req of list(obj(obj(claim.spec).devices).requests)) {
    const alternatives = list(req.firstAvailable);
    if (alternatives.length > 0) {
      const worst = new Map<string, number>();
      for (const sub of alternatives) {
        const cls = String(sub.deviceClassName ?? '');
        worst.set(cls, Math.max(worst.get(cls) ?? 0, deviceCount(sub)));
      }
      for (const [cls, n] of worst) add(cls, n);
    } else if (req.exactly && typeof req.exactly === 'object') {
      const exactly = obj(req.exactly);
      add(exactly.deviceClassName, deviceCount(exactly));
    }
  }
  return out;
}

const claimEvaluator: Evaluator = {
  group: 'resource.k8s.io', resource: 'resourceclaims',
  handles: (a) => a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
  matchingResources: (input) => [...input].filter((n) => n === claimCountName || n.endsWith(perDeviceClass)),
  matchesScope: noScope,
  usage: claimUsage,
};

// Registry -------------------------------------------------------------------------------------

const specific = new Map<string, Evaluator>([
  ['/pods', podEvaluator], ['/services', serviceEvaluator], ['/persistentvolumeclaims', pvcEvaluator], ['resource.k8s.io/resourceclaims', claimEvaluator],
]);
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
 * that every scope of the quota selects. A resource the lookup does not offer has no
 * evaluator in kube's controller (nothing monitors it), so its names get no value at all.
 */
export async function calculateUsage(namespace: string, quota: KubeObject, hard: ResourceList, lookup: (group: string, resource: string) => AdmissionLookup | undefined, now = Date.now()): Promise<ResourceList> {
  const hardNames = [...hard.keys()];
  const selectors = quotaScopeSelectors(quota);
  let used: ResourceList = new Map();
  for (const e of evaluatorsForQuota(hardNames)) {
    const names = e.matchingResources(hardNames);
    if (names.length === 0) continue;
    const source = isIgnoredResource(e.group, e.resource) ? undefined : lookup(e.group, e.resource);
    if (!source) continue;
    let stats: ResourceList = new Map(names.map((n) => [n, quantity(0)]));
    for (const item of await source.list(namespace)) {
      if (item.metadata.namespace !== namespace) continue;
      if (selectors.every((s) => e.matchesScope(s, item, now))) stats = addLists(stats, e.usage(item, now));
    }
    used = addLists(used, mask(stats, names));
  }
  return used;
}
