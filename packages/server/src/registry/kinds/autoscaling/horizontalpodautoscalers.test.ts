import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { behaviorSpecsAnnotation, conditionsAnnotation, hpaV1ToV2, hpaV2ToV1, metricSpecsAnnotation, metricStatusesAnnotation } from './conversion.js';
import {
  defaultHorizontalPodAutoscalerV1, defaultHorizontalPodAutoscalerV2, formatHPAMetrics, hpaCells, hpaToStorage, horizontalPodAutoscalersV1,
} from './horizontalpodautoscalers.js';
import { validateHorizontalPodAutoscaler, validationOptions } from './validation.js';

const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

function hpa(version: 'v1' | 'v2', spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec: { scaleTargetRef: target, ...spec } };
}

function v2(spec: Record<string, unknown>): KubeObject {
  const o = hpa('v2', spec);
  defaultHorizontalPodAutoscalerV2(o);
  return o;
}

/** A v1 body as it reaches v2 validation: v1 defaults, then the conversion. */
function fromV1(spec: Record<string, unknown>): KubeObject {
  const o = hpa('v1', spec);
  defaultHorizontalPodAutoscalerV1(o);
  return hpaToStorage(o);
}

const validate = (o: KubeObject) => validateHorizontalPodAutoscaler(o, validationOptions(o)).map(fieldErrorString);
const cpu = (utilization: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } });

describe('HorizontalPodAutoscaler defaults', () => {
  test('v2: one replica minimum, 80% CPU when no metric is given, no behavior unless asked', () => {
    const o = v2({ maxReplicas: 5 });
    expect(o.spec).toEqual({ scaleTargetRef: target, maxReplicas: 5, minReplicas: 1, metrics: [cpu(80)] });
  });

  test('v2: a behavior gets every unset rule field, scale-down keeping no stabilization window', () => {
    const o = v2({ maxReplicas: 5, behavior: { scaleUp: { policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } } });
    expect((o.spec as Record<string, unknown>).behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
  });

  test('v1: the CPU target defaults to 80% through the conversion', () => {
    const o = fromV1({ maxReplicas: 5 });
    expect(o.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, metrics: [cpu(80)] });
    expect(o.apiVersion).toBe('autoscaling/v2');
  });
});

describe('HorizontalPodAutoscaler validation (the golden cases)', () => {
  test('replica bounds', () => {
    expect(validate(fromV1({ maxReplicas: 0 }))).toEqual(['spec.maxReplicas: Invalid value: 0: must be greater than 0', 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`']);
    expect(validate(fromV1({ maxReplicas: 5, minReplicas: 10 }))).toEqual(['spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`']);
    expect(validate(fromV1({ maxReplicas: 5, minReplicas: 0 }))).toEqual([
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
    ]);
  });

  test('the scale target names a kind and an API group', () => {
    const o = fromV1({ maxReplicas: 5, scaleTargetRef: { apiVersion: 'apps/v1', name: 'web' } });
    expect(validate(o)).toEqual(['spec.scaleTargetRef.kind: Required value']);
    expect(validate(v2({ maxReplicas: 5, scaleTargetRef: { apiVersion: 'v1', kind: 'Deployment', name: 'web' } }))).toEqual(['spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group']);
    expect(validate(v2({ maxReplicas: 5, scaleTargetRef: { kind: 'ReplicationController', name: 'web' } }))).toEqual([]);
    expect(validate(v2({ maxReplicas: 5, scaleTargetRef: { apiVersion: 'a/b/c', kind: 'Deployment', name: 'web' } }))).toEqual(['spec.scaleTargetRef.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']);
  });

  test('a v1 CPU target is checked where v2 keeps it', () => {
    expect(validate(fromV1({ maxReplicas: 5, targetCPUUtilizationPercentage: -10 }))).toEqual(['spec.metrics[0].resource.target.averageUtilization: Invalid value: -10: must be greater than 0']);
  });

  test('metric types, sources and targets', () => {
    const unsupported = 'spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"';
    expect(validate(v2({ maxReplicas: 5, metrics: [{ type: 'Custom' }] }))).toEqual([unsupported, unsupported]);
    expect(validate(v2({ maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] }))).toEqual([
      'spec.metrics[0].resource.target.type: Required value: must specify a metric target type',
      'spec.metrics[0].resource.target.type: Invalid value: "": must be either Utilization, Value, or AverageValue',
      'spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
    ]);
    expect(validate(v2({ maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] }))).toEqual([
      'spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
    ]);
    expect(validate(v2({ maxReplicas: 5, metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '0' } }, resource: { name: 'cpu' } }] }))).toEqual([
      'spec.metrics[0].pods.target.averageValue: Invalid value: "0": must be positive',
      'spec.metrics[0].resource: Forbidden: must populate the given metric source only',
    ]);
  });

  test('scaling behavior', () => {
    expect(validate(v2({ maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 7200 } } }))).toEqual([
      'spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 7200: must be less than or equal to 3600',
    ]);
    expect(validate(v2({ maxReplicas: 5, behavior: { scaleUp: { selectPolicy: 'Sometimes', policies: [{ type: 'Pods', value: 0, periodSeconds: 3600 }], tolerance: '-0.1' } } }))).toEqual([
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Sometimes": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 3600: must be less than or equal to 1800',
      'spec.behavior.scaleUp.tolerance: Invalid value: "-100m": must be greater than or equal to 0',
    ]);
  });

  test('updates keep what was accepted before: zero minimum replicas, an unchanged target apiVersion', () => {
    const old = v2({ maxReplicas: 5, minReplicas: 0, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }], scaleTargetRef: { apiVersion: 'v1', kind: 'Deployment', name: 'web' } });
    const updated = structuredClone(old);
    expect(validateHorizontalPodAutoscaler(updated, validationOptions(updated, old))).toEqual([]);
  });
});

describe('autoscaling/v1 <-> v2 conversion', () => {
  const multi = v2({
    maxReplicas: 30, minReplicas: 2,
    metrics: [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '800Mi' } } },
      cpu(65),
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'web' }, metric: { name: 'rps' }, target: { type: 'Value', value: '2k' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } },
  });
  multi.status = {
    currentReplicas: 3, desiredReplicas: 4,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 70 } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ReadyForNewScale' }],
  };

  test('v1 shows the CPU target, and everything else in annotations as kube writes them', () => {
    const v1 = hpaV2ToV1(multi);
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec).toEqual({ scaleTargetRef: target, minReplicas: 2, maxReplicas: 30, targetCPUUtilizationPercentage: 65 });
    expect(v1.status).toEqual({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 70 });
    const a = v1.metadata.annotations!;
    expect(a[metricSpecsAnnotation]).toBe(
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"800Mi"}},' +
      '{"type":"Object","object":{"target":{"kind":"Ingress","name":"web","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"2k"}}]',
    );
    expect(a[metricStatusesAnnotation]).toBe('[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":70,"currentAverageValue":"120m"}}]');
    expect(JSON.parse(a[behaviorSpecsAnnotation]).ScaleDown).toEqual({ StabilizationWindowSeconds: 300, SelectPolicy: 'Max', Policies: [{ Type: 'Pods', Value: 2, PeriodSeconds: 60 }], Tolerance: null });
    expect(a[conditionsAnnotation]).toBe('[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z","reason":"ReadyForNewScale"}]');
    expect(multi.metadata.annotations).toBeUndefined();
  });

  test('a v1 object written back restores the v2 form, the CPU metric after the annotation\'s', () => {
    const back = hpaToStorage(hpaV2ToV1(multi));
    expect(back.metadata.annotations).toBeUndefined();
    const spec = back.spec as Record<string, unknown[]>;
    expect(spec.metrics.map((m) => (m as { type: string }).type)).toEqual(['Resource', 'Object', 'Resource']);
    expect(spec.metrics[2]).toEqual(cpu(65));
    expect(spec.behavior).toEqual((multi.spec as Record<string, unknown>).behavior);
    expect(back.status).toEqual({
      currentReplicas: 3, desiredReplicas: 4,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 70 } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ReadyForNewScale' }],
    });
  });

  test('user annotations stay, a stale round-trip annotation is dropped', () => {
    const o = v2({ maxReplicas: 3 });
    o.metadata.annotations = { team: 'web', [metricSpecsAnnotation]: '[]' };
    expect(hpaV2ToV1(o).metadata.annotations).toEqual({ team: 'web' });
    const v1 = hpa('v1', { maxReplicas: 3, targetCPUUtilizationPercentage: 50 }, { team: 'web' });
    expect(hpaV1ToV2(v1).metadata.annotations).toEqual({ team: 'web' });
  });

  test('a v1 annotation that is not JSON is a bad request', () => {
    const v1 = hpa('v1', { maxReplicas: 3 }, { [metricSpecsAnnotation]: '[' });
    expect(() => hpaV1ToV2(v1)).toThrow(/cannot be handled as a HorizontalPodAutoscaler/);
  });

  test('the v1 definition is served from v2 storage', () => {
    expect(horizontalPodAutoscalersV1.conversion!.storageVersion).toBe('v2');
  });
});

describe('HorizontalPodAutoscaler printer', () => {
  test('reference, targets, bounds and replicas, from either version', () => {
    const o = v2({ maxReplicas: 10, metrics: [cpu(80), { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100' } } }] });
    o.status = { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 41 } } }] };
    o.metadata.creationTimestamp = '2026-01-02T03:00:00Z';
    const now = Date.parse('2026-01-02T03:00:30Z');
    expect(hpaCells(o, now)).toEqual(['Deployment/web', 'cpu: 41%/80%, <unknown>/100', '1', 10, 2, '30s']);
    // The v1 form only knows the CPU target apart from the others, so it comes back last.
    expect(horizontalPodAutoscalersV1.table!.cells(hpaV2ToV1(o)).slice(0, 5)).toEqual(['Deployment/web', '<unknown>/100, cpu: <unknown>/80%', '1', 10, 2]);
  });

  test('more than two metrics are summarized', () => {
    expect(formatHPAMetrics([cpu(1), cpu(2), cpu(3), cpu(4)], [])).toBe('cpu: <unknown>/1%, cpu: <unknown>/2% + 2 more...');
    expect(formatHPAMetrics([], [])).toBe('<none>');
  });
});
