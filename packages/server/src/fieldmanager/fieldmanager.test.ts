/**
 * managedFields and server-side apply through the server, with kube-apiserver's answers:
 * the field sets (FieldsV1 as kube writes them), managers named by fieldManager or the
 * User-Agent, conflicts and force, pruning of what an applier stops applying, and the fields
 * no writer owns (status through the main resource, server-set metadata).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from '../testing/client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fm' } } });
});
afterAll(async () => {
  await t.close();
});

type Entry = { manager: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: unknown; subresource?: string };
const entries = (body: unknown): Entry[] => ((body as { metadata: { managedFields?: Entry[] } }).metadata.managedFields ?? []);
const apply = (path: string, body: unknown, query: string) => t.call('PATCH', `${path}?${query}`, { body, contentType: 'application/apply-patch+yaml' });

const deployments = '/apis/apps/v1/namespaces/fm/deployments';
const deployment = (name: string, image = 'nginx') => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] } },
  },
});

test('a create records what the writer set, defaults and Go-written empty structs included, as kube does for kubectl create', async () => {
  const r = await t.call('POST', deployments, { body: deployment('created'), headers: { 'user-agent': 'kubectl-create/v1.35.0 (linux/amd64) kubernetes/abc' } });
  expect(r.status).toBe(201);
  const [e] = entries(r.body);
  expect(e).toMatchObject({ manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
  expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(e.fieldsV1).toEqual({
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:progressDeadlineSeconds': {}, 'f:replicas': {}, 'f:revisionHistoryLimit': {}, 'f:selector': {},
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"nginx"}': {
              '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {},
              'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
              'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {},
            },
          },
          'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {},
        },
      },
    },
  });
  // The bytes are FieldsV1 as kube serializes them: "." first, then children in path-element order.
  expect(r.text).toContain('"f:labels":{".":{},"f:app":{}}');
});

test('an update hands the changed fields to its writer; the others keep the rest', async () => {
  const path = `${deployments}/created`;
  const cur = (await t.call('GET', path)).body as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
  cur.spec.replicas = 3;
  const r = await t.call('PUT', `${path}?fieldManager=scaler`, { body: cur });
  expect(r.status).toBe(200);
  const es = entries(r.body);
  expect(es.map((e) => e.manager)).toEqual(['kubectl-create', 'scaler']);
  expect(es[1].fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  expect(JSON.stringify(es[0].fieldsV1)).not.toContain('f:replicas');
  // A write that changes nothing keeps the entries as they were, times included.
  const again = await t.call('PUT', `${path}?fieldManager=scaler`, { body: r.body });
  expect(entries(again.body)).toEqual(es);
});

test('a status write through the main resource owns nothing; one through /status is recorded with its subresource', async () => {
  const path = `${deployments}/created`;
  const cur = (await t.call('GET', path)).body as Record<string, unknown>;
  const main = await t.call('PUT', `${path}?fieldManager=sneaky`, { body: { ...cur, status: { replicas: 7 } } });
  expect(entries(main.body).some((e) => e.manager === 'sneaky')).toBe(false);
  const st = await t.call('PUT', `${path}/status?fieldManager=controller`, { body: { ...cur, status: { replicas: 2 } } });
  expect(st.status).toBe(200);
  const e = entries(st.body).find((x) => x.manager === 'controller');
  expect(e).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } });
});

const configmaps = '/api/v1/namespaces/fm/configmaps';

test('server-side apply: create, no-op re-apply, conflict, force, and pruning of what an applier stops applying', async () => {
  const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', labels: { owner: 'a' } }, data: { 'a-only': '1', shared: 'from-a' } };
  const created = await apply(`${configmaps}/applied`, a, 'fieldManager=golden-a');
  expect(created.status).toBe(201);
  expect(entries(created.body)).toEqual([
    { manager: 'golden-a', operation: 'Apply', apiVersion: 'v1', time: expect.any(String), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a-only': {}, 'f:shared': {} }, 'f:metadata': { 'f:labels': { 'f:owner': {} } } } },
  ]);
  const rv = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const same = await apply(`${configmaps}/applied`, a, 'fieldManager=golden-a');
  expect(same.status).toBe(200);
  expect((same.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(rv);

  const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { shared: 'from-b' } };
  const conflict = await apply(`${configmaps}/applied`, b, 'fieldManager=golden-b');
  expect(conflict.status).toBe(409);
  expect(conflict.body).toEqual({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
    message: 'Apply failed with 1 conflict: conflict with "golden-a": .data.shared',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "golden-a"', field: '.data.shared' }] },
  });

  const forced = await apply(`${configmaps}/applied`, b, 'fieldManager=golden-b&force=true');
  expect(forced.status).toBe(200);
  expect((forced.body as { data: unknown }).data).toEqual({ 'a-only': '1', shared: 'from-b' });
  expect(entries(forced.body).map((e) => [e.manager, e.fieldsV1])).toEqual([
    ['golden-a', { 'f:data': { 'f:a-only': {} }, 'f:metadata': { 'f:labels': { 'f:owner': {} } } }],
    ['golden-b', { 'f:data': { 'f:shared': {} } }],
  ]);

  // golden-a no longer applies its label: only it owned it, so it goes; b's field stays.
  const pruned = await apply(`${configmaps}/applied`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { 'a-only': '2' } }, 'fieldManager=golden-a');
  expect(pruned.status).toBe(200);
  const body = pruned.body as { data: unknown; metadata: { labels?: unknown } };
  expect(body.data).toEqual({ 'a-only': '2', shared: 'from-b' });
  expect(body.metadata.labels).toBeUndefined();
});

test('conflicts with several Update managers are listed under each, with its apiVersion', async () => {
  await t.call('POST', deployments, { body: deployment('contested'), headers: { 'user-agent': 'kubectl-create/v1.35.0' } });
  const r = await apply(`${deployments}/contested`, { ...deployment('contested', 'nginx:1.27'), spec: { ...deployment('contested', 'nginx:1.27').spec, replicas: 3 } }, 'fieldManager=kubectl');
  expect(r.status).toBe(409);
  expect((r.body as { message: string }).message).toBe(
    'Apply failed with 2 conflicts: conflicts with "kubectl-create" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
  );
});

test('an atomic struct the server defaulted conflicts when applied without the default, as kube, which does not default the applied configuration before comparing', async () => {
  // kubectl's client-side apply, then \`kubectl apply --server-side\` of the same manifest: ObjectFieldSelector
  // is +structType=atomic, and the stored fieldRef has apiVersion defaulted to v1.
  const withEnv = (fieldRef: Record<string, string>) => {
    const d = deployment('fieldref');
    d.spec.template.spec.containers[0] = { ...d.spec.template.spec.containers[0], env: [{ name: 'IP', valueFrom: { fieldRef } }] } as never;
    return d;
  };
  const created = await t.call('POST', deployments, { body: withEnv({ fieldPath: 'status.podIP' }), headers: { 'user-agent': 'kubectl-client-side-apply/v1.35.0' } });
  expect(created.status).toBe(201);
  const conflict = await apply(`${deployments}/fieldref`, withEnv({ fieldPath: 'status.podIP' }), 'fieldManager=kubectl');
  expect(conflict.status).toBe(409);
  expect((conflict.body as { message: string }).message).toBe(
    'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.template.spec.containers[name="nginx"].env[name="IP"].valueFrom.fieldRef',
  );
  // The same struct as stored, default included: the two managers share it.
  const shared = await apply(`${deployments}/fieldref`, withEnv({ apiVersion: 'v1', fieldPath: 'status.podIP' }), 'fieldManager=kubectl');
  expect(shared.status).toBe(200);
  expect(entries(shared.body).map((e) => e.manager).sort()).toEqual(['kubectl', 'kubectl-client-side-apply']);
});

test('apply refuses bodies kube refuses, with its messages', async () => {
  const path = `${configmaps}/x`;
  expect((await apply(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } }, 'fieldManager=m')).body).toMatchObject({ code: 400, message: 'the name of the object (y) does not match the name on the URL (x)' });
  expect((await apply(path, { data: { a: 'b' }, metadata: { name: 'x' } }, 'fieldManager=m')).body).toMatchObject({ code: 400, message: 'invalid object type: /, Kind=' });
  const unknown = await apply(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, bogus: 1 }, 'fieldManager=m');
  expect(unknown.status).toBe(500);
  expect((unknown.body as { message: string }).message).toBe('failed to create typed patch object (/x; /v1, Kind=ConfigMap): .bogus: field not declared in schema');
  // SMD's type conversion refuses values of the wrong shape or scalar kind (nothing is stored).
  const typed = async (obj: Record<string, unknown>, at = path) => {
    const r = await apply(at, obj, 'fieldManager=m');
    expect(r.status).toBe(500);
    return (r.body as { message: string }).message;
  };
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  expect(await typed({ ...cm, data: 5 })).toBe('failed to create typed patch object (/x; /v1, Kind=ConfigMap): .data: expected map, got &{5}');
  expect(await typed({ ...cm, data: { a: [1, 'b'] } })).toBe('failed to create typed patch object (/x; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:[]interface {}{1, "b"}}');
  expect(await typed({ ...cm, immutable: 'yes' })).toBe('failed to create typed patch object (/x; /v1, Kind=ConfigMap): .immutable: expected boolean, got &{yes}');
  expect(await typed({ ...cm, metadata: { name: 'x', finalizers: 'a' } })).toBe('failed to create typed patch object (/x; /v1, Kind=ConfigMap): .metadata.finalizers: expected list, got &{a}');
  const web = deployment('typed');
  expect(await typed({ ...web, spec: { ...web.spec, replicas: '3' } }, `${deployments}/typed`)).toBe(
    'failed to create typed patch object (/typed; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string',
  );
  expect((await t.call('GET', path)).status).toBe(404);
  // int-or-string and Quantity are untyped scalars: a number or a string, never a map.
  const ports = structuredClone(web) as { spec: { strategy?: unknown; template: { spec: { containers: Array<Record<string, unknown>> } } } };
  ports.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } };
  ports.spec.template.spec.containers[0].resources = { limits: { cpu: 1, memory: '64Mi' } };
  expect((await apply(`${deployments}/typed`, ports, 'fieldManager=m')).status).toBe(201);
  ports.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: { n: 1 } } };
  expect(await typed(ports, `${deployments}/typed`)).toBe(
    'failed to create typed patch object (/typed; apps/v1, Kind=Deployment): .spec.strategy.rollingUpdate.maxSurge: expected any scalar, got &{map[n:1]}',
  );
  const noManager = await apply(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, '');
  expect(noManager.status).toBe(422);
  expect((noManager.body as { message: string }).message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const managed = await apply(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields: [] } }, 'fieldManager=m');
  expect((managed.body as { message: string }).message).toBe('metadata.managedFields must be nil');
  const forceOnMerge = await t.call('PATCH', `${path}?force=true`, { body: {}, contentType: 'application/merge-patch+json' });
  expect((forceOnMerge.body as { message: string }).message).toContain('force: Forbidden: may not be specified for non-apply patch');
});

test('a map-list item keyed by a defaulted key field is named with the default, as kube names container ports', async () => {
  const r = await apply(`${deployments}/ports`, deployment('ports'), 'fieldManager=ci');
  expect(r.status).toBe(201);
  const [e] = entries(r.body);
  expect(JSON.stringify(e.fieldsV1)).toContain('"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}');
});

test('a client may reset the entries with an empty list; more than ten Update managers fold into ancient-changes', async () => {
  const path = `${configmaps}/many`;
  await t.call('POST', configmaps, { body: { metadata: { name: 'many' }, data: { k0: 'v' } }, headers: { 'user-agent': 'maker/1' } });
  for (let i = 1; i <= 11; i++) {
    const cur = (await t.call('GET', path)).body as { data: Record<string, string> };
    cur.data[`k${i}`] = 'v';
    expect((await t.call('PUT', `${path}?fieldManager=m${i}`, { body: cur })).status).toBe(200);
  }
  const managers = entries((await t.call('GET', path)).body).map((e) => e.manager);
  expect(managers).toHaveLength(10);
  expect(managers).toContain('ancient-changes');
  const cur = (await t.call('GET', path)).body as { metadata: Record<string, unknown> };
  cur.metadata.managedFields = [];
  const reset = await t.call('PUT', path, { body: cur });
  expect(entries(reset.body)).toEqual([]);
});

test('a write the strategy turns into no change stays a no-op: the manager time does not move (kube ignores timestamp-only changes)', async () => {
  const path = '/api/v1/namespaces/fm/endpoints';
  // Two subsets with the same ports are repacked into one by the strategy, after the field manager saw them.
  const body = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'repacked' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1 }] }, { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 1 }] }] };
  const created = await t.call('POST', `${path}?fieldManager=a`, { body });
  expect(created.status).toBe(201);
  const before = created.body as { metadata: { resourceVersion: string; managedFields: unknown } };
  await new Promise((r) => setTimeout(r, 1100));
  const again = await t.call('PUT', `${path}/repacked?fieldManager=a`, { body });
  expect(again.status).toBe(200);
  const after = again.body as { metadata: { resourceVersion: string; managedFields: unknown } };
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(after.metadata.managedFields).toEqual(before.metadata.managedFields);
});

test('re-applying a Deployment that spells out zero values of non-pointer fields (`readOnly: false`) writes nothing: the generation stays', async () => {
  const body = deployment('zeros');
  const pod = body.spec.template.spec as Record<string, unknown>;
  pod.containers = [{ name: 'nginx', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: false }] }];
  pod.volumes = [{ name: 'data', emptyDir: {} }];
  const path = `${deployments}/zeros`;
  const first = await apply(path, body, 'fieldManager=kubectl');
  expect(first.status).toBe(201);
  const again = await apply(path, body, 'fieldManager=kubectl');
  expect(again.status).toBe(200);
  const before = first.body as { metadata: { resourceVersion: string; generation: number } };
  const after = again.body as { metadata: { resourceVersion: string; generation: number }; spec: any };
  expect(after.metadata.generation).toBe(1);
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  // The stored struct has no readOnly (bool, omitempty), as kube answers; the applier still owns it.
  expect(after.spec.template.spec.containers[0].volumeMounts[0]).toEqual({ name: 'data', mountPath: '/data' });
  const [e] = entries(again.body);
  expect(JSON.stringify(e.fieldsV1)).toContain('"f:readOnly":{}');
});

test('apply bodies as kube reads them: null is an empty object, a list is refused, repeated keys fail Strict after the apply and warn otherwise', async () => {
  const path = `${configmaps}/yamlish`;
  const empty = await apply(path, 'null', 'fieldManager=m');
  expect((empty.body as { message: string }).message).toBe('invalid object type: /, Kind=');
  const list = await apply(path, '[1]', 'fieldManager=m');
  expect(list.status).toBe(400);
  expect((list.body as { message: string }).message).toBe('error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}');
  const repeated = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yamlish\ndata:\n  a: "1"\n  a: "2"\n';
  const strict = await apply(path, repeated, 'fieldManager=m&fieldValidation=Strict');
  expect(strict.status).toBe(400);
  expect((strict.body as { message: string }).message).toBe('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  const warned = await apply(path, repeated, 'fieldManager=m');
  expect(warned.status).toBe(201);
  expect(warned.headers.get('warning')).toBe('299 - "line 7: key \\"a\\" already set in map"');
  expect((warned.body as { data: unknown }).data).toEqual({ a: '2' });
});

test('apply on /scale: the Scale\'s field manager between the parent\'s entries, as kube\'s TestScaleAllResources', async () => {
  // kube serves application/apply-patch+yaml on every PATCH route (installer.go); scale's
  // scaleUpdatedObjectInfo translates the parent's entries with the ScaleHandler.
  const path = `${deployments}/scaled`;
  const scale = (replicas: number) => ({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'scaled', namespace: 'fm' }, spec: { replicas } });
  const replicasOwners = async () => {
    const body = (await t.call('GET', path)).body;
    expect(body).toBeDefined();
    return entries(body).filter((e) => (e.fieldsV1 as { 'f:spec'?: Record<string, unknown> })['f:spec']?.['f:replicas'] !== undefined).map((e) => e.manager).sort();
  };
  const replicas = async () => (await t.call('GET', path)).body.spec.replicas;
  const obj = { ...deployment('scaled'), spec: { ...deployment('scaled').spec, replicas: 1 } };
  expect((await apply(path, obj, 'fieldManager=apply_test')).status).toBe(201);
  expect(await replicasOwners()).toEqual(['apply_test']);

  const merge = (replicas: number, manager: string) => t.call('PATCH', `${path}/scale?fieldManager=${manager}`, { body: { spec: { replicas } }, contentType: 'application/merge-patch+json' });
  expect((await merge(5, 'scale_test')).status).toBe(200);
  expect(await replicasOwners()).toEqual(['scale_test']);
  expect((await apply(path, obj, 'fieldManager=apply_test')).status).toBe(409);
  expect((await apply(path, obj, 'fieldManager=apply_test&force=true')).status).toBe(200);
  expect(await replicasOwners()).toEqual(['apply_test']);

  // An apply through /scale conflicts with the parent's owner of the replicas, named as kube names it.
  const conflict = await apply(`${path}/scale`, scale(17), 'fieldManager=apply_scale');
  expect(conflict.status).toBe(409);
  expect(conflict.body).toMatchObject({
    reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "apply_test": .spec.replicas',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "apply_test"', field: '.spec.replicas' }] },
  });
  const forced = await apply(`${path}/scale`, scale(17), 'fieldManager=apply_scale&force=true');
  expect(forced.status).toBe(200);
  expect(forced.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 17 } });
  expect(await replicas()).toBe(17);
  expect(await replicasOwners()).toEqual(['apply_scale']);
  // The parent records the Scale's applier with its own version, through "scale", without a time (ToParent takes the parent's).
  const applied = entries((await t.call('GET', path)).body).find((e) => e.manager === 'apply_scale');
  expect(applied).toEqual({ manager: 'apply_scale', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' });

  const put = await t.call('PUT', `${path}/scale?fieldManager=replace_test`, { body: scale(7) });
  expect(put.status).toBe(200);
  expect(await replicasOwners()).toEqual(['replace_test']);
  // The same value applied: both own it.
  expect((await apply(`${path}/scale`, scale(7), 'fieldManager=co_owning_test')).status).toBe(200);
  expect(await replicas()).toBe(7);
  expect(await replicasOwners()).toEqual(['co_owning_test', 'replace_test']);
  expect((await merge(5, 'scale_test')).status).toBe(200);
  expect(await replicasOwners()).toEqual(['scale_test']);

  // Apply's request checks hold on /scale too.
  expect((await apply(`${path}/scale`, scale(3), '')).body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  expect((await apply(`${path}/scale`, { ...scale(3), apiVersion: 'apps/v1' }, 'fieldManager=x')).body.message).toBe('invalid object type: apps/v1, Kind=Scale');
  expect((await apply(`${path}/scale`, scale(-1), 'fieldManager=x&force=true')).status).toBe(422);
});
