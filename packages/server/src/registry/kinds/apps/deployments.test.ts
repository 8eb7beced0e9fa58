import type { KubeObject, Strategy, StatusStrategy } from '../../types.js';
import { deployments, defaultDeployment, validateDeploymentSpec, validateDeploymentStatusUpdate } from './deployments.js';
import { clone, rendered, workload } from './testobjects.js';

const strategy = deployments.strategy as Required<Pick<Strategy, 'validate' | 'validateUpdate' | 'prepareForUpdate' | 'normalize'>>;
const status = deployments.subresourceStrategies!.status as Required<StatusStrategy>;

function deployment(spec: Record<string, unknown> = {}): KubeObject {
  const d = workload('Deployment', 'web', spec);
  defaultDeployment(d);
  return d;
}

describe('Deployment defaults (SetDefaults_Deployment)', () => {
  test('a minimal deployment gets one replica, a 25%/25% rolling update, 10 revisions and a 600 s deadline', () => {
    const d = workload('Deployment', 'web', {});
    defaultDeployment(d);
    expect(d.spec).toMatchObject({
      replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
  });

  test('values sent are kept, and Recreate gets no rolling update parameters', () => {
    const d = workload('Deployment', 'web', { replicas: 0, revisionHistoryLimit: 0, strategy: { type: 'Recreate' } });
    defaultDeployment(d);
    expect(d.spec).toMatchObject({ replicas: 0, revisionHistoryLimit: 0, strategy: { type: 'Recreate' } });
    expect((d.spec as { strategy: Record<string, unknown> }).strategy.rollingUpdate).toBeUndefined();
  });

  test('a partial rolling update is completed', () => {
    const d = workload('Deployment', 'web', { strategy: { rollingUpdate: { maxSurge: 0 } } });
    defaultDeployment(d);
    expect((d.spec as Record<string, unknown>).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '25%' } });
  });
});

describe('Deployment validation (ValidateDeploymentSpec)', () => {
  test('a defaulted deployment is valid', () => {
    expect(validateDeploymentSpec(deployment())).toEqual([]);
  });

  test('negative replicas', () => {
    expect(rendered(validateDeploymentSpec(deployment({ replicas: -1 })))).toEqual(['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('a missing selector is required and matches no template labels', () => {
    const d = deployment();
    delete (d.spec as Record<string, unknown>).selector;
    expect(rendered(validateDeploymentSpec(d))).toEqual([
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('an empty selector', () => {
    expect(rendered(validateDeploymentSpec(deployment({ selector: {} })))).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
  });

  test('a selector that does not match the template, labels printed as JSON with sorted keys', () => {
    const d = deployment({ selector: { matchLabels: { app: 'other' } } });
    (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { z: '1', app: 'web' };
    expect(rendered(validateDeploymentSpec(d))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web","z":"1"}: `selector` does not match template `labels`',
    ]);
  });

  test('an invalid selector expression is reported, then refused as a label selector', () => {
    const errs = rendered(validateDeploymentSpec(deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] } })));
    expect(errs).toEqual([
      'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near","values":["web"]}]}: invalid label selector',
    ]);
  });

  test('an unknown strategy prints the internal struct as JSON', () => {
    expect(rendered(validateDeploymentSpec(deployment({ strategy: { type: 'Canary' } })))).toEqual([
      'spec.strategy: Unsupported value: {"Type":"Canary","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  test('maxSurge and maxUnavailable both 0', () => {
    expect(rendered(validateDeploymentSpec(deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } })))).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
    ]);
  });

  test('maxUnavailable over 100% and a malformed percentage', () => {
    expect(rendered(validateDeploymentSpec(deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '5x', maxUnavailable: '150%' } } })))).toEqual([
      "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"5x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    ]);
  });

  test('Recreate with rolling update parameters', () => {
    expect(rendered(validateDeploymentSpec(deployment({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } })))).toEqual([
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
  });

  test('a template that does not restart, or has a deadline', () => {
    const d = deployment();
    const pod = (d.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    pod.restartPolicy = 'Never';
    pod.activeDeadlineSeconds = 5;
    expect(rendered(validateDeploymentSpec(d))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });

  test('progressDeadlineSeconds must exceed minReadySeconds', () => {
    expect(rendered(validateDeploymentSpec(deployment({ minReadySeconds: 10, progressDeadlineSeconds: 10 })))).toEqual([
      'spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds',
    ]);
  });

  test('the deprecated rollback annotation: a negative revision is invalid, a non-integer is a 400', () => {
    const d = deployment();
    d.metadata.annotations = { 'deprecated.deployment.rollback.to': '-1' };
    expect(rendered(validateDeploymentSpec(d))).toEqual(['spec.rollback.version: Invalid value: -1: must be greater than or equal to 0']);
    d.metadata.annotations = { 'deprecated.deployment.rollback.to': 'x' };
    expect(() => strategy.normalize(d)).toThrow(
      'Deployment in version "v1" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=x as int64: strconv.ParseInt: parsing "x": invalid syntax',
    );
  });
});

describe('Deployment updates', () => {
  test('the selector is immutable', () => {
    const old = deployment();
    const next = clone(old);
    (next.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web', v: '2' } };
    (next.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'web', v: '2' };
    expect(rendered(strategy.validateUpdate(next, old))).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable']);
  });

  test('generation moves on spec and annotation changes, not on labels', () => {
    const old = deployment();
    const labels = clone(old);
    labels.metadata.labels = { team: 'a' };
    strategy.prepareForUpdate(labels, old);
    expect(labels.metadata.generation).toBe(1);
    const annotations = clone(old);
    annotations.metadata.annotations = { note: 'x' };
    strategy.prepareForUpdate(annotations, old);
    expect(annotations.metadata.generation).toBe(2);
    const replicas = clone(old);
    (replicas.spec as Record<string, unknown>).replicas = 3;
    strategy.prepareForUpdate(replicas, old);
    expect(replicas.metadata.generation).toBe(2);
  });

  test('a body without the zero values Go writes compares equal to the stored object', () => {
    const old = deployment();
    (old.spec as { template: { metadata: Record<string, unknown> } }).template.metadata.creationTimestamp = null;
    old.status = {};
    const next = deployment();
    strategy.prepareForUpdate(next, old);
    expect(next.metadata.generation).toBe(1);
  });

  test('a status write keeps the spec and the labels, takes the annotations', () => {
    const old = deployment();
    old.metadata.labels = { team: 'a' };
    old.metadata.annotations = { note: 'x' };
    const next = deployment({ replicas: 9 });
    next.metadata.annotations = {};
    next.status = { replicas: 2 };
    status.prepareForUpdate(next, old);
    expect((next.spec as Record<string, unknown>).replicas).toBe(1);
    expect(next.metadata.labels).toEqual({ team: 'a' });
    expect(next.metadata.annotations).toEqual({});
    expect(next.status).toEqual({ replicas: 2 });
  });

  test('status validation', () => {
    const old = deployment();
    old.status = { collisionCount: 2 };
    const next = clone(old);
    next.status = { replicas: 1, readyReplicas: 2, availableReplicas: 3, updatedReplicas: -1, collisionCount: 1 };
    expect(rendered(validateDeploymentStatusUpdate(next, old))).toEqual([
      'status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });
});

describe('Deployment scale and table', () => {
  test('/scale reads spec and status replicas and the selector string', () => {
    const d = deployment({ selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['cache'] }] } });
    d.status = { replicas: 2 };
    expect(deployments.scale!.specReplicas(d)).toBe(1);
    expect(deployments.scale!.statusReplicas(d)).toBe(2);
    expect(deployments.scale!.selector(d)).toBe('app=web,tier notin (cache)');
    deployments.scale!.setSpecReplicas(d, 5);
    expect((d.spec as Record<string, unknown>).replicas).toBe(5);
  });

  test('kubectl get deploy -o wide: READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR', () => {
    const d = deployment({ replicas: 3 });
    d.status = { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 };
    expect(deployments.table!.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Ready', 'string', 0], ['Up-to-date', 'string', 0], ['Available', 'string', 0], ['Age', 'string', 0],
      ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1],
    ]);
    const cells = deployments.table!.cells(d);
    expect([cells[0], cells[1], cells[2], ...cells.slice(4)]).toEqual(['1/3', 2, 1, 'app', 'registry.example.com/team/app:1.4.2', 'app=web']);
  });
});
