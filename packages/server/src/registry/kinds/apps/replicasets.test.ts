import type { KubeObject, Strategy } from '../../types.js';
import { defaultReplicaSet, replicaSets, validateReplicaSetSpec, validateReplicaSetStatusUpdate } from './replicasets.js';
import { clone, rendered, workload } from './testobjects.js';

const strategy = replicaSets.strategy as Required<Pick<Strategy, 'validateUpdate' | 'prepareForUpdate'>>;

function replicaSet(spec: Record<string, unknown> = {}): KubeObject {
  const rs = workload('ReplicaSet', 'web-5d9c7f', spec);
  defaultReplicaSet(rs);
  return rs;
}

describe('ReplicaSet', () => {
  test('defaults: one replica, the values sent kept', () => {
    expect((replicaSet().spec as Record<string, unknown>).replicas).toBe(1);
    expect((replicaSet({ replicas: 0 }).spec as Record<string, unknown>).replicas).toBe(0);
  });

  test('validation: negative counts, kube\'s "deployment" wording for an empty selector', () => {
    expect(validateReplicaSetSpec(replicaSet())).toEqual([]);
    expect(rendered(validateReplicaSetSpec(replicaSet({ replicas: -1, minReadySeconds: -2 })))).toEqual([
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0',
    ]);
    expect(rendered(validateReplicaSetSpec(replicaSet({ selector: { matchLabels: {} } })))).toEqual([
      'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    ]);
  });

  test('a selector that does not match the template labels', () => {
    expect(rendered(validateReplicaSetSpec(replicaSet({ selector: { matchLabels: { app: 'api' } } })))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('an invalid label value in matchLabels is reported, then refused as a label selector', () => {
    expect(rendered(validateReplicaSetSpec(replicaSet({ selector: { matchLabels: { app: 'bad value' } } })))).toEqual([
      "spec.selector.matchLabels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      'spec.selector: Invalid value: {"matchLabels":{"app":"bad value"}}: invalid label selector',
    ]);
  });

  test('updates: the spec is validated twice as kube does, the selector is immutable, generation follows the spec', () => {
    const old = replicaSet();
    const next = clone(old);
    Object.assign(next.spec as Record<string, unknown>, { replicas: -1, selector: { matchLabels: { app: 'web', v: '2' } } });
    (next.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'web', v: '2' };
    expect(rendered(strategy.validateUpdate(next, old))).toEqual([
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable',
    ]);
    const labelsOnly = clone(old);
    labelsOnly.metadata.labels = { a: 'b' };
    labelsOnly.metadata.annotations = { a: 'b' };
    strategy.prepareForUpdate(labelsOnly, old);
    expect(labelsOnly.metadata.generation).toBe(1);
    const scaled = clone(old);
    (scaled.spec as Record<string, unknown>).replicas = 3;
    strategy.prepareForUpdate(scaled, old);
    expect(scaled.metadata.generation).toBe(2);
  });

  test('status validation', () => {
    const rs = replicaSet();
    rs.status = { replicas: 1, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 2, observedGeneration: -1 };
    expect(rendered(validateReplicaSetStatusUpdate(rs))).toEqual([
      'status.observedGeneration: Invalid value: -1: must be greater than or equal to 0',
      'status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas',
    ]);
  });

  test('the status.replicas field selector, /scale and the wide table', () => {
    const rs = replicaSet({ replicas: 3 });
    expect(replicaSets.selectableFields!['status.replicas'](rs)).toBe('0');
    rs.status = { replicas: 2, readyReplicas: 1 };
    expect(replicaSets.selectableFields!['status.replicas'](rs)).toBe('2');
    expect(replicaSets.scale!.selector(rs)).toBe('app=web');
    expect(replicaSets.table!.columns.map((c) => c.name)).toEqual(['Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
    const cells = replicaSets.table!.cells(rs);
    expect([...cells.slice(0, 3), ...cells.slice(4)]).toEqual([3, 2, 1, 'app', 'registry.example.com/team/app:1.4.2', 'app=web']);
    delete (rs.spec as Record<string, unknown>).selector;
    expect(replicaSets.table!.cells(rs)[6]).toBe('<none>');
  });
});
