/**
 * Typed decoding against the kind's schema and fieldValidation, with the messages kube-apiserver
 * gives (../shared/reference/golden: *-string, *-number, unknown-field-strict, misc.unknown-fields-warn-ignore).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'd' } } });
});
afterAll(async () => {
  await t.close();
});

const deployment = (name: string, extra: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', ...container }] } },
    ...extra,
  },
});
const deployments = '/apis/apps/v1/namespaces/d/deployments';

test.each([
  [deployments, deployment('x', { replicas: '3' }), 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
  ['/api/v1/namespaces/d/configmaps', { metadata: { name: 'x' }, data: { n: 5 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
  ['/api/v1/namespaces/d/configmaps', { metadata: { name: 'x' }, data: ['a'] }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'],
  ['/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'x' }, rules: {} }, 'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal object into Go struct field ClusterRole.rules of type []v1.PolicyRule'],
  ['/apis/rbac.authorization.k8s.io/v1/namespaces/d/roles', { metadata: { name: 'x' }, rules: [{ verbs: 'get' }] }, 'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string'],
  ['/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'x' }, provisioner: 'p', allowVolumeExpansion: 'yes' }, 'StorageClass in version "v1" cannot be handled as a StorageClass: json: cannot unmarshal string into Go struct field StorageClass.allowVolumeExpansion of type bool'],
])('a wrong JSON type is 400 with encoding/json’s message: %s', async (path, body, message) => {
  const r = await t.call('POST', path, { body });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
});

test('unknown fields: Warn (the default) names each in a Warning header and drops it; Ignore drops them silently', async () => {
  const body = deployment('warn', { bogusSpec: 1 }, { bogusContainer: 2 });
  (body.metadata as Record<string, unknown>).bogusMeta = 3;
  const warned = await t.call('POST', deployments, { body });
  expect(warned.status).toBe(201);
  expect(warned.headers.get('warning')).toBe(
    '299 - "unknown field \\"metadata.bogusMeta\\"", 299 - "unknown field \\"spec.bogusSpec\\"", 299 - "unknown field \\"spec.template.spec.containers[0].bogusContainer\\""',
  );
  expect(JSON.stringify(warned.body)).not.toContain('bogus');
  expect(warned.body.spec.template.spec.containers[0]).toMatchObject({ name: 'c', image: 'i' });
  expect(Object.keys(warned.body.spec.template.spec.containers[0])).not.toContain('bogus');
  expect(JSON.stringify((await t.call('GET', `${deployments}/warn`)).body)).not.toContain('bogus');

  const ignored = await t.call('POST', `${deployments}?fieldValidation=Ignore`, { body: { ...body, metadata: { name: 'ignore' } } });
  expect(ignored.status).toBe(201);
  expect(ignored.headers.get('warning')).toBeNull();
  expect(JSON.stringify(ignored.body)).not.toContain('bogus');
});

test('Strict refuses unknown fields: 400 on create and update naming each, 422 on a patch; nothing is written', async () => {
  const cm = { metadata: { name: 's', bogusField: 1 }, bogusTopLevel: 2 };
  const created = await t.call('POST', '/api/v1/namespaces/d/configmaps?fieldValidation=Strict', { body: cm });
  expect(created.status).toBe(400);
  expect(created.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogusTopLevel", unknown field "metadata.bogusField"');
  expect((await t.call('GET', '/api/v1/namespaces/d/configmaps/s')).status).toBe(404);

  expect((await t.call('POST', '/api/v1/namespaces/d/configmaps', { body: { metadata: { name: 's' }, data: { a: '1' } } })).status).toBe(201);
  const updated = await t.call('PUT', '/api/v1/namespaces/d/configmaps/s?fieldValidation=Strict', { body: { metadata: { name: 's' }, data: { a: '2' }, foo: 1 } });
  expect(updated.status).toBe(400);
  expect(updated.body.message).toContain('strict decoding error: unknown field "foo"');
  const patched = await t.call('PATCH', '/api/v1/namespaces/d/configmaps/s?fieldValidation=Strict', { body: { data: { a: '3' }, foo: 1 }, contentType: 'application/merge-patch+json' });
  expect(patched.status).toBe(422);
  expect(patched.body.message).toContain('strict decoding error: unknown field "foo"');
  expect((await t.call('GET', '/api/v1/namespaces/d/configmaps/s')).body.data).toEqual({ a: '1' });

  const warnPatch = await t.call('PATCH', '/api/v1/namespaces/d/configmaps/s', { body: { data: { a: '4' }, foo: 1 }, contentType: 'application/merge-patch+json' });
  expect(warnPatch.status).toBe(200);
  expect(warnPatch.headers.get('warning')).toBe('299 - "unknown field \\"foo\\""');
  expect(warnPatch.body).not.toHaveProperty('foo');
  const badType = await t.call('PATCH', '/api/v1/namespaces/d/configmaps/s', { body: { data: { a: 4 } }, contentType: 'application/merge-patch+json' });
  // kube decodes the patched object and answers a failure as an Invalid `patch` field (422).
  expect(badType.status).toBe(422);
  expect(badType.body.message).toContain('json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
});

test('a null map value or slice item becomes its Go zero value, as encoding/json leaves it', async () => {
  const cm = await t.call('POST', '/api/v1/namespaces/d/configmaps', { body: { metadata: { name: 'nulls', annotations: { n: null } }, data: { a: 'x', b: null } } });
  expect(cm.status).toBe(201);
  expect(cm.body.data).toEqual({ a: 'x', b: '' });
  expect(cm.body.metadata.annotations).toEqual({ n: '' });
  const role = await t.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/d/roles', { body: { metadata: { name: 'nulls' }, rules: [{ apiGroups: [null], resources: ['pods'], verbs: ['get'] }] } });
  expect(role.status).toBe(201);
  expect(role.body.rules[0].apiGroups).toEqual(['']);
  expect((await t.call('GET', '/api/v1/namespaces/d/configmaps/nulls')).body.data).toEqual({ a: 'x', b: '' });
});
