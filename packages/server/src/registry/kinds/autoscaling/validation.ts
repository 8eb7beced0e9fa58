/**
 * HorizontalPodAutoscaler validation as kube 1.35 runs it on the stored (autoscaling/v2) form
 * whichever version was sent: replica bounds, the scale target and described objects (their
 * apiVersion must name a group, except ReplicationController's), metric sources and targets,
 * scaling behavior, and status updates.
 */
import { fieldErr, isDNS1123Label, type FieldError } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { nameIsPathSegment } from '../../names.js';
import { parseQuantity, quantitySign, canonicalQuantityString } from '../../validation/quantity.js';
import { isNil, isObject, num, specOf, statusOf, str, type JsonObject } from '../apps/common.js';

const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;
const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const selectPolicies = ['Disabled', 'Max', 'Min'];
const scalingPolicyTypes = ['Percent', 'Pods'];

export interface CrossVersionObjectReferenceOptions {
  allowEmptyAPIGroup: boolean;
  allowInvalidAPIVersion: boolean;
}

export interface HPAValidationOptions {
  minReplicasLowerBound: number;
  scaleTargetRef: CrossVersionObjectReferenceOptions;
  objectMetrics: CrossVersionObjectReferenceOptions;
}

/** schema.ParseGroupVersion, as the apiVersion check reads it. */
function parseGroupVersion(gv: string): { group: string } | { error: string } {
  if (gv === '' || gv === '/') return { group: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '' };
  if (parts.length === 2) return { group: parts[0] };
  return { error: `unexpected GroupVersion string: ${gv}` };
}

/** ValidateAPIVersion: the reason a reference's apiVersion is refused, if it is. */
export function apiVersionError(ref: JsonObject, opts: CrossVersionObjectReferenceOptions): string | undefined {
  if (opts.allowInvalidAPIVersion) return undefined;
  const parsed = parseGroupVersion(str(ref.apiVersion));
  if ('error' in parsed) return parsed.error;
  if (!opts.allowEmptyAPIGroup && parsed.group === '') return 'apiVersion must specify API group';
  return undefined;
}

/** ValidateCrossVersionObjectReference. */
function validateReference(ref: JsonObject, path: string, opts: CrossVersionObjectReferenceOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = str(ref[key]);
    if (v === '') errs.push(fieldErr.required(`${path}.${key}`));
    else for (const msg of nameIsPathSegment(v, false)) errs.push(fieldErr.invalid(`${path}.${key}`, v, msg));
  }
  const apiErr = apiVersionError(ref, opts);
  if (apiErr) errs.push(fieldErr.invalid(`${path}.apiVersion`, str(ref.apiVersion), apiErr));
  return errs;
}

function positiveQuantity(v: unknown, path: string): FieldError[] {
  if (isNil(v)) return [];
  const q = parseQuantity(String(v));
  if (q && quantitySign(q) === 1) return [];
  // A *resource.Quantity prints as its JSON string.
  return [fieldErr.invalid(path, canonicalQuantityString(String(v)), 'must be positive')];
}

/** validateMetricTarget. */
function validateMetricTarget(target: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(target.type);
  if (type === '') errs.push(fieldErr.required(`${path}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    errs.push(fieldErr.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  }
  errs.push(...positiveQuantity(target.value, `${path}.value`), ...positiveQuantity(target.averageValue, `${path}.averageValue`));
  if (typeof target.averageUtilization === 'number' && target.averageUtilization < 1) {
    errs.push(fieldErr.invalid(`${path}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  }
  return errs;
}

/** validateMetricIdentifier. */
function validateMetricIdentifier(metric: JsonObject, path: string): FieldError[] {
  const name = str(metric.name);
  if (name === '') return [fieldErr.required(`${path}.name`, 'must specify a metric name')];
  return nameIsPathSegment(name, false).map((msg) => fieldErr.invalid(`${path}.name`, name, msg));
}

const objectOf = (v: unknown): JsonObject => (isObject(v) ? v : {});

function validateObjectSource(src: JsonObject, path: string, opts: CrossVersionObjectReferenceOptions): FieldError[] {
  const target = objectOf(src.target);
  const errs = [
    ...validateReference(objectOf(src.describedObject), `${path}.describedObject`, opts),
    ...validateMetricIdentifier(objectOf(src.metric), `${path}.metric`),
    ...validateMetricTarget(target, `${path}.target`),
  ];
  if (isNil(target.value) && isNil(target.averageValue)) errs.push(fieldErr.required(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
  return errs;
}

function validateExternalSource(src: JsonObject, path: string): FieldError[] {
  const target = objectOf(src.target);
  const errs = [...validateMetricIdentifier(objectOf(src.metric), `${path}.metric`), ...validateMetricTarget(target, `${path}.target`)];
  if (isNil(target.value) && isNil(target.averageValue)) errs.push(fieldErr.required(`${path}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
  if (!isNil(target.value) && !isNil(target.averageValue)) errs.push(fieldErr.forbidden(`${path}.target.value`, 'may not set both a target value for metric and a per-pod target'));
  return errs;
}

function validatePodsSource(src: JsonObject, path: string): FieldError[] {
  const target = objectOf(src.target);
  const errs = [...validateMetricIdentifier(objectOf(src.metric), `${path}.metric`), ...validateMetricTarget(target, `${path}.target`)];
  if (isNil(target.averageValue)) errs.push(fieldErr.required(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
  return errs;
}

function validateResourceSource(src: JsonObject, path: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const target = objectOf(src.target);
  if (str(src.name) === '') errs.push(fieldErr.required(`${path}.name`, 'must specify a resource name'));
  if (container) {
    const c = str(src.container);
    if (c === '') errs.push(fieldErr.required(`${path}.container`, 'must specify a container'));
    else for (const msg of isDNS1123Label(c)) errs.push(fieldErr.invalid(`${path}.container`, c, msg));
  }
  errs.push(...validateMetricTarget(target, `${path}.target`));
  if (isNil(target.averageUtilization) && isNil(target.averageValue)) {
    errs.push(fieldErr.required(`${path}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
  }
  if (!isNil(target.averageUtilization) && !isNil(target.averageValue)) {
    errs.push(fieldErr.forbidden(`${path}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
  }
  return errs;
}

const sourceFields: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource', External: 'external' };

/** validateMetricSpec: only the first source present is validated; any other is forbidden. */
function validateMetricSpec(spec: JsonObject, path: string, opts: CrossVersionObjectReferenceOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (type === '') errs.push(fieldErr.required(`${path}.type`, 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) errs.push(fieldErr.notSupported(`${path}.type`, type, metricSourceTypes));
  const present: string[] = [];
  const validators: Array<[string, (src: JsonObject, p: string) => FieldError[]]> = [
    ['object', (s, p) => validateObjectSource(s, p, opts)],
    ['external', validateExternalSource],
    ['pods', validatePodsSource],
    ['resource', (s, p) => validateResourceSource(s, p, false)],
    ['containerResource', (s, p) => validateResourceSource(s, p, true)],
  ];
  for (const [field, validate] of validators) {
    if (isNil(spec[field])) continue;
    present.push(field);
    if (present.length === 1) errs.push(...validate(objectOf(spec[field]), `${path}.${field}`));
  }
  const expected = sourceFields[type];
  if (expected) {
    if (isNil(spec[expected])) errs.push(fieldErr.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  } else {
    errs.push(fieldErr.notSupported(`${path}.type`, type, metricSourceTypes));
  }
  if (present.length !== 1) {
    for (const field of present) if (field !== expected) errs.push(fieldErr.forbidden(`${path}.${field}`, 'must populate the given metric source only'));
  }
  return errs;
}

function validateMetrics(metrics: unknown[], minReplicas: unknown, opts: CrossVersionObjectReferenceOptions): FieldError[] {
  const errs: FieldError[] = [];
  let scalesToZero = false;
  metrics.forEach((m, i) => {
    const metric = objectOf(m);
    errs.push(...validateMetricSpec(metric, `spec.metrics[${i}]`, opts));
    if (metric.type === 'Object' || metric.type === 'External') scalesToZero = true;
  });
  if (minReplicas === 0 && !scalesToZero) errs.push(fieldErr.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  if (!isObject(rules)) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number') {
    if (window < 0) errs.push(fieldErr.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
    if (window > maxStabilizationWindowSeconds) errs.push(fieldErr.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (!isNil(rules.selectPolicy) && !selectPolicies.includes(str(rules.selectPolicy))) {
    errs.push(fieldErr.notSupported(`${path}.selectPolicy`, str(rules.selectPolicy), selectPolicies));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) errs.push(fieldErr.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((raw, i) => {
    const p = objectOf(raw);
    const pp = `${path}.policies[${i}]`;
    if (p.type !== 'Pods' && p.type !== 'Percent') errs.push(fieldErr.notSupported(`${pp}.type`, str(p.type), scalingPolicyTypes));
    if (num(p.value) <= 0) errs.push(fieldErr.invalid(`${pp}.value`, num(p.value), 'must be greater than zero'));
    if (num(p.periodSeconds) <= 0) errs.push(fieldErr.invalid(`${pp}.periodSeconds`, num(p.periodSeconds), 'must be greater than zero'));
    if (num(p.periodSeconds) > maxPeriodSeconds) errs.push(fieldErr.invalid(`${pp}.periodSeconds`, num(p.periodSeconds), `must be less than or equal to ${maxPeriodSeconds}`));
  });
  if (!isNil(rules.tolerance)) {
    const q = parseQuantity(String(rules.tolerance));
    if (q && quantitySign(q) < 0) errs.push(fieldErr.invalid(`${path}.tolerance`, canonicalQuantityString(String(rules.tolerance)), 'must be greater than or equal to 0'));
  }
  return errs;
}

/** validateHorizontalPodAutoscalerSpec (object metadata is validated by the Store). */
export function validateHorizontalPodAutoscaler(obj: KubeObject, opts: HPAValidationOptions): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (typeof min === 'number' && min < opts.minReplicasLowerBound) {
    errs.push(fieldErr.invalid('spec.minReplicas', min, `must be greater than or equal to ${opts.minReplicasLowerBound}`));
  }
  if (max < 1) errs.push(fieldErr.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(fieldErr.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateReference(objectOf(spec.scaleTargetRef), 'spec.scaleTargetRef', opts.scaleTargetRef));
  errs.push(...validateMetrics(Array.isArray(spec.metrics) ? spec.metrics : [], min, opts.objectMetrics));
  const behavior = objectOf(spec.behavior);
  errs.push(...validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

/**
 * validationOptionsForHorizontalPodAutoscaler: scale to zero (an alpha gate, off) only for
 * autoscalers that already have it; apiVersions kube accepted before it checked them stay
 * accepted while unchanged.
 */
export function validationOptions(obj: KubeObject, old?: KubeObject): HPAValidationOptions {
  const ref = objectOf(specOf(obj).scaleTargetRef);
  const opts: HPAValidationOptions = {
    minReplicasLowerBound: old && specOf(old).minReplicas === 0 ? 0 : 1,
    scaleTargetRef: { allowInvalidAPIVersion: false, allowEmptyAPIGroup: false },
    objectMetrics: { allowInvalidAPIVersion: false, allowEmptyAPIGroup: true },
  };
  const oldRef = old ? objectOf(specOf(old).scaleTargetRef) : undefined;
  if (oldRef && str(oldRef.apiVersion) === str(ref.apiVersion) && str(oldRef.kind) === str(ref.kind)) opts.scaleTargetRef.allowInvalidAPIVersion = true;
  else if (ref.kind === 'ReplicationController') opts.scaleTargetRef.allowEmptyAPIGroup = true;
  const oldMetrics = old && Array.isArray(specOf(old).metrics) ? (specOf(old).metrics as unknown[]) : [];
  for (const m of oldMetrics) {
    const metric = objectOf(m);
    if (metric.type === 'Object' && isObject(metric.object) && apiVersionError(objectOf(metric.object.describedObject), opts.objectMetrics)) {
      opts.objectMetrics.allowInvalidAPIVersion = true;
      break;
    }
  }
  return opts;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHorizontalPodAutoscalerStatus(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs: FieldError[] = [];
  for (const name of ['currentReplicas', 'desiredReplicas']) {
    const v = num(status[name]);
    if (v < 0) errs.push(fieldErr.invalid(`status.${name}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}
