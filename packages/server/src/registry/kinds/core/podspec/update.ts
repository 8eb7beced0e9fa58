/**
 * What a Pod update may change (ValidatePodUpdate), what a status write may say
 * (ValidatePodStatusUpdate), and how ephemeral containers are added
 * (ValidatePodEphemeralContainersUpdate).
 */
import { fieldErr, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import { validateTolerations } from '../../../validation/tolerations.js';
import { containerFields, internalPodSpec, podSpecFields, structDiff } from './godiff.js';
import { qualifiedNameErrors, isIPSloppy, validateIP } from './names.js';
import { validatePodMeta, type PodValidationOptions } from './pod.js';
import { deepEqual, duplicate, inclusiveRangeError, invalidRepr, isObject, obj, objs, str, type JsonObject } from './util.js';

const updatableFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

const maxInt32 = 2147483647;

function containerUpdates(next: unknown, prev: unknown, path: string): { errs: FieldError[]; stop: boolean } {
  const n = objs(next), o = objs(prev);
  if (n.length !== o.length) return { errs: [fieldErr.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  n.forEach((c, i) => {
    const image = str(c.image);
    if (!image) errs.push(fieldErr.required(`${path}[${i}].image`));
    if (image.trim().length !== image.length) errs.push(fieldErr.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** validateOnlyAddedTolerations: existing tolerations may only change their tolerationSeconds. */
function onlyAddedTolerations(next: unknown, prev: unknown, path: string): FieldError[] {
  const n = objs(next);
  for (const old of objs(prev)) {
    const found = n.some((t) => deepEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [fieldErr.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}

function onlyDeletedSchedulingGates(next: unknown, prev: unknown, path: string): FieldError[] {
  const n = objs(next);
  if (n.length === 0) return [];
  const old = new Set(objs(prev).map((g) => str(g.name)));
  const errs: FieldError[] = [];
  n.forEach((g, i) => {
    if (!old.has(str(g.name))) errs.push(fieldErr.forbidden(`${path}[${i}].name`, `only deletion is allowed, but found new scheduling gate '${str(g.name)}'`));
  });
  return errs;
}

/** ValidatePodUpdate: the spec is immutable but for images, deadlines, added tolerations and removed gates. */
export function validatePodUpdate(pod: JsonObject, old: JsonObject, opts: PodValidationOptions): FieldError[] {
  const spec = obj(pod.spec), oldSpec = obj(old.spec);
  const errs = validatePodMeta(pod, opts);
  errs.push(...podAnnotationUpdates(pod, old));
  for (const list of ['containers', 'initContainers']) {
    const { errs: e, stop } = containerUpdates(spec[list], oldSpec[list], `spec.${list}`);
    errs.push(...e);
    if (stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds, oldAds = oldSpec.activeDeadlineSeconds;
  if (typeof ads === 'number') {
    if (ads < 0 || ads > maxInt32) return [...errs, fieldErr.invalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(0, maxInt32))];
    if (typeof oldAds === 'number' && oldAds < ads) return [...errs, fieldErr.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value')];
  } else if (typeof oldAds === 'number') {
    errs.push(fieldErr.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...onlyAddedTolerations(spec.tolerations, oldSpec.tolerations, 'spec.tolerations'));
  errs.push(...onlyDeletedSchedulingGates(spec.schedulingGates, oldSpec.schedulingGates, 'spec.schedulingGates'));
  const newInternal = internalPodSpec(spec), oldInternal = internalPodSpec(oldSpec);
  if (deepEqual(newInternal, oldInternal)) return errs;
  const munged: JsonObject = structuredClone(newInternal);
  const mungeImages = (list: string) => {
    if (!Array.isArray(munged[list])) return;
    munged[list] = objs(munged[list]).map((c, i) => ({ ...c, image: objs(oldInternal[list])[i]?.image }));
  };
  mungeImages('containers');
  mungeImages('initContainers');
  munged.activeDeadlineSeconds = oldInternal.activeDeadlineSeconds;
  munged.schedulingGates = oldInternal.schedulingGates;
  munged.tolerations = oldInternal.tolerations;
  if (typeof oldInternal.terminationGracePeriodSeconds === 'number' && oldInternal.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldInternal.terminationGracePeriodSeconds;
  }
  if (objs(oldSpec.schedulingGates).length > 0) mungeGatedScheduling(munged, oldInternal, errs);
  for (const k of Object.keys(munged)) if (munged[k] === undefined) delete munged[k];
  if (!deepEqual(munged, oldInternal)) {
    const diff = structDiff('core.PodSpec', oldInternal, munged, podSpecFields);
    errs.push(fieldErr.forbidden('spec', `pod updates may not change fields other than ${updatableFields.join(',')}\n${diff}`));
  }
  return errs;
}

/** Gated pods may gain node selectors and node-affinity requirements (no mutations or deletions). */
function mungeGatedScheduling(munged: JsonObject, old: JsonObject, errs: FieldError[]): void {
  if (!deepEqual(munged.nodeSelector, old.nodeSelector)) {
    const next = obj(munged.nodeSelector);
    for (const [k, v] of Object.entries(obj(old.nodeSelector))) {
      if (next[k] !== v) {
        errs.push(invalidRepr('spec.nodeSelector', `map[string]string{${Object.entries(next).sort().map(([a, b]) => `${JSON.stringify(a)}:${JSON.stringify(b)}`).join(', ')}}`, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
        break;
      }
    }
    munged.nodeSelector = old.nodeSelector;
  }
  const oldNA = obj(old.affinity).nodeAffinity;
  const newNA = obj(munged.affinity).nodeAffinity;
  if (!deepEqual(oldNA, newNA)) {
    const oldTerms = objs(obj(obj(oldNA).requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms);
    const newTerms = objs(obj(obj(newNA).requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms);
    const p = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
    if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) errs.push(invalidRepr(p, '[]core.NodeSelectorTerm{...}', 'no additions/deletions to non-empty NodeSelectorTerms list are allowed'));
    else {
      oldTerms.forEach((t, i) => {
        const nt = newTerms[i];
        const prefixKept = (field: string) => {
          const o = objs(t[field]), n = objs(nt?.[field]);
          return o.length === 0 || (n.length >= o.length && deepEqual(n.slice(0, o.length), o));
        };
        const emptyBefore = objs(t.matchExpressions).length === 0 && objs(t.matchFields).length === 0;
        const addedToEmpty = emptyBefore && (objs(nt?.matchExpressions).length > 0 || objs(nt?.matchFields).length > 0);
        if (addedToEmpty || !prefixKept('matchExpressions') || !prefixKept('matchFields')) {
          errs.push(invalidRepr(`${p}[${i}]`, 'core.NodeSelectorTerm{...}', 'only additions are allowed (no mutations or deletions)'));
        }
      });
    }
    const affinity: JsonObject = { ...obj(munged.affinity) };
    if (oldNA === undefined) delete affinity.nodeAffinity;
    else affinity.nodeAffinity = oldNA;
    munged.affinity = Object.keys(affinity).length === 0 && old.affinity === undefined ? undefined : affinity;
  }
}

const appArmorPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

/** ValidatePodSpecificAnnotationUpdates: AppArmor and mirror-pod annotations are fixed at creation. */
export function podAnnotationUpdates(pod: JsonObject, old: JsonObject): FieldError[] {
  const n = obj(obj(pod.metadata).annotations), o = obj(obj(old.metadata).annotations);
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k in n && n[k] === v) continue;
    if (k.startsWith(appArmorPrefix)) errs.push(fieldErr.forbidden(`metadata.annotations[${k}]`, 'may not remove or update AppArmor annotations'));
    if (k === mirrorPodAnnotation) errs.push(fieldErr.forbidden(`metadata.annotations[${k}]`, 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(n)) {
    if (k in o) continue;
    if (k.startsWith(appArmorPrefix)) errs.push(fieldErr.forbidden(`metadata.annotations[${k}]`, 'may not add AppArmor annotations'));
    if (k === mirrorPodAnnotation) errs.push(fieldErr.forbidden(`metadata.annotations[${k}]`, 'may not add mirror pod annotation'));
  }
  return errs;
}

const systemConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);

function terminated(status: JsonObject): JsonObject | undefined {
  const t = obj(status.state).terminated;
  return isObject(t) ? t : undefined;
}

function stateTransitions(next: unknown, prev: unknown, path: string, restartPolicy: string, restartable: Set<string> = new Set()): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  objs(prev).forEach((old, i) => {
    const t = terminated(old);
    if (!t) return;
    if (typeof t.exitCode === 'number' && t.exitCode !== 0 && restartPolicy === 'OnFailure') return;
    if (restartable.has(str(old.name))) return;
    for (const s of objs(next)) {
      if (str(s.name) === str(old.name) && !terminated(s)) errs.push(fieldErr.forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

function ipFamily(ip: string): 4 | 6 {
  return ip.includes(':') ? 6 : 4;
}

function validateIPList(list: unknown, path: string, label: string): FieldError[] {
  const entries = objs(list);
  const errs: FieldError[] = [];
  entries.forEach((e, i) => errs.push(...validateIP(str(e.ip), `${path}[${i}]`)));
  if (entries.length > 1 && entries.every((e) => isIPSloppy(str(e.ip)))) {
    const families = new Set(entries.map((e) => ipFamily(str(e.ip))));
    if (families.size !== 2 || entries.length > 2) errs.push(invalidRepr(path, `[]core.${label}{...}`, 'may specify no more than one IP for each IP family'));
    const seen = new Set<string>();
    entries.forEach((e, i) => {
      if (seen.has(str(e.ip))) errs.push(duplicate(`${path}[${i}]`, `core.${label}{IP:${JSON.stringify(str(e.ip))}}`));
      seen.add(str(e.ip));
    });
  }
  return errs;
}

/** ValidatePodStatusUpdate (object metadata is validated generically). */
export function validatePodStatusUpdate(pod: JsonObject, old: JsonObject): FieldError[] {
  const errs = podAnnotationUpdates(pod, old);
  const status = obj(pod.status), oldStatus = obj(old.status);
  const spec = obj(pod.spec), oldSpec = obj(old.spec);
  objs(status.conditions).forEach((c, i) => {
    if (!systemConditions.has(str(c.type))) errs.push(...qualifiedNameErrors(str(c.type), `metadata.conditions[${i}].Type`));
  });
  if (str(spec.nodeName) !== str(oldSpec.nodeName)) errs.push(fieldErr.forbidden('status.nodeName', 'may not be changed directly'));
  const nominated = str(status.nominatedNodeName);
  if (nominated !== str(oldStatus.nominatedNodeName) && nominated) {
    for (const msg of isDNS1123Subdomain(nominated)) errs.push(fieldErr.invalid('status.nominatedNodeName', nominated, msg));
  }
  if (str(status.qosClass) !== str(oldStatus.qosClass)) errs.push(fieldErr.invalid('status.qosClass', str(status.qosClass), 'field is immutable'));
  const restartPolicy = str(oldSpec.restartPolicy);
  errs.push(...stateTransitions(status.containerStatuses, oldStatus.containerStatuses, 'status.containerStatuses', restartPolicy));
  const restartable = new Set(objs(oldSpec.initContainers).filter((c) => c.restartPolicy === 'Always').map((c) => str(c.name)));
  errs.push(...stateTransitions(status.initContainerStatuses, oldStatus.initContainerStatuses, 'status.initContainerStatuses', restartPolicy, restartable));
  errs.push(...stateTransitions(status.ephemeralContainerStatuses, oldStatus.ephemeralContainerStatuses, 'status.ephemeralContainerStatuses', 'Never'));
  const claims = new Set(objs(spec.resourceClaims).map((c) => str(c.name)));
  const claimNames = new Set<string>();
  objs(status.resourceClaimStatuses).forEach((s, i) => {
    const p = `status.resourceClaimStatuses[${i}].name`;
    if (!claims.has(str(s.name))) errs.push(fieldErr.invalid(p, str(s.name), 'must match the name of an entry in `spec.resourceClaims`'));
    if (claimNames.has(str(s.name))) errs.push(duplicate(p, str(s.name)));
    claimNames.add(str(s.name));
  });
  errs.push(...validateIPList(status.podIPs, 'status.podIPs', 'PodIP'));
  const hostIPs = objs(status.hostIPs);
  if (hostIPs.length > 0) {
    if (str(status.hostIP) !== str(hostIPs[0].ip)) errs.push(fieldErr.invalid('status.hostIPs[0].ip', str(hostIPs[0].ip), 'must be equal to `hostIP`'));
    errs.push(...validateIPList(status.hostIPs, 'status.hostIPs', 'HostIP'));
  }
  objs(status.ephemeralContainerStatuses).forEach((s, i) => {
    if (Array.isArray(s.allocatedResourcesStatus) && s.allocatedResourcesStatus.length > 0) {
      errs.push(fieldErr.forbidden(`status.ephemeralContainerStatuses[${i}].allocatedResourcesStatus`, 'must not be specified in container status'));
    }
  });
  return errs;
}

/** ValidatePodEphemeralContainersUpdate: the pod is valid and existing ephemeral containers are unchanged. */
export function validatePodEphemeralContainersUpdate(pod: JsonObject, old: JsonObject, opts: PodValidationOptions): FieldError[] {
  const errs = validatePodMeta(pod, opts);
  errs.push(...podAnnotationUpdates(pod, old));
  if (mirrorPodAnnotation in obj(obj(old.metadata).annotations)) return [fieldErr.forbidden('', 'static pods do not support ephemeral containers')];
  const byName = new Map(objs(obj(pod.spec).ephemeralContainers).map((c) => [str(c.name), c]));
  for (const prev of objs(obj(old.spec).ephemeralContainers)) {
    const next = byName.get(str(prev.name));
    if (!next) errs.push(fieldErr.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(str(prev.name))} may not be removed\n`));
    else if (!deepEqual(prev, next)) {
      const diff = structDiff('core.EphemeralContainer', prev, next, [...containerFields, 'targetContainerName']);
      errs.push(fieldErr.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(str(prev.name))} may not be changed\n${diff}`));
    }
  }
  return errs;
}
