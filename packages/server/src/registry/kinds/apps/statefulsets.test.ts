import type { KubeObject, Strategy } from '../../types.js';
import { defaultStatefulSet, statefulSets, validateStatefulSetSpec, validateStatefulSetStatusUpdate, validateStatefulSetUpdate } from './statefulsets.js';
import { clone, rendered, workload } from './testobjects.js';

const strategy = statefulSets.strategy as Required<Pick<Strategy, 'normalize' | 'prepareForUpdate' | 'nameValidator'>>;

function statefulSet(spec: Record<string, unknown> = {}): KubeObject {
  const s = workload('StatefulSet', 'db', { serviceName: 'db', ...spec });
  defaultStatefulSet(s);
  return s;
}

const claim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };

describe('StatefulSet defaults (1.35)', () => {
  test('OrderedReady, RollingUpdate with partition 0 and maxUnavailable 1, Retain/Retain, one replica, 10 revisions', () => {
    expect(statefulSet().spec).toMatchObject({
      podManagementPolicy: 'OrderedReady', replicas: 1, revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
  });

  test('an explicit RollingUpdate without parameters gets none; OnDelete gets none', () => {
    expect((statefulSet({ updateStrategy: { type: 'RollingUpdate' } }).spec as Record<string, unknown>).updateStrategy).toEqual({ type: 'RollingUpdate' });
    expect((statefulSet({ updateStrategy: { type: 'OnDelete' } }).spec as Record<string, unknown>).updateStrategy).toEqual({ type: 'OnDelete' });
    expect((statefulSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }).spec as Record<string, unknown>).updateStrategy)
      .toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 1 } });
  });

  test('claim templates get the PVC defaults and, stored, apiVersion and kind', () => {
    const s = statefulSet({ volumeClaimTemplates: [clone(claim)] });
    strategy.normalize(s);
    expect((s.spec as { volumeClaimTemplates: unknown[] }).volumeClaimTemplates).toEqual([{
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    }]);
  });

  test('names are DNS labels', () => {
    expect(strategy.nameValidator('db.0', false)).toEqual(['must not contain dots']);
  });
});

describe('StatefulSet validation', () => {
  test('a defaulted set is valid, with a template mounting its claim', () => {
    const s = statefulSet({ volumeClaimTemplates: [clone(claim)] });
    (s.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
    expect(validateStatefulSetSpec(s)).toEqual([]);
  });

  test('the pod template is validated (1.34+) over the claim templates\' volumes', () => {
    const s = statefulSet();
    (s.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
    expect(rendered(validateStatefulSetSpec(s))).toEqual(['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"']);
  });

  test('claim templates are validated as claim specs (1.34+), except on updates of a set that already had invalid ones', () => {
    const bad = { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } };
    const s = statefulSet({ volumeClaimTemplates: [clone(bad)] });
    expect(rendered(validateStatefulSetSpec(s))).toEqual(['spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required']);
    const next = clone(s);
    (next.spec as Record<string, unknown>).replicas = 3;
    expect(validateStatefulSetUpdate(next, s)).toEqual([]);
  });

  test('podManagementPolicy and updateStrategy values', () => {
    expect(rendered(validateStatefulSetSpec(statefulSet({ podManagementPolicy: 'Random' })))).toEqual([
      "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
    ]);
    expect(rendered(validateStatefulSetSpec(statefulSet({ updateStrategy: { type: 'Blue' } })))).toEqual([
      'spec.updateStrategy: Invalid value: {"Type":"Blue","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\'',
    ]);
    expect(rendered(validateStatefulSetSpec(statefulSet({ updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } })))).toEqual([
      'spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy \'RollingUpdate\'',
    ]);
  });

  test('rolling update parameters, retention policy, ordinals', () => {
    const s = statefulSet({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1, maxUnavailable: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep', whenScaled: 'Delete' },
      ordinals: { start: -1 },
    });
    expect(rendered(validateStatefulSetSpec(s))).toEqual([
      'spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0',
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
      'spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('selector required, empty or refused', () => {
    const s = statefulSet();
    delete (s.spec as Record<string, unknown>).selector;
    expect(rendered(validateStatefulSetSpec(s))).toEqual([
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
    expect(rendered(validateStatefulSetSpec(statefulSet({ selector: {} })))).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for statefulset']);
    expect(rendered(validateStatefulSetSpec(statefulSet({ selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } })))).toEqual([
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}',
    ]);
  });

  test('only some spec fields may change (1.35 lets revisionHistoryLimit change too)', () => {
    const old = statefulSet();
    const next = clone(old);
    Object.assign(next.spec as Record<string, unknown>, { replicas: 5, revisionHistoryLimit: 3, minReadySeconds: 4 });
    expect(validateStatefulSetUpdate(next, old)).toEqual([]);
    (next.spec as Record<string, unknown>).serviceName = 'other';
    expect(rendered(validateStatefulSetUpdate(next, old))).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });

  test('generation follows the spec', () => {
    const old = statefulSet();
    const next = clone(old);
    next.metadata.labels = { a: 'b' };
    strategy.prepareForUpdate(next, old);
    expect(next.metadata.generation).toBe(1);
    (next.spec as Record<string, unknown>).replicas = 2;
    strategy.prepareForUpdate(next, old);
    expect(next.metadata.generation).toBe(2);
  });

  test('status validation', () => {
    const old = statefulSet();
    old.status = { collisionCount: 1 };
    const next = clone(old);
    next.status = { replicas: 1, readyReplicas: 1, availableReplicas: 2, currentReplicas: 2 };
    expect(rendered(validateStatefulSetStatusUpdate(next, old))).toEqual([
      'status.currentReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ]);
  });

  test('table: READY AGE CONTAINERS IMAGES', () => {
    const s = statefulSet({ replicas: 3 });
    s.status = { readyReplicas: 2 };
    expect(statefulSets.table!.columns.map((c) => [c.name, c.priority])).toEqual([['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
    const cells = statefulSets.table!.cells(s);
    expect([cells[0], cells[2], cells[3]]).toEqual(['2/3', 'app', 'registry.example.com/team/app:1.4.2']);
  });
});
