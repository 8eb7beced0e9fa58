/**
 * What a pod costs against a quota, ported from kube 1.35's pod evaluator
 * (pkg/quota/v1/evaluator/core/pods.go) and the resource helpers it calls
 * (k8s.io/component-helpers resource/helpers.go, v0.35): requests and limits summed over
 * containers with kube's sidecar rule, pod-level resources and overhead, and, with in-place
 * resize GA (InPlacePodVerticalScaling), the larger of what a container asks, what the kubelet
 * allocated and what it actuated, so a pod resized down keeps costing what it still holds.
 */
import type { KubeObject } from '../registry/types.js';
import {
  addLists, addQuantity, isObject, list, maxLists, noScope, obj, parseResourceList, quantity, selectorMatches,
  type Evaluator, type Json, type QuotaAttributes, type ResourceList, type ScopeSelector,
} from './resourcequota-lists.js';

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

// Resource helpers ------------------------------------------------------------------------------

/** IsSupportedPodLevelResource: cpu, memory and hugepages may be stated for the whole pod. */
const podLevelResource = (n: string) => n === 'cpu' || n === 'memory' || n.startsWith('hugepages-');
const statesPodLevel = (l: unknown) => Object.keys(obj(l)).some(podLevelResource);
/** IsPodLevelResourcesSet. */
const podLevelResourcesSet = (pod: KubeObject) => statesPodLevel(obj(obj(pod.spec).resources).requests) || statesPodLevel(obj(obj(pod.spec).resources).limits);

/** IsPodResizeInfeasible: the kubelet marked the pending resize Infeasible. */
function resizeInfeasible(pod: KubeObject): boolean {
  const pending = list(obj(pod.status).conditions).find((c) => c.type === 'PodResizePending');
  return pending?.reason === 'Infeasible';
}

type Which = 'requests' | 'limits';

/**
 * determineEffectiveRequests / determineEffectiveLimits for a container the kubelet reports
 * resources of: requests are the largest of spec, actuated and allocated (only the latter two
 * when the resize is infeasible); limits the larger of spec and actuated (actuated alone then).
 */
function effective(c: Json, status: Json | undefined, which: Which, infeasible: boolean): ResourceList {
  const spec = parseResourceList(obj(c.resources)[which]);
  if (!status || !isObject(status.resources)) return spec;
  const actuated = parseResourceList(status.resources[which]);
  if (which === 'limits') return infeasible ? actuated : maxLists(spec, actuated);
  const allocated = parseResourceList(status.allocatedResources);
  return infeasible ? maxLists(actuated, allocated) : maxLists(spec, actuated, allocated);
}

/**
 * PodRequests / PodLimits with UseStatusResources: the containers' sum, restartable init
 * containers (sidecars) added to it, and at least what any init container needs on top of the
 * sidecars started before it; pod-level values replace the containers' where set; then
 * overhead (on limits only where a limit is set).
 */
export function podTotals(pod: KubeObject, which: Which): ResourceList {
  const spec = obj(pod.spec);
  const st = obj(pod.status);
  const statuses = new Map<string, Json>();
  for (const cs of [...list(st.containerStatuses), ...list(st.initContainerStatuses)]) statuses.set(String(cs.name ?? ''), cs);
  const infeasible = resizeInfeasible(pod);
  let total: ResourceList = new Map();
  for (const c of list(spec.containers)) total = addLists(total, effective(c, statuses.get(String(c.name ?? '')), which, infeasible));
  let sidecars: ResourceList = new Map();
  let init: ResourceList = new Map();
  for (const c of list(spec.initContainers)) {
    if (c.restartPolicy === 'Always') {
      const own = effective(c, statuses.get(String(c.name ?? '')), which, infeasible);
      total = addLists(total, own);
      sidecars = addLists(sidecars, own);
      init = maxLists(init, sidecars);
    } else {
      init = maxLists(init, addLists(parseResourceList(obj(c.resources)[which]), sidecars));
    }
  }
  total = maxLists(total, init);
  const podLevel = obj(spec.resources);
  if (which === 'requests' ? statesPodLevel(podLevel.requests) : podLevelResourcesSet(pod)) {
    for (const [r, q] of parseResourceList(podLevel[which])) if (podLevelResource(r)) total.set(r, q);
  }
  const overhead = parseResourceList(spec.overhead);
  if (which === 'requests') return addLists(total, overhead);
  for (const [r, q] of overhead) {
    const limit = total.get(r);
    if (limit && limit.mantissa !== 0n) total.set(r, addQuantity(limit, q));
  }
  return total;
}

// Scopes ------------------------------------------------------------------------------------------

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

/** IsTerminating: the pod has an active deadline. */
export const isTerminating = (pod: KubeObject) => {
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
    default: return noScope();
  }
}

// The evaluator ---------------------------------------------------------------------------------

/** PodUsageFunc: count/pods always; compute resources and `pods` only while the pod counts. */
export function podUsage(pod: KubeObject, now: number): ResourceList {
  const out: ResourceList = new Map([['count/pods', quantity(1)]]);
  if (!podCountsForQuota(pod, now)) return out;
  return addLists(out, podComputeUsage(podTotals(pod, 'requests'), podTotals(pod, 'limits')));
}

export const podEvaluator: Evaluator = {
  group: '', resource: 'pods',
  // Creates; in-place resizes (pods/resize), charged what they grow; and updates that move the
  // pod into or out of the Terminating scope (an active deadline set on a running pod).
  handles({ operation, subresource, obj: pod, old }: QuotaAttributes) {
    if (subresource === 'resize') return operation === 'UPDATE';
    if (subresource !== '') return false;
    if (operation === 'UPDATE' && old && isTerminating(old) !== isTerminating(pod)) return true;
    return operation === 'CREATE';
  },
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
    // Pod-level resources make the per-container requirement moot (PodLevelResources, on in 1.35).
    if (podLevelResourcesSet(pod)) return undefined;
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
