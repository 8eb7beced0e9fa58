/**
 * Pods (pkg/registry/core/pod): SetObjectDefaults_Pod, the create-time status (Pending and the
 * QoS class), a spec that is immutable but for images, deadlines, tolerations and scheduling
 * gates, the status and ephemeralcontainers subresources, kube's field selectors and the
 * `kubectl get pods` columns; admission by LimitRanger, ServiceAccount, PodSecurity, Priority
 * and DefaultTolerationSeconds, in kube's order. Binding and eviction are served elsewhere.
 */
import type { KindDefinition, KubeObject, StatusStrategy, TableColumn } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageOf } from '../../age.js';
import { ageColumn, column } from '../common.js';
import {
  convertPodStatusIPs, defaultPod, preparePodForCreate, resizedSpec, validatePodCreate, validatePodEphemeralContainersUpdate,
  validatePodResize, validatePodStatusUpdate, validatePodUpdate, validationOptionsFor,
} from './podspec/index.js';
import { limitRangerAdmission } from '../../../admission/limitranger.js';
import { serviceAccountAdmission } from '../../../admission/serviceaccount.js';
import { podSecurityAdmission } from '../../../admission/podsecurity.js';
import { priorityAdmission } from '../../../admission/priority.js';
import { defaultTolerationSecondsAdmission } from '../../../admission/defaulttolerationseconds.js';
import { applyAppArmorVersionSkew, podWarnings } from './podspec/warnings.js';
import { dnsLabelNameWarning, ipWarnings } from '../warnings.js';
import { podRowConditions } from './podrowconditions.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const specOf = (pod: KubeObject) => obj(pod.spec);
const statusOf = (pod: KubeObject) => obj(pod.status);

/** Everything but status and metadata is the stored object's (a status-style write). */
function keepAllBut(desired: KubeObject, current: KubeObject, keep: string[]): void {
  const own = new Set(['metadata', 'apiVersion', 'kind', ...keep]);
  for (const key of Object.keys(desired)) if (!own.has(key) && !(key in current)) delete desired[key];
  for (const key of Object.keys(current)) if (!own.has(key)) desired[key] = current[key];
}

/** podStatusStrategy: spec and owner references stay; a status without qosClass keeps the old one; observed generations are kept. */
const statusStrategy: StatusStrategy = {
  prepareForUpdate(obj0, old) {
    keepAllBut(obj0, old, ['status']);
    // The status writer (the kubelet) never sets deletionTimestamp: it stays the stored one.
    delete obj0.metadata.deletionTimestamp;
    if (old.metadata.ownerReferences === undefined) delete obj0.metadata.ownerReferences;
    else obj0.metadata.ownerReferences = old.metadata.ownerReferences;
    const status = isObject(obj0.status) ? obj0.status : (obj0.status = {});
    const oldStatus = statusOf(old);
    if (!status.qosClass && oldStatus.qosClass) status.qosClass = oldStatus.qosClass;
    if (!status.observedGeneration && oldStatus.observedGeneration) status.observedGeneration = oldStatus.observedGeneration;
    const oldGenerations = new Map<string, number[]>();
    for (const c of list(oldStatus.conditions)) {
      const gens = oldGenerations.get(str(c.type)) ?? [];
      gens.push(typeof c.observedGeneration === 'number' ? c.observedGeneration : 0);
      oldGenerations.set(str(c.type), gens);
    }
    for (const c of list(status.conditions)) {
      const gen = oldGenerations.get(str(c.type))?.shift() ?? 0;
      if (!c.observedGeneration && gen) c.observedGeneration = gen;
    }
    convertPodStatusIPs(obj0);
  },
  validateUpdate: (pod, old) => validatePodStatusUpdate(pod, old),
  /** podStatusStrategy.WarningsOnUpdate: pod and host IPs in a form kube will refuse later. */
  warningsOnUpdate(pod) {
    const status = statusOf(pod);
    return [
      ...list(status.podIPs).flatMap((ip, i) => ipWarnings(`status.podIPs[${i}].ip`, str(ip.ip))),
      ...list(status.hostIPs).flatMap((ip, i) => ipWarnings(`status.hostIPs[${i}].ip`, str(ip.ip))),
    ];
  },
};

/** Metadata an ephemeral-containers write may not change (metav1.ResetObjectMetaForStatus). */
const resetMeta = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'deletionTimestamp', 'generation'];

/** podEphemeralContainersStrategy: only spec.ephemeralContainers comes from the request. */
const ephemeralContainersStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    const ephemeral = specOf(pod).ephemeralContainers;
    keepAllBut(pod, old, []);
    pod.spec = { ...specOf(old) };
    if (ephemeral === undefined) delete (pod.spec as Json).ephemeralContainers;
    else (pod.spec as Json).ephemeralContainers = ephemeral;
    for (const k of resetMeta) {
      if (old.metadata[k] === undefined) delete pod.metadata[k];
      else pod.metadata[k] = old.metadata[k];
    }
  },
  validateUpdate: (pod, old) => validatePodEphemeralContainersUpdate(pod, old, { ...validationOptionsFor(specOf(old), old.metadata.annotations), resourceIsPod: true }),
};

/** podResizeStrategy: only the containers' resources and resize policies come from the request. */
const resizeStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    const spec = resizedSpec(specOf(pod), specOf(old));
    keepAllBut(pod, old, []);
    pod.spec = spec;
    for (const k of resetMeta) {
      if (old.metadata[k] === undefined) delete pod.metadata[k];
      else pod.metadata[k] = old.metadata[k];
    }
  },
  validateUpdate: (pod, old) => validatePodResize(pod, old, { ...validationOptionsFor(specOf(old), old.metadata.annotations), resourceIsPod: true }),
};

/** The pod's readiness as `kubectl get pods` counts it, its status word and its restarts (printPod). */
export function podCells(pod: KubeObject, now = Date.now()): unknown[] {
  const spec = specOf(pod);
  const status = statusOf(pod);
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  let total = list(spec.containers).length;
  let ready = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of list(status.conditions)) if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  const initContainers = new Map(list(spec.initContainers).map((c) => [str(c.name), c]));
  const isSidecar = (name: string) => initContainers.get(name)?.restartPolicy === 'Always';
  for (const c of initContainers.values()) if (c.restartPolicy === 'Always') total++;
  const finishedAt = (cs: Json) => Date.parse(str(obj(obj(cs.lastTerminationState).terminated).finishedAt)) || 0;
  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const count = typeof cs.restartCount === 'number' ? cs.restartCount : 0;
    restarts += count;
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    if (isSidecar(str(cs.name))) {
      sidecarRestarts += count;
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(cs));
    }
    const state = obj(cs.state);
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    const waiting = isObject(state.waiting) ? state.waiting : undefined;
    if (terminated && terminated.exitCode === 0) continue;
    if (isSidecar(str(cs.name)) && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) {
      if (!str(terminated.reason)) reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      else reason = `Init:${str(terminated.reason)}`;
    } else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.size}`;
    }
    initializing = true;
    break;
  }
  const initialized = list(status.conditions).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += typeof cs.restartCount === 'number' ? cs.restartCount : 0;
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const state = obj(cs.state);
      const waiting = obj(state.waiting), terminated = isObject(state.terminated) ? state.terminated : undefined;
      if (str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated && str(terminated.reason)) reason = str(terminated.reason);
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      else if (cs.ready === true && isObject(state.running)) { hasRunning = true; ready++; }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = list(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartsCell = restarts !== 0 && lastRestart > 0 ? `${restarts} (${ageOf(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  const podIP = str(obj(list(status.podIPs)[0]).ip) || '<none>';
  const gates = list(spec.readinessGates);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const g of gates) {
      const c = list(status.conditions).find((x) => x.type === g.conditionType);
      if (c?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  return [
    `${ready}/${total}`, reason, restartsCell, ageOf(pod.metadata.creationTimestamp, now),
    podIP, str(spec.nodeName) || '<none>', str(status.nominatedNodeName) || '<none>', readinessGates,
  ];
}

const podColumns: TableColumn[] = [
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  ageColumn,
  column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
  column('Node', 'string', 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename', 1),
  column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.', 1),
  column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates', 1),
];

/**
 * podStrategy.CheckGracefulDelete: the grace asked for, else spec.terminationGracePeriodSeconds;
 * none for a pod no kubelet runs (not bound to a node) or one that has finished.
 */
function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = specOf(pod);
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
  if (!str(spec.nodeName)) period = 0;
  const phase = statusOf(pod).phase;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

export const pods: KindDefinition = {
  group: '', version: 'v1', resource: 'pods',
  generation: true,
  deleteReturnsObject: true,
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    defaults: (pod) => defaultPod(pod as Json),
    normalize: (pod) => convertPodStatusIPs(pod as Json),
    prepareForCreate(pod, warn) {
      preparePodForCreate(pod as Json);
      for (const w of applyAppArmorVersionSkew(pod as Json)) warn?.(w);
    },
    validate: (pod) => validatePodCreate(pod as Json, { resourceIsPod: true }),
    validateUpdate: (pod, old) => validatePodUpdate(pod as Json, old as Json, { ...validationOptionsFor(specOf(old), old.metadata.annotations), resourceIsPod: true }),
    // kube skips warnings on pod updates: people rarely write pods, controllers write them often.
    warningsOnCreate: (pod) => [
      ...dnsLabelNameWarning(pod.metadata.name, "the Pod's hostname"),
      ...podWarnings(pod as Json),
    ],
  },
  checkGracefulDelete: podGracePeriod,
  subresourceStrategies: { status: statusStrategy, ephemeralcontainers: ephemeralContainersStrategy, resize: resizeStrategy },
  admission: [limitRangerAdmission, serviceAccountAdmission, podSecurityAdmission, priorityAdmission, defaultTolerationSecondsAdmission],
  table: { columns: podColumns, cells: (pod) => podCells(pod), rowConditions: podRowConditions },
  selectableFields: {
    'spec.nodeName': (pod) => str(specOf(pod).nodeName),
    'spec.restartPolicy': (pod) => str(specOf(pod).restartPolicy),
    'spec.schedulerName': (pod) => str(specOf(pod).schedulerName),
    'spec.serviceAccountName': (pod) => str(specOf(pod).serviceAccountName),
    'spec.hostNetwork': (pod) => String(specOf(pod).hostNetwork === true),
    'status.phase': (pod) => str(statusOf(pod).phase),
    'status.podIP': (pod) => str(obj(list(statusOf(pod).podIPs)[0]).ip),
    'status.nominatedNodeName': (pod) => str(statusOf(pod).nominatedNodeName),
  },
};
