import type { KubeObject, StatusStrategy, Strategy } from '../../types.js';
import { daemonSets, defaultDaemonSet, validateDaemonSetSpec, validateDaemonSetStatusUpdate } from './daemonsets.js';
import { clone, rendered, workload } from './testobjects.js';

const strategy = daemonSets.strategy as Required<Pick<Strategy, 'normalize' | 'prepareForCreate' | 'prepareForUpdate' | 'validateUpdate'>>;
const status = daemonSets.subresourceStrategies!.status as Required<StatusStrategy>;
const annotation = 'deprecated.daemonset.template.generation';

function daemonSet(spec: Record<string, unknown> = {}): KubeObject {
  const ds = workload('DaemonSet', 'agent', spec);
  defaultDaemonSet(ds);
  return ds;
}

describe('DaemonSet', () => {
  test('defaults: RollingUpdate with maxUnavailable 1 and maxSurge 0, 10 revisions', () => {
    expect(daemonSet().spec).toMatchObject({ revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
    expect((daemonSet({ updateStrategy: { type: 'OnDelete' } }).spec as Record<string, unknown>).updateStrategy).toEqual({ type: 'OnDelete' });
  });

  test('the template generation annotation: 1 on create, +1 on template changes, kept by metadata and status writes', () => {
    const ds = daemonSet();
    strategy.prepareForCreate(ds);
    expect(ds.metadata.annotations).toEqual({ [annotation]: '1' });

    const relabeled = clone(ds);
    relabeled.metadata.annotations = { [annotation]: '7', note: 'x' };
    strategy.prepareForUpdate(relabeled, ds);
    expect(relabeled.metadata.annotations).toEqual({ [annotation]: '1', note: 'x' });
    expect(relabeled.metadata.generation).toBe(1);

    const changed = clone(ds);
    (changed.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0].image = 'app:9';
    strategy.prepareForUpdate(changed, ds);
    expect(changed.metadata.annotations).toEqual({ [annotation]: '2' });
    expect(changed.metadata.generation).toBe(2);

    const statusWrite = clone(changed);
    statusWrite.metadata.annotations = {};
    (statusWrite.spec as Record<string, unknown>).minReadySeconds = 5;
    statusWrite.status = { numberReady: 1 };
    status.prepareForUpdate(statusWrite, changed);
    expect(statusWrite.metadata.annotations).toEqual({ [annotation]: '2' });
    expect((statusWrite.spec as Record<string, unknown>).minReadySeconds).toBeUndefined();
  });

  test('an annotation that is not an integer is refused as undecodable', () => {
    const ds = daemonSet();
    ds.metadata.annotations = { [annotation]: 'x' };
    expect(() => strategy.normalize(ds)).toThrow('DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing "x": invalid syntax');
  });

  test('validation: selector mismatch, rolling update rules, unknown strategy', () => {
    expect(validateDaemonSetSpec(daemonSet())).toEqual([]);
    expect(rendered(validateDaemonSetSpec(daemonSet({ selector: { matchLabels: { app: 'other' } } })))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
    expect(rendered(validateDaemonSetSpec(daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } })))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
    expect(rendered(validateDaemonSetSpec(daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: 1 } } })))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero',
    ]);
    expect(rendered(validateDaemonSetSpec(daemonSet({ updateStrategy: { type: 'Recreate' } })))).toEqual([
      'spec.updateStrategy: Unsupported value: {"Type":"Recreate","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"',
    ]);
  });

  test('a missing selector is no error of its own, only a template mismatch; an empty one is refused', () => {
    const ds = daemonSet();
    delete (ds.spec as Record<string, unknown>).selector;
    expect(rendered(validateDaemonSetSpec(ds))).toEqual(['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']);
    expect(rendered(validateDaemonSetSpec(daemonSet({ selector: {} })))).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for daemonset']);
  });

  test('the selector is immutable', () => {
    const old = daemonSet();
    const next = clone(old);
    (next.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web', v: '2' } };
    (next.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'web', v: '2' };
    expect(rendered(strategy.validateUpdate(next, old))).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable']);
  });

  test('an update tolerates an invalid expression value the stored selector already had', () => {
    const sel = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['bad value'] }] };
    const old = daemonSet({ selector: sel });
    expect(rendered(validateDaemonSetSpec(old)).map((e) => e.split(':')[0])).toEqual(['spec.selector.matchExpressions[0].values[0]']);
    const next = clone(old);
    (next.spec as Record<string, unknown>).minReadySeconds = 5;
    expect(strategy.validateUpdate(next, old)).toEqual([]);
  });

  test('status validation', () => {
    const old = daemonSet();
    const next = clone(old);
    next.status = { numberReady: -1, collisionCount: 0 };
    expect(rendered(validateDaemonSetStatusUpdate(next, old))).toEqual(['status.numberReady: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('table: DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS IMAGES SELECTOR', () => {
    const ds = daemonSet();
    (ds.spec as { template: { spec: Record<string, unknown> } }).template.spec.nodeSelector = { 'kubernetes.io/os': 'linux', a: 'b' };
    ds.status = { desiredNumberScheduled: 3, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1 };
    expect(daemonSets.table!.columns.map((c) => c.name)).toEqual(['Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector']);
    const cells = daemonSets.table!.cells(ds);
    expect([...cells.slice(0, 6), ...cells.slice(7)]).toEqual([3, 2, 1, 2, 1, 'a=b,kubernetes.io/os=linux', 'app', 'registry.example.com/team/app:1.4.2', 'app=web']);
  });
});
