import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { replicationControllers } from './replicationcontrollers.js';
import { podTemplates } from './podtemplates.js';

type Json = Record<string, any>;

function rc(spec: Json, metadata: Json = {}): KubeObject {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'ns', ...metadata }, spec };
  replicationControllers.strategy!.defaults!(obj);
  return obj;
}

const template = (labels: Json = { app: 'web' }) => ({ metadata: { labels }, spec: { containers: [{ name: 'app', image: 'a:1' }] } });

describe('ReplicationController', () => {
  test('selector and labels default to the template labels, replicas to 1, the template gets pod defaults', () => {
    const obj = rc({ template: template() });
    expect(obj.metadata.labels).toEqual({ app: 'web' });
    expect((obj.spec as Json).selector).toEqual({ app: 'web' });
    expect((obj.spec as Json).replicas).toBe(1);
    expect((obj.spec as Json).template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 });
    expect(replicationControllers.strategy!.validate!(obj)).toEqual([]);
  });

  test('kube\'s messages: selector mismatch (map printed as Go does), negative replicas, no containers', () => {
    const mismatch = rc({ selector: { app: 'other' }, template: template() });
    expect(replicationControllers.strategy!.validate!(mismatch).map(fieldErrorString)).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    const negative = rc({ replicas: -1, template: template() });
    expect(replicationControllers.strategy!.validate!(negative).map(fieldErrorString)).toEqual(['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
    const empty = rc({ template: { metadata: { labels: { app: 'web' } }, spec: {} } });
    expect(replicationControllers.strategy!.validate!(empty).map(fieldErrorString)).toEqual(['spec.template.spec.containers: Required value']);
    const never = rc({ template: { ...template(), spec: { containers: [{ name: 'app', image: 'a:1' }], restartPolicy: 'Never' } } });
    expect(replicationControllers.strategy!.validate!(never).map(fieldErrorString)).toEqual(['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
  });

  test('scale reads the selector as a string; status validation', () => {
    const obj = rc({ replicas: 3, selector: { tier: 'fe', app: 'web' }, template: template({ app: 'web', tier: 'fe' }) });
    obj.status = { replicas: 2, readyReplicas: 3 };
    const scale = replicationControllers.scale!;
    expect([scale.specReplicas(obj), scale.statusReplicas(obj), scale.selector(obj)]).toEqual([3, 2, 'app=web,tier=fe']);
    scale.setSpecReplicas(obj, 5);
    expect((obj.spec as Json).replicas).toBe(5);
    expect(replicationControllers.subresourceStrategies!.status.validateUpdate!(obj, obj).map(fieldErrorString)).toEqual(['status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas']);
    expect(replicationControllers.selectableFields!['status.replicas'](obj)).toBe('2');
  });

  test('table cells (printReplicationController)', () => {
    const obj = rc({ replicas: 3, template: template() });
    obj.status = { replicas: 1, readyReplicas: 1 };
    const cells = replicationControllers.table!.cells(obj);
    expect([cells[0], cells[1], cells[2], cells[4], cells[5], cells[6]]).toEqual([3, 1, 1, 'app', 'a:1', 'app=web']);
  });
});

describe('PodTemplate', () => {
  test('defaults, validation path and generation on template change', () => {
    const t: KubeObject = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl', namespace: 'ns', generation: 1 }, template: { metadata: { labels: { app: 'web' } }, spec: {} } };
    podTemplates.strategy!.defaults!(t);
    expect((t.template as Json).spec).toMatchObject({ restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {} });
    expect(podTemplates.strategy!.validate!(t).map(fieldErrorString)).toEqual(['template.spec.containers: Required value']);
    const next: KubeObject = structuredClone(t);
    (next.template as Json).spec.containers = [{ name: 'app', image: 'a:1' }];
    podTemplates.strategy!.prepareForUpdate!(next, t);
    expect(next.metadata.generation).toBe(2);
    expect(podTemplates.table!.cells({ ...next, metadata: next.metadata })).toEqual(['app', 'a:1', 'app=web']);
  });
});
