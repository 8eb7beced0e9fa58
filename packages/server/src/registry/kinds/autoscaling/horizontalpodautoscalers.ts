/**
 * HorizontalPodAutoscaler, stored as autoscaling/v2 and also served as autoscaling/v1 (through
 * ./conversion.ts): each version's defaults, kube's strategy (status kept apart, tolerance
 * kept since HPAConfigurableTolerance is on by default), validation on the v2 form, and the
 * printer, which reads the v2 form for both versions.
 */
import type { KindDefinition, KubeObject, TableConvertor } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { child, isNil, isObject, num, specOf, statusOf, str, type JsonObject } from '../apps/common.js';
import { defaultCPUUtilization, hpaV1ToV2, hpaV2ToV1 } from './conversion.js';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatus, validationOptions } from './validation.js';

const defaultScaleUpRules = () => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});
// No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const defaultScaleDownRules = () => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** GenerateHPAScale{Up,Down}Rules: the defaults, overridden by what the rules set. */
function scalingRules(rules: unknown, defaults: JsonObject): JsonObject {
  if (!isObject(rules)) return defaults;
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) {
    if (!isNil(rules[key])) defaults[key] = rules[key];
  }
  return defaults;
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler. */
export function defaultHorizontalPodAutoscalerV2(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (isNil(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  // A behavior with any rule gets every unset rule field filled in.
  if (isObject(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, defaultScaleUpRules());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, defaultScaleDownRules());
  }
}

/** autoscaling/v1 SetDefaults_HorizontalPodAutoscaler (the CPU target is defaulted by the conversion). */
export function defaultHorizontalPodAutoscalerV1(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (isNil(spec.minReplicas)) spec.minReplicas = 1;
}

/** A v1 body in the stored form, with the defaults decoding it from storage would apply. */
export function hpaToStorage(obj: KubeObject): KubeObject {
  const v2 = hpaV1ToV2(obj);
  defaultHorizontalPodAutoscalerV2(v2);
  return v2;
}

/** (*resource.Quantity).String(): `<nil>` for a nil pointer. */
const quantityString = (v: unknown) => (isNil(v) ? '<nil>' : String(v));

/** formatHPAMetrics: at most two `current/target` pairs, then `+ N more...`. */
export function formatHPAMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return '<none>';
  const list: string[] = [];
  specs.forEach((raw, i) => {
    const spec = isObject(raw) ? raw : {};
    const status = isObject(statuses[i]) ? (statuses[i] as JsonObject) : undefined;
    const source = (name: string): JsonObject => (isObject(spec[name]) ? (spec[name] as JsonObject) : {});
    const target = (name: string): JsonObject => (isObject(source(name).target) ? (source(name).target as JsonObject) : {});
    const current = (name: string): JsonObject | undefined => (status && isObject(status[name]) ? (isObject((status[name] as JsonObject).current) ? ((status[name] as JsonObject).current as JsonObject) : {}) : undefined);
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const name = spec.type === 'External' ? 'external' : 'object';
        const t = target(name);
        const c = current(name);
        if (!isNil(t.averageValue)) list.push(`${c && !isNil(c.averageValue) ? String(c.averageValue) : '<unknown>'}/${String(t.averageValue)} (avg)`);
        else list.push(`${c ? quantityString(c.value) : '<unknown>'}/${quantityString(t.value)}`);
        break;
      }
      case 'Pods': {
        const c = current('pods');
        list.push(`${c ? quantityString(c.averageValue) : '<unknown>'}/${quantityString(target('pods').averageValue)}`);
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const name = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const t = target(name);
        const c = current(name);
        const resource = str(source(name).name);
        if (!isNil(t.averageValue)) {
          list.push(`${resource}: ${c ? quantityString(c.averageValue) : '<unknown>'}/${String(t.averageValue)}`);
        } else {
          const cur = c && !isNil(c.averageUtilization) ? `${num(c.averageUtilization)}%` : '<unknown>';
          const tgt = isNil(t.averageUtilization) ? '<auto>' : `${num(t.averageUtilization)}%`;
          list.push(`${resource}: ${cur}/${tgt}`);
        }
        break;
      }
      default:
        list.push('<unknown type>');
    }
  });
  if (list.length > 2) return `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...`;
  return list.join(', ');
}

export function hpaCells(obj: KubeObject, now = Date.now()): unknown[] {
  const spec = specOf(obj);
  const status = statusOf(obj);
  const ref = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  return [
    `${str(ref.kind)}/${str(ref.name)}`,
    formatHPAMetrics(Array.isArray(spec.metrics) ? spec.metrics : [], Array.isArray(status.currentMetrics) ? status.currentMetrics : []),
    isNil(spec.minReplicas) ? '<unset>' : String(num(spec.minReplicas)),
    num(spec.maxReplicas), num(status.currentReplicas), ageOf(obj.metadata.creationTimestamp, now),
  ];
}

const columns = [
  column('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
  column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.'),
  column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
  column('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
  column('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
  ageColumn,
];

const v2Table: TableConvertor = { columns, cells: (obj) => hpaCells(obj) };
// kube prints its internal (v2-shaped) object whichever version is served. The table gets the
// v1 form here, whose conversion puts the CPU target after the other metrics.
const v1Table: TableConvertor = { columns, cells: (obj) => hpaCells(hpaV1ToV2(obj)) };

export const horizontalPodAutoscalersV2: KindDefinition = {
  group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers',
  strategy: {
    defaults: defaultHorizontalPodAutoscalerV2,
    validate: (obj) => validateHorizontalPodAutoscaler(obj, validationOptions(obj)),
    validateUpdate: (obj, old) => validateHorizontalPodAutoscaler(obj, validationOptions(obj, old)),
  },
  subresourceStrategies: { status: { validateUpdate: (obj) => validateHorizontalPodAutoscalerStatus(obj) } },
  table: v2Table,
};

export const horizontalPodAutoscalersV1: KindDefinition = {
  group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers',
  strategy: { defaults: defaultHorizontalPodAutoscalerV1 },
  conversion: { storageVersion: 'v2', toStorage: hpaToStorage, fromStorage: hpaV2ToV1 },
  table: v1Table,
};
