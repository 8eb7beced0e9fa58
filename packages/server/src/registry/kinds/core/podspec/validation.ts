/**
 * ValidatePodSpec and ValidatePodTemplateSpec (pkg/apis/core/validation), the pod-specific
 * annotations, and the validation options kube derives from the old object on update.
 */
import { fieldErr, isDNS1123Subdomain, isValidLabelValue, validateAnnotations, validateLabels, type FieldError } from '@windlass/machinery';
import { validateTolerations } from '../../../validation/tolerations.js';
import { validateContainers, validateEphemeralContainers, validateInitContainers } from './containers.js';
import { validateContainerResources, validatePodResources } from './resources.js';
import {
  claimNamesOf, validateAffinity, validateDNSConfig, validateHostAliases, validateOS, validatePodResourceClaims,
  validateReadinessGates, validateSchedulingGates, validateTopologySpreadConstraints,
} from './scheduling.js';
import { validateHostUsers, validateLinux, validatePodSecurityContext, validateWindows, validateWindowsHostProcess } from './securitycontext.js';
import { isDNS1123LabelErrors } from './names.js';
import { localDescendingPath, validateVolumes } from './volumes.js';
import { inclusiveRangeError, isObject, isSet, obj, objs, str, visitContainers, type JsonObject } from './util.js';

/** PodValidationOptions: what kube relaxes for objects that already had such values. */
export interface PodValidationOptions {
  resourceIsPod?: boolean;
  allowInvalidPodDeletionCost?: boolean;
  allowInvalidLabelValueInSelector?: boolean;
  allowInvalidLabelValueInRequiredNodeAffinity?: boolean;
  allowIndivisibleHugePagesValues?: boolean;
  allowInvalidTopologySpreadConstraintLabelSelector?: boolean;
  allowNonLocalProjectedTokenPath?: boolean;
  allowNamespacedSysctlsForHostNetAndHostIPC?: boolean;
}

const maxInt32 = 2147483647;

/** ValidatePodSpec. `podName` is set for Pods (generic ephemeral volumes name their claims after it). */
export function validatePodSpec(spec: JsonObject, podName: string | undefined, path: string, opts: PodValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const tgps = spec.terminationGracePeriodSeconds;
  if (!isSet(tgps)) errs.push(fieldErr.required(`${path}.terminationGracePeriodSeconds`));
  const gracePeriod = typeof tgps === 'number' ? tgps : undefined;
  const hostUsers = spec.hostUsers !== false;
  const restartPolicy = str(spec.restartPolicy);
  const { vols, errs: volErrs } = validateVolumes(spec.volumes, podName, `${path}.volumes`, opts);
  errs.push(...volErrs);
  const claimNames = claimNamesOf(spec.resourceClaims);
  errs.push(...validatePodResourceClaims(spec.resourceClaims, `${path}.resourceClaims`));
  const copts = { gracePeriod, restartPolicy, hostUsers, claimNames, allowIndivisibleHugePagesValues: opts.allowIndivisibleHugePagesValues };
  errs.push(...validateContainers(spec.containers, vols, `${path}.containers`, copts));
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, vols, `${path}.initContainers`, copts));
  errs.push(...validateEphemeralContainers(spec.ephemeralContainers, spec.containers, spec.initContainers, vols, `${path}.ephemeralContainers`, copts));
  errs.push(...validatePodResources(spec, claimNames, `${path}.resources`, opts));
  errs.push(...validateHostNetworkDeps(spec, path, !!opts.resourceIsPod));
  errs.push(...validateRestartPolicy(restartPolicy, `${path}.restartPolicy`));
  errs.push(...validateDNSPolicy(str(spec.dnsPolicy), `${path}.dnsPolicy`));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validatePodSecurityContext(spec, `${path}.securityContext`, opts));
  errs.push(...validateAffinity(spec.affinity, opts, `${path}.affinity`));
  errs.push(...validateDNSConfig(spec.dnsConfig, str(spec.dnsPolicy), `${path}.dnsConfig`));
  errs.push(...validateReadinessGates(spec.readinessGates, `${path}.readinessGates`));
  errs.push(...validateSchedulingGates(spec.schedulingGates, `${path}.schedulingGates`));
  errs.push(...validateTopologySpreadConstraints(spec.topologySpreadConstraints, opts, `${path}.topologySpreadConstraints`));
  errs.push(...validateWindowsHostProcess(spec, path));
  errs.push(...validateHostUsers(spec, path));
  const subdomain = (field: string) => {
    const v = str(spec[field]);
    if (v) for (const msg of isDNS1123Subdomain(v)) errs.push(fieldErr.invalid(`${path}.${field}`, v, msg));
  };
  subdomain('serviceAccountName');
  subdomain('nodeName');
  if (typeof spec.activeDeadlineSeconds === 'number' && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > maxInt32)) {
    errs.push(fieldErr.invalid(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, inclusiveRangeError(1, maxInt32)));
  }
  if (str(spec.hostname)) errs.push(...isDNS1123LabelErrors(str(spec.hostname), `${path}.hostname`));
  if (str(spec.subdomain)) errs.push(...isDNS1123LabelErrors(str(spec.subdomain), `${path}.subdomain`));
  if (objs(spec.tolerations).length > 0) errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  if (objs(spec.hostAliases).length > 0) errs.push(...validateHostAliases(spec.hostAliases, `${path}.hostAliases`));
  subdomain('priorityClassName');
  if (typeof spec.runtimeClassName === 'string') {
    for (const msg of isDNS1123Subdomain(spec.runtimeClassName)) errs.push(fieldErr.invalid(`${path}.runtimeClassName`, spec.runtimeClassName, msg));
  }
  if (typeof spec.preemptionPolicy === 'string') {
    const pp = spec.preemptionPolicy;
    if (pp === '') errs.push(fieldErr.required(`${path}.preemptionPolicy`));
    else if (pp !== 'PreemptLowerPriority' && pp !== 'Never') errs.push(fieldErr.notSupported(`${path}.preemptionPolicy`, pp, ['PreemptLowerPriority', 'Never']));
  }
  if (isObject(spec.overhead)) {
    errs.push(...validatePodResourcesOverhead(spec.overhead, `${path}.overhead`, claimNames, opts));
  }
  if (isObject(spec.os)) {
    const osErrs = validateOS(spec.os, `${path}.os`);
    if (osErrs.length > 0) errs.push(...osErrs);
    else if (spec.os.name === 'linux') errs.push(...validateLinux(spec, path));
    else if (spec.os.name === 'windows') errs.push(...validateWindows(spec, path));
  }
  return errs;
}


function validatePodResourcesOverhead(overhead: JsonObject, path: string, claimNames: Set<string>, opts: PodValidationOptions): FieldError[] {
  return validateContainerResources({ limits: overhead }, claimNames, path, opts);
}

function validateRestartPolicy(policy: string, path: string): FieldError[] {
  if (policy === '') return [fieldErr.required(path)];
  return ['Always', 'OnFailure', 'Never'].includes(policy) ? [] : [fieldErr.notSupported(path, policy, ['Always', 'OnFailure', 'Never'])];
}

function validateDNSPolicy(policy: string, path: string): FieldError[] {
  const supported = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
  if (policy === '') return [fieldErr.required(path)];
  return supported.includes(policy) ? [] : [fieldErr.notSupported(path, policy, supported)];
}

/** validatePodHostNetworkDeps: with hostNetwork a Pod's hostPort must equal its containerPort (a template may leave it 0). */
function validateHostNetworkDeps(spec: JsonObject, path: string, resourceIsPod: boolean): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  objs(spec.containers).forEach((c, i) => {
    objs(c.ports).forEach((port, j) => {
      const hp = typeof port.hostPort === 'number' ? port.hostPort : 0;
      const cp = typeof port.containerPort === 'number' ? port.containerPort : 0;
      if ((resourceIsPod || hp !== 0) && hp !== cp) {
        errs.push(fieldErr.invalid(`${path}.containers[${i}].ports[${j}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
const tolerationsAnnotation = 'scheduler.alpha.kubernetes.io/tolerations';
const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';
const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerPrefix = 'container.seccomp.security.alpha.kubernetes.io/';
const appArmorPrefix = 'container.apparmor.security.beta.kubernetes.io/';

function validSeccompAnnotation(p: string, path: string): FieldError[] {
  if (p === 'runtime/default' || p === 'docker/default' || p === 'unconfined') return [];
  if (p.startsWith('localhost/')) return localDescendingPath(p.slice('localhost/'.length), path);
  return [fieldErr.invalid(path, p, 'must be a valid seccomp profile')];
}

function podHasContainer(spec: JsonObject, name: string): boolean {
  let found = false;
  visitContainers(spec, (c) => { if (str(c.name) === name) found = true; });
  return found;
}

function deletionCostValid(value: string): boolean {
  if (!/^(-?[1-9][0-9]*|0)$/.test(value)) return false;
  const n = Number(value);
  return n >= -2147483648 && n <= maxInt32;
}

/** ValidatePodSpecificAnnotations (path: the annotations field, e.g. `metadata.annotations`). */
export function validatePodSpecificAnnotations(annotations: unknown, spec: JsonObject, path: string, opts: PodValidationOptions): FieldError[] {
  const a = obj(annotations);
  const errs: FieldError[] = [];
  if (mirrorPodAnnotation in a && !str(spec.nodeName)) {
    errs.push(fieldErr.invalid(`${path}[${mirrorPodAnnotation}]`, str(a[mirrorPodAnnotation]), 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (str(a[tolerationsAnnotation]) !== '') {
    let tolerations: unknown;
    try {
      tolerations = JSON.parse(str(a[tolerationsAnnotation]));
    } catch (err) {
      errs.push(fieldErr.invalid(path, tolerationsAnnotation, (err as Error).message));
    }
    if (Array.isArray(tolerations) && tolerations.length > 0) errs.push(...validateTolerations(tolerations, `${path}.${tolerationsAnnotation}`));
  }
  if (!opts.allowInvalidPodDeletionCost && deletionCostAnnotation in a && !deletionCostValid(str(a[deletionCostAnnotation]))) {
    errs.push(fieldErr.invalid(`${path}[${deletionCostAnnotation}]`, str(a[deletionCostAnnotation]), 'must be a 32bit integer'));
  }
  if (seccompPodAnnotation in a) errs.push(...validSeccompAnnotation(str(a[seccompPodAnnotation]), `${path}.${seccompPodAnnotation}`));
  for (const [k, v] of Object.entries(a).sort(([x], [y]) => (x < y ? -1 : 1))) {
    if (k.startsWith(seccompContainerPrefix)) errs.push(...validSeccompAnnotation(str(v), `${path}.${k}`));
  }
  for (const [k, v] of Object.entries(a).sort(([x], [y]) => (x < y ? -1 : 1))) {
    if (!k.startsWith(appArmorPrefix)) continue;
    const containerName = k.slice(appArmorPrefix.length);
    if (!podHasContainer(spec, containerName)) errs.push(fieldErr.invalid(`${path}[${k}]`, containerName, 'container not found'));
    const p = str(v);
    if (!(p === '' || p === 'runtime/default' || p === 'unconfined' || p.startsWith('localhost/'))) {
      errs.push(fieldErr.invalid(`${path}[${k}]`, p, `invalid AppArmor profile name: ${JSON.stringify(p)}`));
    }
  }
  return errs;
}

/** validateSeccompAnnotationsAndFields: when both an annotation and a field say something, they must agree. */
export function validateSeccompAnnotationsAndFields(annotations: unknown, spec: JsonObject, path: string): FieldError[] {
  const a = obj(annotations);
  const errs: FieldError[] = [];
  const check = (annotation: string, sp: JsonObject, p: string) => {
    const type = str(sp.type);
    if (type === 'Unconfined' && annotation !== 'unconfined') errs.push(fieldErr.forbidden(`${p}.type`, 'seccomp type in annotation and field must match'));
    if (type === 'RuntimeDefault' && annotation !== 'runtime/default' && annotation !== 'docker/default') errs.push(fieldErr.forbidden(`${p}.type`, 'seccomp type in annotation and field must match'));
    if (type === 'Localhost') {
      if (!annotation.startsWith('localhost/')) errs.push(fieldErr.forbidden(`${p}.type`, 'seccomp type in annotation and field must match'));
      else if (!isSet(sp.localhostProfile) || annotation.slice('localhost/'.length) !== str(sp.localhostProfile)) {
        errs.push(fieldErr.forbidden(`${p}.localhostProfile`, 'seccomp profile in annotation and field must match'));
      }
    }
  };
  const podSP = obj(spec.securityContext).seccompProfile;
  if (isObject(podSP) && seccompPodAnnotation in a) check(str(a[seccompPodAnnotation]), podSP, `${path}.securityContext.seccompProfile`);
  visitContainers(spec, (c, cp) => {
    const sp = obj(c.securityContext).seccompProfile;
    const key = `${seccompContainerPrefix}${str(c.name)}`;
    if (isObject(sp) && key in a) check(str(a[key]), sp, `${cp}.securityContext.seccompProfile`);
  }, path);
  return errs;
}

/** validateAppArmorAnnotationsAndFieldsMatchOnCreate. */
export function validateAppArmorAnnotationsAndFields(annotations: unknown, spec: JsonObject, path: string): FieldError[] {
  if (obj(spec.os).name === 'windows') return [];
  const a = obj(annotations);
  const errs: FieldError[] = [];
  const podProfile = obj(spec.securityContext).appArmorProfile;
  visitContainers(spec, (c, cp) => {
    const own = obj(c.securityContext).appArmorProfile;
    const profile = isObject(own) ? own : isObject(podProfile) ? podProfile : undefined;
    if (!profile) return;
    const key = `${appArmorPrefix}${str(c.name)}`;
    if (!(key in a)) return;
    const annotation = str(a[key]);
    const p = `${cp}.securityContext.appArmorProfile`;
    switch (str(profile.type)) {
      case 'Unconfined':
        if (annotation !== 'unconfined') errs.push(fieldErr.forbidden(`${p}.type`, 'apparmor type in annotation and field must match'));
        break;
      case 'RuntimeDefault':
        if (annotation !== 'runtime/default') errs.push(fieldErr.forbidden(`${p}.type`, 'apparmor type in annotation and field must match'));
        break;
      case 'Localhost':
        if (!annotation.startsWith('localhost/')) errs.push(fieldErr.forbidden(`${p}.type`, 'apparmor type in annotation and field must match'));
        else if (!isSet(profile.localhostProfile) || annotation.slice('localhost/'.length) !== str(profile.localhostProfile)) {
          errs.push(fieldErr.forbidden(`${p}.localhostProfile`, 'apparmor profile in annotation and field must match'));
        }
    }
  }, path);
  return errs;
}

/** ValidatePodTemplateSpec: errors under `path` (e.g. `spec.template`). */
export function validatePodTemplateSpec(template: JsonObject, path: string, opts: PodValidationOptions = {}): FieldError[] {
  const meta = obj(template.metadata);
  const spec = obj(template.spec);
  const errs: FieldError[] = [];
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, `${path}.annotations`, opts));
  errs.push(...validatePodSpec(spec, undefined, `${path}.spec`, opts));
  errs.push(...validateSeccompAnnotationsAndFields(meta.annotations, spec, `${path}.spec`));
  errs.push(...validateAppArmorAnnotationsAndFields(meta.annotations, spec, `${path}.spec`));
  if (objs(spec.ephemeralContainers).length > 0) errs.push(fieldErr.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  return errs;
}

function labelSelectorHasInvalidValues(sel: unknown): boolean {
  if (!isObject(sel)) return false;
  return objs(sel.matchExpressions).some((e) => (Array.isArray(e.values) ? e.values : []).some((v) => isValidLabelValue(String(v)).length > 0));
}

/**
 * GetValidationOptionsFromPodSpecAndMeta: on update, what the old spec already used stays
 * allowed (invalid selector label values, indivisible huge pages, non-local token paths,
 * namespaced sysctls with host namespaces, invalid spread selectors).
 */
export function validationOptionsFor(oldSpec: JsonObject | undefined, oldAnnotations?: unknown): PodValidationOptions {
  const opts: PodValidationOptions = {};
  if (!oldSpec) return opts;
  const affinity = obj(oldSpec.affinity);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity[kind]);
    const terms = [...objs(a.requiredDuringSchedulingIgnoredDuringExecution), ...objs(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => obj(w.podAffinityTerm))];
    if (terms.some((t) => labelSelectorHasInvalidValues(t.labelSelector) || labelSelectorHasInvalidValues(t.namespaceSelector))) opts.allowInvalidLabelValueInSelector = true;
  }
  const required = obj(obj(affinity.nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  if (objs(required.nodeSelectorTerms).some((t) => objs(t.matchExpressions).some((e) => (Array.isArray(e.values) ? e.values : []).some((v) => isValidLabelValue(String(v)).length > 0)))) {
    opts.allowInvalidLabelValueInRequiredNodeAffinity = true;
  }
  if (objs(oldSpec.topologySpreadConstraints).some((c) => labelSelectorHasInvalidValues(c.labelSelector))) opts.allowInvalidTopologySpreadConstraintLabelSelector = true;
  for (const v of objs(oldSpec.volumes)) {
    for (const s of objs(obj(v.projected).sources)) {
      const t = obj(s.serviceAccountToken);
      if (str(t.path) && localDescendingPath(str(t.path), '').length > 0) opts.allowNonLocalProjectedTokenPath = true;
    }
  }
  if (oldSpec.hostNetwork === true || oldSpec.hostIPC === true) {
    if (objs(obj(oldSpec.securityContext).sysctls).length > 0) opts.allowNamespacedSysctlsForHostNetAndHostIPC = true;
  }
  visitContainers(oldSpec, (c) => {
    const res = obj(c.resources);
    for (const list of [obj(res.limits), obj(res.requests)]) if (Object.keys(list).some((k) => k.startsWith('hugepages-'))) opts.allowIndivisibleHugePagesValues = true;
  });
  const cost = obj(oldAnnotations)[deletionCostAnnotation];
  if (typeof cost === 'string' && !deletionCostValid(cost)) opts.allowInvalidPodDeletionCost = true;
  return opts;
}

/** ValidatePodTemplateSpec for an update: the old template's usages stay allowed. */
export function validatePodTemplateSpecUpdate(template: JsonObject, oldTemplate: JsonObject | undefined, path: string): FieldError[] {
  const old = oldTemplate ? obj(oldTemplate.spec) : undefined;
  return validatePodTemplateSpec(template, path, validationOptionsFor(old, oldTemplate ? obj(oldTemplate.metadata).annotations : undefined));
}

