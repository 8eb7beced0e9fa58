/**
 * ValidatingAdmissionPolicy expressions asking the server's authorizer, as kube 1.35's authorizer
 * library answers them: `authorizer.group(…).resource(…).namespace(…).check(verb)`,
 * `authorizer.requestResource`, `authorizer.path(…)`, `authorizer.serviceAccount(…)`, and a
 * decision's allowed(), reason(), errored(). RBAC is the real one, over Roles written through the API.
 */
import { TokenAuthenticator } from '@windlass/auth';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type Reply, type TestServer } from '../../testing/client.js';

const admin = { authorization: 'Bearer admin-token' };
const dev = { authorization: 'Bearer dev-token' };
const arPath = '/apis/admissionregistration.k8s.io/v1';
const rbacPath = '/apis/rbac.authorization.k8s.io/v1';
let t: TestServer;

const call = (method: string, path: string, body?: unknown, headers = admin): Promise<Reply> => t.call(method, path, { body, headers });
const configMap = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function role(ns: string, name: string, rules: unknown[], subject: Record<string, string>): Promise<void> {
  expect((await call('POST', `${rbacPath}/namespaces/${ns}/roles`, { metadata: { name }, rules })).status).toBe(201);
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name };
  expect((await call('POST', `${rbacPath}/namespaces/${ns}/rolebindings`, { metadata: { name }, roleRef, subjects: [subject] })).status).toBe(201);
}

/** Policies take effect once this replica's cache has them: retry until the answer settles. */
async function eventually(attempt: () => Promise<Reply>, done: (r: Reply) => boolean): Promise<Reply> {
  let r = await attempt();
  for (let i = 0; i < 100 && !done(r); i++) {
    await new Promise((res) => setTimeout(res, 20));
    r = await attempt();
  }
  return r;
}

beforeAll(async () => {
  const tokens = new TokenAuthenticator([
    { token: 'admin-token', user: { name: 'admin', uid: '1', groups: ['system:masters'] } },
    { token: 'dev-token', user: { name: 'dev', uid: '2', groups: ['developers'] } },
  ]);
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }), authenticator: { stable: true, authenticate: (h) => tokens.authenticate(h) } });
  await t.server.bootstrap();
  for (const ns of ['team-a', 'team-b']) expect((await call('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  const user = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dev' };
  const writeConfigMaps = { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update', 'get'] };
  await role('team-a', 'dev', [writeConfigMaps, { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }], user);
  await role('team-b', 'dev', [writeConfigMaps], user);
  await role('team-a', 'builder', [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }], { kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' });

  const spec = {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
    variables: [{ name: 'readsSecrets', expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get')" }],
    validations: [
      { expression: 'variables.readsSecrets.allowed()', messageExpression: "'only readers of secrets may write config maps; ' + (variables.readsSecrets.reason() == '' ? 'no reason' : variables.readsSecrets.reason())" },
      // The request's own resource, asked for another verb: only those who may delete may mark a config map protected.
      { expression: "!has(object.data.protected) || authorizer.requestResource.check('delete').allowed()", message: 'protected config maps are for those who may delete them' },
      // A service account asked for by name, and a non-resource path.
      { expression: "!has(object.data.builder) || authorizer.serviceAccount('team-a', object.data.builder).group('').resource('pods').namespace('team-a').check('create').allowed()", messageExpression: "'service account ' + object.data.builder + ' cannot create pods'" },
      { expression: "!has(object.data.health) || authorizer.path('/healthz').check('get').allowed() && !authorizer.path('/healthz').check('get').errored()", message: 'healthz is not readable' },
    ],
  };
  expect((await call('POST', `${arPath}/validatingadmissionpolicies`, { metadata: { name: 'authz' }, spec })).status).toBe(201);
  expect((await call('POST', `${arPath}/validatingadmissionpolicybindings`, { metadata: { name: 'authz' }, spec: { policyName: 'authz', validationActions: ['Deny'] } })).status).toBe(201);
});

afterAll(() => t?.close());

test('a check for the request\'s user: allowed where RBAC grants it, refused with the policy\'s message where it does not', async () => {
  let n = 0;
  const refused = await eventually(() => call('POST', '/api/v1/namespaces/team-b/configmaps', configMap(`c-${n++}`), dev), (r) => r.status !== 201);
  expect(refused.status).toBe(422);
  expect(refused.body.message).toBe(`configmaps "c-${n - 1}" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'authz' denied request: only readers of secrets may write config maps; no reason`);
  const ok = await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('ok'), dev);
  expect(ok.body.message ?? '').toBe('');
  expect(ok.status).toBe(201);
  // system:masters may do anything: the same write passes in team-b.
  expect((await call('POST', '/api/v1/namespaces/team-b/configmaps', configMap('by-admin'))).status).toBe(201);
});

test('authorizer.requestResource asks about the request\'s resource and namespace with another verb', async () => {
  const r = await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('p', { protected: 'yes' }), dev);
  expect(r.status).toBe(422);
  expect(r.body.message).toContain('protected config maps are for those who may delete them');
  expect((await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('p', { protected: 'yes' }))).status).toBe(201);
});

test('serviceAccount() asks for the service account\'s user, and path() for a non-resource URL', async () => {
  expect((await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('b', { builder: 'builder' }), dev)).status).toBe(201);
  const other = await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('o', { builder: 'other' }), dev);
  expect(other.status).toBe(422);
  expect(other.body.message).toContain('service account other cannot create pods');
  // The bootstrap roles let every user read /healthz.
  expect((await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('h', { health: 'x' }), dev)).status).toBe(201);
});

test('a webhook\'s matchConditions ask the authorizer too: a webhook is called only for users its condition selects', async () => {
  const hook = {
    name: 'deleters.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail',
    clientConfig: { url: 'https://127.0.0.1:1/validate' },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    matchConditions: [{ name: 'deleters', expression: "object.metadata.name.startsWith('hook-') && authorizer.requestResource.check('delete').allowed()" }],
  };
  expect((await call('POST', `${arPath}/validatingwebhookconfigurations`, { metadata: { name: 'deleters' }, webhooks: [hook] })).status).toBe(201);
  // The admin may delete config maps: the webhook is called, and cannot be reached.
  const called = await eventually(() => call('POST', '/api/v1/namespaces/team-a/configmaps', { ...configMap('hook-x'), metadata: { generateName: 'hook-' } }), (r) => r.status !== 201);
  expect(called.status).toBe(500);
  expect(called.body.message).toContain('failed calling webhook "deleters.example.com"');
  // dev may not: the condition is false and the webhook is not called.
  expect((await call('POST', '/api/v1/namespaces/team-a/configmaps', configMap('hook-dev'), dev)).status).toBe(201);
});
