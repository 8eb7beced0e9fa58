/**
 * kube's scheme defaulting of a pod spec (pkg/apis/core/v1 SetDefaults_PodSpec and everything
 * SetObjectDefaults_PodTemplate walks: volumes and their sources, containers of every kind,
 * ports, env, probes, lifecycle handlers, resource lists), plus the Pod-only SetDefaults_Pod.
 * Only real defaults live here; fields Go always serializes come from the generic zero fill.
 */
import { canonicalQuantity, parseQuantity, scaledValue } from '../../../validation/quantity.js';
import { child, isObject, objs, str, type JsonObject } from './util.js';

/** parsers.ParseImageName's tag: `latest` when neither a tag nor a digest is given, '' when unparsable. */
export function imageTag(image: string): string {
  if (image === '' || /\s/.test(image)) return '';
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : '';
  const repo = colon > slash ? named.slice(0, colon) : named;
  // A reference whose repository is not lower case does not parse; kube then assumes no tag.
  const path = repo.includes('/') && /[.:]|^localhost$/.test(repo.split('/')[0]) ? repo.slice(repo.indexOf('/') + 1) : repo;
  if (path === '' || path !== path.toLowerCase()) return '';
  if (tag === '' && at < 0) return 'latest';
  return tag;
}

/** SetDefaults_ResourceList: values are rounded up to milli precision. */
export function defaultResourceList(list: unknown): void {
  if (!isObject(list)) return;
  for (const [k, v] of Object.entries(list)) {
    if (typeof v !== 'string') continue;
    const q = parseQuantity(v);
    if (!q || q.exponent >= -3) continue;
    const milli = scaledValue(q, -3);
    if (milli * 10n ** BigInt(-3 - q.exponent) === q.mantissa) continue;
    list[k] = canonicalQuantity({ mantissa: milli, exponent: -3, format: q.format, internal: { kind: 'dec' }, cached: '' });
  }
}

function defaultFieldRef(ref: unknown): void {
  if (isObject(ref) && !ref.apiVersion) ref.apiVersion = 'v1';
}

function defaultHTTPGet(action: unknown): void {
  if (!isObject(action)) return;
  if (!action.path) action.path = '/';
  if (!action.scheme) action.scheme = 'HTTP';
}

function defaultProbe(probe: unknown): void {
  if (!isObject(probe)) return;
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  defaultHTTPGet(probe.httpGet);
  // GRPCAction.service is `+default=""` and not omitempty: an unset one becomes "".
  if (isObject(probe.grpc) && (probe.grpc.service === undefined || probe.grpc.service === null)) probe.grpc.service = '';
}

/** SetDefaults_Container (and the generated walk of its ports, env, resources, probes, lifecycle). */
export function defaultContainer(c: JsonObject): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(str(c.image)) === 'latest' ? 'Always' : 'IfNotPresent';
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  for (const p of objs(c.ports)) if (!p.protocol) p.protocol = 'TCP';
  for (const e of objs(c.env)) if (isObject(e.valueFrom)) defaultFieldRef(e.valueFrom.fieldRef);
  if (isObject(c.resources)) {
    defaultResourceList(c.resources.limits);
    defaultResourceList(c.resources.requests);
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObject(c.lifecycle)) {
    for (const h of [c.lifecycle.postStart, c.lifecycle.preStop]) if (isObject(h)) defaultHTTPGet(h.httpGet);
  }
}

const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

/** SetDefaults_Volume and the defaults of each volume source. */
export function defaultVolume(v: JsonObject): void {
  if (!volumeSources.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  if (isObject(v.hostPath) && (v.hostPath.type === undefined || v.hostPath.type === null)) v.hostPath.type = '';
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = v[key];
    if (isObject(src) && (src.defaultMode === undefined || src.defaultMode === null)) src.defaultMode = 0o644;
  }
  if (isObject(v.downwardAPI)) for (const item of objs(v.downwardAPI.items)) defaultFieldRef(item.fieldRef);
  if (isObject(v.projected)) {
    for (const s of objs(v.projected.sources)) {
      if (isObject(s.downwardAPI)) for (const item of objs(s.downwardAPI.items)) defaultFieldRef(item.fieldRef);
      if (isObject(s.serviceAccountToken) && (s.serviceAccountToken.expirationSeconds === undefined || s.serviceAccountToken.expirationSeconds === null)) {
        s.serviceAccountToken.expirationSeconds = 3600;
      }
    }
  }
  if (isObject(v.iscsi) && !v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = 'default';
  if (isObject(v.rbd)) {
    if (!v.rbd.pool) v.rbd.pool = 'rbd';
    if (!v.rbd.user) v.rbd.user = 'admin';
    if (!v.rbd.keyring) v.rbd.keyring = '/etc/ceph/keyring';
  }
  if (isObject(v.azureDisk)) {
    const d = v.azureDisk;
    if (d.cachingMode === undefined || d.cachingMode === null) d.cachingMode = 'ReadWrite';
    if (d.fsType === undefined || d.fsType === null) d.fsType = 'ext4';
    if (d.readOnly === undefined || d.readOnly === null) d.readOnly = false;
    if (d.kind === undefined || d.kind === null) d.kind = 'Shared';
  }
  if (isObject(v.scaleIO)) {
    if (!v.scaleIO.storageMode) v.scaleIO.storageMode = 'ThinProvisioned';
    if (!v.scaleIO.fsType) v.scaleIO.fsType = 'xfs';
  }
  if (isObject(v.image) && !v.image.pullPolicy) v.image.pullPolicy = imageTag(str(v.image.reference)) === 'latest' ? 'Always' : 'IfNotPresent';
  if (isObject(v.ephemeral) && isObject(v.ephemeral.volumeClaimTemplate)) {
    const spec = v.ephemeral.volumeClaimTemplate.spec;
    if (isObject(spec)) {
      if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
      if (isObject(spec.resources)) {
        defaultResourceList(spec.resources.limits);
        defaultResourceList(spec.resources.requests);
      }
    }
  }
}

/**
 * v1's deprecated `serviceAccount` mirrors `serviceAccountName` (kube's conversion through the
 * internal type, which has only the latter): either one set gives both.
 */
export function mirrorServiceAccount(spec: JsonObject): void {
  const name = str(spec.serviceAccountName) || str(spec.serviceAccount);
  if (name) {
    spec.serviceAccountName = name;
    spec.serviceAccount = name;
  } else {
    delete spec.serviceAccountName;
    delete spec.serviceAccount;
  }
}

/** SetDefaults_PodSpec and the generated walk of a PodTemplate's spec. */
export function defaultPodSpec(spec: JsonObject): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  for (const v of objs(spec.volumes)) defaultVolume(v);
  for (const c of objs(spec.initContainers)) defaultContainer(c);
  for (const c of objs(spec.containers)) defaultContainer(c);
  for (const c of objs(spec.ephemeralContainers)) defaultContainer(c);
  defaultResourceList(spec.overhead);
  if (isObject(spec.resources)) {
    defaultResourceList(spec.resources.limits);
    defaultResourceList(spec.resources.requests);
  }
  mirrorServiceAccount(spec);
}

/** Defaults of a pod template (metadata needs none; its spec gets defaultPodSpec). */
export function defaultPodTemplateSpec(template: JsonObject): void {
  defaultPodSpec(child(template, 'spec'));
}

/** Requests default to limits for each resource only limited (SetDefaults_Pod, not for templates). */
function requestsFromLimits(c: JsonObject): void {
  const resources = c.resources;
  if (!isObject(resources) || !isObject(resources.limits)) return;
  const requests = child(resources, 'requests');
  for (const [k, v] of Object.entries(resources.limits)) if (!(k in requests)) requests[k] = v;
}

/** SetDefaults_Pod: what only a Pod (not a template) gets, on top of defaultPodSpec. */
export function defaultPod(pod: JsonObject): void {
  const spec = child(pod, 'spec');
  for (const c of objs(spec.containers)) requestsFromLimits(c);
  for (const c of objs(spec.initContainers)) requestsFromLimits(c);
  defaultPodLevelResources(spec);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true) {
    for (const c of [...objs(spec.containers), ...objs(spec.initContainers)]) {
      for (const p of objs(c.ports)) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
  defaultPodSpec(spec);
}

/** Resources pod-level requests and limits may name (IsSupportedPodLevelResource). */
const podLevelResources = new Set(['cpu', 'memory']);
const isHugePages = (name: string) => name.startsWith('hugepages-');

/**
 * PodLevelResources (on by default since 1.34): pod-level requests default from the containers'
 * aggregate (or the pod-level limits), pod-level limits from containers that all set one.
 */
function defaultPodLevelResources(spec: JsonObject): void {
  const resources = spec.resources;
  if (!isObject(resources)) return;
  const limits = isObject(resources.limits) ? resources.limits : undefined;
  const requests = isObject(resources.requests) ? resources.requests : undefined;
  const hasLimits = !!limits && Object.keys(limits).length > 0;
  const hasRequests = !!requests && Object.keys(requests).length > 0;
  if (hasLimits) {
    const podReqs: JsonObject = { ...(requests ?? {}) };
    const aggregate = aggregateContainerResources(spec, 'requests');
    for (const [k, q] of aggregate) if (!(k in podReqs) && podLevelResources.has(k) && !isHugePages(k)) podReqs[k] = q;
    for (const [k, q] of Object.entries(limits!)) if (!(k in podReqs) && (podLevelResources.has(k) || isHugePages(k))) podReqs[k] = q;
    if (Object.keys(podReqs).length > 0) resources.requests = podReqs;
  } else if (hasRequests) {
    const podLims: JsonObject = {};
    const aggregate = aggregateContainerResources(spec, 'limits');
    const all = [...objs(spec.containers), ...objs(spec.initContainers)];
    for (const [k, q] of aggregate) {
      if (!podLevelResources.has(k)) continue;
      if (all.every((c) => isObject(c.resources) && isObject(c.resources.limits) && k in c.resources.limits)) podLims[k] = q;
    }
    if (Object.keys(podLims).length > 0) resources.limits = podLims;
  }
}

/** AggregateContainerRequests/Limits: the sum over regular (and sidecar) containers, or the largest init container's. */
function aggregateContainerResources(spec: JsonObject, which: 'requests' | 'limits'): Map<string, string> {
  const sum = new Map<string, { mantissa: bigint; exponent: number; format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent' }>();
  const add = (name: string, value: string, max = false) => {
    const q = parseQuantity(value);
    if (!q) return;
    const cur = sum.get(name);
    if (!cur) { sum.set(name, { mantissa: q.mantissa, exponent: q.exponent, format: q.format }); return; }
    const e = Math.min(cur.exponent, q.exponent);
    const a = cur.mantissa * 10n ** BigInt(cur.exponent - e);
    const b = q.mantissa * 10n ** BigInt(q.exponent - e);
    sum.set(name, { mantissa: max ? (a > b ? a : b) : a + b, exponent: e, format: cur.format });
  };
  for (const c of objs(spec.containers)) {
    const list = isObject(c.resources) ? c.resources[which] : undefined;
    for (const [k, v] of Object.entries(isObject(list) ? list : {})) add(k, str(v));
  }
  for (const c of objs(spec.initContainers)) {
    const list = isObject(c.resources) ? c.resources[which] : undefined;
    for (const [k, v] of Object.entries(isObject(list) ? list : {})) add(k, str(v), c.restartPolicy !== 'Always');
  }
  const out = new Map<string, string>();
  for (const [k, q] of sum) out.set(k, canonicalQuantity({ ...q, internal: { kind: 'dec' }, cached: '' }));
  return out;
}
