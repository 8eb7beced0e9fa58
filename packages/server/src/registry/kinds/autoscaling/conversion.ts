/**
 * autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler conversion, as kube's
 * pkg/apis/autoscaling/v1/conversion.go does it through the internal (v2-shaped) type.
 * autoscaling/v1 only has the CPU utilization target; every other metric, the current metric
 * values, the behavior and the conditions travel in `autoscaling.alpha.kubernetes.io/*`
 * annotations, so a v1 client that reads and writes an object back loses nothing. The
 * behavior annotation holds kube's internal struct marshalled without json tags (Go field
 * names), as kube writes it for compatibility with older API servers.
 */
import { newBadRequest } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { goJSON, isNil, isObject, num, str, type JsonObject } from '../apps/common.js';

export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
export const toleranceScaleDownAnnotation = 'autoscaling.alpha.kubernetes.io/scale-down-tolerance';
export const toleranceScaleUpAnnotation = 'autoscaling.alpha.kubernetes.io/scale-up-tolerance';
export const defaultCPUUtilization = 80;

const roundTripAnnotations = [metricSpecsAnnotation, behaviorSpecsAnnotation, toleranceScaleDownAnnotation, toleranceScaleUpAnnotation, metricStatusesAnnotation, conditionsAnnotation];

const objectOf = (v: unknown): JsonObject => (isObject(v) ? v : {});

/** Copies the keys that are set (Go's omitempty pointers), in the given order. */
function pick(src: JsonObject, keys: Array<[string, string]>): JsonObject {
  const out: JsonObject = {};
  for (const [from, to] of keys) if (!isNil(src[from])) out[to] = src[from];
  return out;
}

/** A non-pointer resource.Quantity field: the zero quantity marshals as "0". */
const quantity = (v: unknown) => (isNil(v) ? '0' : v);

/** CrossVersionObjectReference (the same in both versions): kind and name always written. */
function reference(r: unknown): JsonObject {
  const ref = objectOf(r);
  const out: JsonObject = { kind: str(ref.kind), name: str(ref.name) };
  if (str(ref.apiVersion)) out.apiVersion = ref.apiVersion;
  return out;
}

function identifierToV1(src: JsonObject, selectorKey: string): JsonObject {
  const metric = objectOf(src.metric);
  return { metricName: str(metric.name), ...pick(metric, [['selector', selectorKey]]) };
}

function identifierFromV1(src: JsonObject, selectorKey: string): JsonObject {
  return { name: str(src.metricName), ...pick(src, [[selectorKey, 'selector']]) };
}

const isCPUResource = (m: JsonObject) => m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu';
const isCPUUtilizationMetric = (m: JsonObject) => isCPUResource(m) && !isNil(objectOf(objectOf(m.resource).target).averageUtilization);

function resourceSpecToV1(r: JsonObject, container: boolean): JsonObject {
  const target = objectOf(r.target);
  const out: JsonObject = { name: str(r.name), ...pick(target, [['averageUtilization', 'targetAverageUtilization'], ['averageValue', 'targetAverageValue']]) };
  if (container) out.container = str(r.container);
  return out;
}

/** Convert_autoscaling_MetricSpec_To_v1_MetricSpec. */
export function metricSpecToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m.type) };
  if (isObject(m.object)) {
    const target = objectOf(m.object.target);
    out.object = {
      target: reference(m.object.describedObject), metricName: str(objectOf(m.object.metric).name), targetValue: quantity(target.value),
      ...pick(objectOf(m.object.metric), [['selector', 'selector']]), ...pick(target, [['averageValue', 'averageValue']]),
    };
  }
  if (isObject(m.pods)) {
    out.pods = { metricName: str(objectOf(m.pods.metric).name), targetAverageValue: quantity(objectOf(m.pods.target).averageValue), ...pick(objectOf(m.pods.metric), [['selector', 'selector']]) };
  }
  if (isObject(m.resource)) out.resource = resourceSpecToV1(m.resource, false);
  if (isObject(m.containerResource)) out.containerResource = resourceSpecToV1(m.containerResource, true);
  if (isObject(m.external)) {
    out.external = { ...identifierToV1(m.external, 'metricSelector'), ...pick(objectOf(m.external.target), [['value', 'targetValue'], ['averageValue', 'targetAverageValue']]) };
  }
  return out;
}

function resourceSpecFromV1(r: JsonObject, container: boolean): JsonObject {
  const out: JsonObject = { name: str(r.name) };
  if (container) out.container = str(r.container);
  out.target = {
    type: isNil(r.targetAverageUtilization) ? 'AverageValue' : 'Utilization',
    ...pick(r, [['targetAverageValue', 'averageValue'], ['targetAverageUtilization', 'averageUtilization']]),
  };
  return out;
}

/** Convert_v1_MetricSpec_To_autoscaling_MetricSpec. */
export function metricSpecFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m.type) };
  if (isObject(m.object)) {
    const o = m.object;
    out.object = {
      describedObject: reference(o.target), metric: identifierFromV1(o, 'selector'),
      target: { type: isNil(o.averageValue) ? 'Value' : 'AverageValue', value: quantity(o.targetValue), ...pick(o, [['averageValue', 'averageValue']]) },
    };
  }
  if (isObject(m.pods)) out.pods = { metric: identifierFromV1(m.pods, 'selector'), target: { type: 'AverageValue', averageValue: quantity(m.pods.targetAverageValue) } };
  if (isObject(m.resource)) out.resource = resourceSpecFromV1(m.resource, false);
  if (isObject(m.containerResource)) out.containerResource = resourceSpecFromV1(m.containerResource, true);
  if (isObject(m.external)) {
    const e = m.external;
    out.external = {
      metric: identifierFromV1(e, 'metricSelector'),
      target: { type: isNil(e.targetValue) ? 'AverageValue' : 'Value', ...pick(e, [['targetValue', 'value'], ['targetAverageValue', 'averageValue']]) },
    };
  }
  return out;
}

function resourceStatusToV1(r: JsonObject, container: boolean): JsonObject {
  const current = objectOf(r.current);
  const out: JsonObject = { name: str(r.name), ...pick(current, [['averageUtilization', 'currentAverageUtilization']]), currentAverageValue: quantity(current.averageValue) };
  if (container) out.container = str(r.container);
  return out;
}

/** Convert_autoscaling_MetricStatus_To_v1_MetricStatus. */
export function metricStatusToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m.type) };
  if (isObject(m.object)) {
    const current = objectOf(m.object.current);
    out.object = {
      target: reference(m.object.describedObject), metricName: str(objectOf(m.object.metric).name), currentValue: quantity(current.value),
      ...pick(objectOf(m.object.metric), [['selector', 'selector']]), ...pick(current, [['averageValue', 'averageValue']]),
    };
  }
  if (isObject(m.pods)) {
    out.pods = { metricName: str(objectOf(m.pods.metric).name), currentAverageValue: quantity(objectOf(m.pods.current).averageValue), ...pick(objectOf(m.pods.metric), [['selector', 'selector']]) };
  }
  if (isObject(m.resource)) out.resource = resourceStatusToV1(m.resource, false);
  if (isObject(m.containerResource)) out.containerResource = resourceStatusToV1(m.containerResource, true);
  if (isObject(m.external)) {
    const current = objectOf(m.external.current);
    out.external = { ...identifierToV1(m.external, 'metricSelector'), currentValue: quantity(current.value), ...pick(current, [['averageValue', 'currentAverageValue']]) };
  }
  return out;
}

function resourceStatusFromV1(r: JsonObject, container: boolean): JsonObject {
  const out: JsonObject = { name: str(r.name) };
  if (container) out.container = str(r.container);
  out.current = { averageValue: quantity(r.currentAverageValue), ...pick(r, [['currentAverageUtilization', 'averageUtilization']]) };
  return out;
}

/** Convert_v1_MetricStatus_To_autoscaling_MetricStatus. */
export function metricStatusFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m.type) };
  if (isObject(m.object)) {
    const o = m.object;
    out.object = { metric: identifierFromV1(o, 'selector'), current: { value: quantity(o.currentValue), ...pick(o, [['averageValue', 'averageValue']]) }, describedObject: reference(o.target) };
  }
  if (isObject(m.pods)) out.pods = { metric: identifierFromV1(m.pods, 'selector'), current: { averageValue: quantity(m.pods.currentAverageValue) } };
  if (isObject(m.resource)) out.resource = resourceStatusFromV1(m.resource, false);
  if (isObject(m.containerResource)) out.containerResource = resourceStatusFromV1(m.containerResource, true);
  if (isObject(m.external)) {
    const e = m.external;
    out.external = { metric: identifierFromV1(e, 'metricSelector'), current: { value: quantity(e.currentValue), ...pick(e, [['currentAverageValue', 'averageValue']]) } };
  }
  return out;
}

/** HPA conditions have the same fields in both versions; Go writes them in struct order. */
function condition(c: unknown): JsonObject {
  const o = objectOf(c);
  return { type: str(o.type), status: str(o.status), lastTransitionTime: o.lastTransitionTime ?? null, ...pick(o, [['reason', 'reason'], ['message', 'message']]) };
}

/** The internal HorizontalPodAutoscalerBehavior as json.Marshal writes it: Go field names, nil as null. */
function behaviorToGoJSON(behavior: JsonObject): unknown {
  const rules = (r: unknown) => {
    if (!isObject(r)) return null;
    return {
      StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
      SelectPolicy: r.selectPolicy ?? null,
      Policies: Array.isArray(r.policies) ? r.policies.map((p) => ({ Type: str(objectOf(p).type), Value: num(objectOf(p).value), PeriodSeconds: num(objectOf(p).periodSeconds) })) : null,
      Tolerance: r.tolerance ?? null,
    };
  };
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

/** A key as encoding/json matches it: exactly, else ignoring case. */
function field(o: JsonObject, name: string): unknown {
  if (name in o) return o[name];
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : o[key];
}

/** The behavior annotation read back; undefined when it does not decode or holds no rules (kube ignores it then). */
function behaviorFromGoJSON(raw: string): JsonObject | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const rules = (r: unknown): JsonObject | undefined => {
    if (!isObject(r)) return undefined;
    const out: JsonObject = {};
    const policies = field(r, 'Policies');
    for (const [go, json] of [['StabilizationWindowSeconds', 'stabilizationWindowSeconds'], ['SelectPolicy', 'selectPolicy']]) {
      const v = field(r, go);
      if (!isNil(v)) out[json] = v;
    }
    if (Array.isArray(policies)) {
      out.policies = policies.map((p) => {
        const o = objectOf(p);
        return { type: str(field(o, 'Type')), value: num(field(o, 'Value')), periodSeconds: num(field(o, 'PeriodSeconds')) };
      });
    }
    const tolerance = field(r, 'Tolerance');
    if (!isNil(tolerance)) out.tolerance = tolerance;
    return out;
  };
  const out: JsonObject = {};
  const up = rules(field(parsed, 'ScaleUp'));
  const down = rules(field(parsed, 'ScaleDown'));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length > 0 ? out : undefined;
}

function annotationsOf(obj: KubeObject): Record<string, string> | undefined {
  return obj.metadata.annotations;
}

function dropAnnotations(obj: KubeObject, keys: string[]): void {
  const annotations = annotationsOf(obj);
  if (!annotations) return;
  for (const k of keys) delete annotations[k];
  if (Object.keys(annotations).length === 0) delete obj.metadata.annotations;
}

function setAnnotation(obj: KubeObject, key: string, value: string): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [key]: value };
}

/** A stored (autoscaling/v2) autoscaler as autoscaling/v1 shows it. */
export function hpaV2ToV1(stored: KubeObject): KubeObject {
  const obj = structuredClone(stored);
  const spec = objectOf(obj.spec);
  const status = objectOf(obj.status);
  obj.apiVersion = 'autoscaling/v1';
  // Annotations of an earlier round trip are never served back.
  dropAnnotations(obj, roundTripAnnotations);

  const metrics = (Array.isArray(spec.metrics) ? spec.metrics : []).map(objectOf);
  const v1Spec: JsonObject = { scaleTargetRef: reference(spec.scaleTargetRef), ...pick(spec, [['minReplicas', 'minReplicas']]), maxReplicas: num(spec.maxReplicas) };
  // The first CPU resource metric decides, whatever its target.
  const cpu = metrics.find(isCPUResource);
  const cpuTarget = cpu ? objectOf(objectOf(cpu.resource).target).averageUtilization : undefined;
  if (!isNil(cpuTarget)) v1Spec.targetCPUUtilizationPercentage = cpuTarget;

  const current = (Array.isArray(status.currentMetrics) ? status.currentMetrics : []).map(objectOf);
  const v1Status: JsonObject = {
    ...pick(status, [['observedGeneration', 'observedGeneration'], ['lastScaleTime', 'lastScaleTime']]),
    currentReplicas: num(status.currentReplicas), desiredReplicas: num(status.desiredReplicas),
  };
  // Every CPU status with a utilization is looked at: the last one wins.
  for (const m of current) {
    const utilization = isCPUResource(m) ? objectOf(objectOf(m.resource).current).averageUtilization : undefined;
    if (!isNil(utilization)) v1Status.currentCPUUtilizationPercentage = utilization;
  }

  const others = metrics.filter((m) => !isCPUUtilizationMetric(m)).map(metricSpecToV1);
  if (others.length > 0) setAnnotation(obj, metricSpecsAnnotation, goJSON(others));
  if (current.length > 0) setAnnotation(obj, metricStatusesAnnotation, goJSON(current.map(metricStatusToV1)));
  if (isObject(spec.behavior)) setAnnotation(obj, behaviorSpecsAnnotation, goJSON(behaviorToGoJSON(spec.behavior)));
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  if (conditions.length > 0) setAnnotation(obj, conditionsAnnotation, goJSON(conditions.map(condition)));

  obj.spec = v1Spec;
  obj.status = v1Status;
  return obj;
}

function parseAnnotationList(obj: KubeObject, key: string): JsonObject[] | undefined {
  const raw = annotationsOf(obj)?.[key];
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw newBadRequest(`HorizontalPodAutoscaler in version "v1" cannot be handled as a HorizontalPodAutoscaler: ${(err as Error).message}`);
  }
  return (Array.isArray(parsed) ? parsed : []).map(objectOf);
}

/** An autoscaling/v1 body as the storage version (autoscaling/v2) holds it. */
export function hpaV1ToV2(body: KubeObject): KubeObject {
  const obj = structuredClone(body);
  const spec = objectOf(obj.spec);
  const status = objectOf(obj.status);
  obj.apiVersion = 'autoscaling/v2';

  const v2Spec: JsonObject = { scaleTargetRef: reference(spec.scaleTargetRef), ...pick(spec, [['minReplicas', 'minReplicas']]), maxReplicas: num(spec.maxReplicas) };
  let metrics: JsonObject[] = [];
  if (!isNil(spec.targetCPUUtilizationPercentage)) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } }];
  }
  const v2Status: JsonObject = {
    ...pick(status, [['observedGeneration', 'observedGeneration'], ['lastScaleTime', 'lastScaleTime']]),
    currentReplicas: num(status.currentReplicas), desiredReplicas: num(status.desiredReplicas),
  };
  if (!isNil(status.currentCPUUtilizationPercentage)) {
    v2Status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }

  const others = parseAnnotationList(obj, metricSpecsAnnotation);
  // The CPU target the spec conversion made goes after the annotation's metrics.
  if (others) metrics = [...others.map(metricSpecFromV1), ...metrics];
  const behaviorRaw = annotationsOf(obj)?.[behaviorSpecsAnnotation];
  const behavior = behaviorRaw === undefined ? undefined : behaviorFromGoJSON(behaviorRaw);
  if (behavior) v2Spec.behavior = behavior;
  const current = parseAnnotationList(obj, metricStatusesAnnotation);
  // The annotation's statuses carry more than the CPU utilization: they replace it.
  if (current) v2Status.currentMetrics = current.map(metricStatusFromV1);
  // autoscaling/v1 once defaulted this in the controller; kube now writes it explicitly.
  if (metrics.length === 0) metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  v2Spec.metrics = metrics;
  const conditions = parseAnnotationList(obj, conditionsAnnotation);
  if (conditions) v2Status.conditions = conditions.map(condition);
  dropAnnotations(obj, roundTripAnnotations);

  obj.spec = v2Spec;
  obj.status = v2Status;
  return obj;
}
