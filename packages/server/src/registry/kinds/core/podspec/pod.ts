/**
 * What only a Pod (not a template) gets: ValidatePodCreate's checks beyond the spec, and the
 * strategy's create-time mutations (initial status, scheduling-gated condition, matchLabelKeys
 * merged into selectors) and the v1 ⇄ internal conversion of status IPs.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import { validateContainerOnlyForPod } from './containers.js';
import { podQOSClass } from './resources.js';
import {
  validateAppArmorAnnotationsAndFields, validatePodSpec, validatePodSpecificAnnotations, validateSeccompAnnotationsAndFields,
  type PodValidationOptions,
} from './validation.js';
import { child, isObject, obj, objs, str, strs, type JsonObject } from './util.js';

export type { PodValidationOptions };

/** validatePodMetadataAndSpec without ValidateObjectMeta (the Store validates object metadata). */
export function validatePodMeta(pod: JsonObject, opts: PodValidationOptions): FieldError[] {
  const meta = obj(pod.metadata);
  const spec = obj(pod.spec);
  const errs = validatePodSpecificAnnotations(meta.annotations, spec, 'metadata.annotations', opts);
  errs.push(...validatePodSpec(spec, str(meta.name) || undefined, 'spec', { ...opts, resourceIsPod: true }));
  if (!str(spec.serviceAccountName)) {
    objs(spec.volumes).forEach((v, vi) => {
      objs(obj(v.projected).sources).forEach((s, si) => {
        if (isObject(s.serviceAccountToken)) {
          errs.push(fieldErr.forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  objs(spec.containers).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, `spec.containers[${i}]`)));
  objs(spec.initContainers).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, `spec.initContainers[${i}]`)));
  return errs;
}

/** ValidatePodCreate. */
export function validatePodCreate(pod: JsonObject, opts: PodValidationOptions = {}): FieldError[] {
  const errs = validatePodMeta(pod, opts);
  const spec = obj(pod.spec);
  if (objs(spec.ephemeralContainers).length > 0) errs.push(fieldErr.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) && objs(spec.schedulingGates).length > 0) errs.push(fieldErr.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  const annotations = obj(pod.metadata).annotations;
  errs.push(...validateSeccompAnnotationsAndFields(annotations, spec, 'spec'));
  errs.push(...validateAppArmorAnnotationsAndFields(annotations, spec, 'spec'));
  return errs;
}

/** Pod PrepareForCreate: the initial status and the selector mutations kube applies to new pods. */
export function preparePodForCreate(pod: JsonObject): void {
  const spec = child(pod, 'spec');
  const status: JsonObject = { phase: 'Pending', qosClass: podQOSClass(spec) };
  if (objs(spec.schedulingGates).length > 0) {
    status.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates', lastProbeTime: null, lastTransitionTime: null }];
  }
  pod.status = status;
  const labels = obj(obj(pod.metadata).labels);
  mutatePodAffinity(spec, labels);
  for (const c of objs(spec.topologySpreadConstraints)) applyLabelKeys(c, strs(c.matchLabelKeys), 'In', labels);
}

/** matchLabelKeys/mismatchLabelKeys become In/NotIn requirements on the pod's own label values. */
function applyLabelKeys(holder: JsonObject, keys: string[], operator: 'In' | 'NotIn', labels: JsonObject): void {
  if (keys.length === 0 || !isObject(holder.labelSelector)) return;
  const sel = holder.labelSelector;
  for (const key of keys) {
    if (!(key in labels)) continue;
    const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : (sel.matchExpressions = []);
    (exprs as unknown[]).push({ key, operator, values: [str(labels[key])] });
  }
}

function mutatePodAffinity(spec: JsonObject, labels: JsonObject): void {
  const affinity = obj(spec.affinity);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity[kind]);
    const terms = [...objs(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => obj(w.podAffinityTerm)), ...objs(a.requiredDuringSchedulingIgnoredDuringExecution)];
    for (const t of terms) {
      const match = strs(t.matchLabelKeys), mismatch = strs(t.mismatchLabelKeys);
      if ((match.length === 0 && mismatch.length === 0) || !isObject(t.labelSelector)) continue;
      applyLabelKeys(t, match, 'In', labels);
      applyLabelKeys(t, mismatch, 'NotIn', labels);
    }
  }
}

/**
 * v1 status IPs through the internal type: a podIP differing from podIPs[0] (or without podIPs)
 * wins, and podIP is written back from podIPs[0]; the same for hostIP/hostIPs.
 */
export function convertPodStatusIPs(pod: JsonObject): void {
  const status = pod.status;
  if (!isObject(status)) return;
  for (const [single, plural] of [['podIP', 'podIPs'], ['hostIP', 'hostIPs']] as const) {
    const ip = str(status[single]);
    const list = objs(status[plural]);
    if (ip && (list.length === 0 || str(list[0].ip) !== ip)) status[plural] = [{ ip }];
    const first = objs(status[plural])[0];
    if (first && str(first.ip)) status[single] = str(first.ip);
  }
}
