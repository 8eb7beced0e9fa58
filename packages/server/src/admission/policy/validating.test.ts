/**
 * ValidatingAdmissionPolicy over HTTP on both backends, as kube-apiserver 1.35 enforces it:
 * matching (resource rules, namespace and object selectors, exclusions, binding narrowing),
 * the binding's actions (Deny with kube's Status, Warn), params by name and by selector,
 * variables, messageExpression, matchConditions, failurePolicy, DELETE, and policies taking
 * effect and lapsing as they are written.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../../testing/client.js';

const arPath = '/apis/admissionregistration.k8s.io/v1';
const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

describeBackends('ValidatingAdmissionPolicy', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    await t.server.bootstrap();
    for (const [name, labels] of [['team-a', { env: 'test' }], ['team-b', { env: 'prod' }]] as const) {
      expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } })).status).toBe(201);
    }
  });
  afterEach(() => t.close());

  async function policy(name: string, spec: Record<string, unknown>): Promise<void> {
    const res = await t.call('POST', `${arPath}/validatingadmissionpolicies`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec } });
    expect(res.status).toBe(201);
  }
  async function binding(name: string, spec: Record<string, unknown>): Promise<void> {
    const res = await t.call('POST', `${arPath}/validatingadmissionpolicybindings`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec } });
    expect(res.status).toBe(201);
  }
  const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
  /** Policies take effect once this replica's cache has them: retry until the answer settles. */
  async function eventually<T>(attempt: () => Promise<T>, done: (r: T) => boolean): Promise<T> {
    let r = await attempt();
    for (let i = 0; i < 100 && !done(r); i++) {
      await new Promise((res) => setTimeout(res, 20));
      r = await attempt();
    }
    return r;
  }
  const configMapRules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }];

  test('a denied create: kube\'s Status (Invalid unless the validation names a reason), scoped by the binding\'s namespaceSelector', async () => {
    await policy('small', {
      matchConstraints: { resourceRules: configMapRules },
      validations: [
        { expression: "size(object.data) <= 2" },
        { expression: "!has(object.data.secret)", message: 'no secrets in config maps', reason: 'Forbidden' },
      ],
    });
    await binding('small-test', { policyName: 'small', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } });
    let n = 0;
    const big = await eventually(() => t.call('POST', cms('team-a'), { body: configMap(`big-${n++}`, { a: '1', b: '2', c: '3' }) }), (r) => r.status !== 201);
    expect(big.status).toBe(422);
    const message = "ValidatingAdmissionPolicy 'small' with binding 'small-test' denied request: failed expression: size(object.data) <= 2";
    expect(big.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: `configmaps "big-${n - 1}" is forbidden: ${message}`,
      details: { name: `big-${n - 1}`, kind: 'configmaps', causes: [{ message }] },
    });
    const secret = await t.call('POST', cms('team-a'), { body: configMap('s', { secret: 'x' }) });
    expect(secret.status).toBe(403);
    expect(secret.body.reason).toBe('Forbidden');
    expect(secret.body.message).toBe("configmaps \"s\" is forbidden: ValidatingAdmissionPolicy 'small' with binding 'small-test' denied request: no secrets in config maps");
    // The binding selects test namespaces only.
    expect((await t.call('POST', cms('team-b'), { body: configMap('big', { a: '1', b: '2', c: '3' }) })).status).toBe(201);
    expect((await t.call('POST', cms('team-a'), { body: configMap('fine', { a: '1' }) })).status).toBe(201);
    // An update is checked too (the rule names UPDATE).
    const grown = await t.call('PUT', `${cms('team-a')}/fine`, { body: configMap('fine', { a: '1', b: '2', c: '3' }) });
    expect(grown.status).toBe(422);
  });

  test('Warn admits with a Warning header; deleting the binding lifts the policy', async () => {
    await policy('labelled', { matchConstraints: { resourceRules: configMapRules }, validations: [{ expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", messageExpression: "'config map ' + object.metadata.name + ' has no owner label'" }] });
    await binding('labelled-warn', { policyName: 'labelled', validationActions: ['Warn'] });
    let n = 0;
    const warned = await eventually(() => t.call('POST', cms('team-b'), { body: configMap(`w-${n++}`) }), (r) => r.headers.get('warning') !== null);
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe(`299 - "Validation failed for ValidatingAdmissionPolicy 'labelled' with binding 'labelled-warn': config map w-${n - 1} has no owner label"`);
    expect((await t.call('DELETE', `${arPath}/validatingadmissionpolicybindings/labelled-warn`)).status).toBe(200);
    const quiet = await eventually(() => t.call('POST', cms('team-b'), { body: configMap(`q-${n++}`) }), (r) => r.headers.get('warning') === null);
    expect(quiet.status).toBe(201);
  });

  test('params by name and by selector, with parameterNotFoundAction', async () => {
    await policy('max-keys', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
      validations: [{ expression: 'size(object.data) <= int(params.data.maxKeys)', messageExpression: "'at most ' + params.data.maxKeys + ' keys'" }],
    });
    expect((await t.call('POST', cms('team-a'), { body: configMap('limits', { maxKeys: '1' }, { policy: 'limits' }) })).status).toBe(201);
    await binding('by-name', { policyName: 'max-keys', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } });
    const secret = (name: string, keys: number) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'v'])) });
    let n = 0;
    const refused = await eventually(() => t.call('POST', '/api/v1/namespaces/team-a/secrets', { body: secret(`s-${n++}`, 2) }), (r) => r.status !== 201);
    expect(refused.body.message).toBe(`secrets "s-${n - 1}" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'by-name' denied request: at most 1 keys`);
    expect((await t.call('POST', '/api/v1/namespaces/team-a/secrets', { body: secret('one', 1) })).status).toBe(201);
    // team-b has no such param: Deny refuses, naming the binding.
    await binding('by-name-b', { policyName: 'max-keys', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } });
    const missing = await eventually(() => t.call('POST', '/api/v1/namespaces/team-b/secrets', { body: secret(`m-${n++}`, 1) }), (r) => r.status !== 201);
    // A binding's configuration error has no reason of its own: Invalid.
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe(`secrets "m-${n - 1}" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'by-name-b' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`);
    // A selector over the params' namespace: every matching param must admit.
    expect((await t.call('DELETE', `${arPath}/validatingadmissionpolicybindings/by-name-b`)).status).toBe(200);
    expect((await t.call('POST', cms('team-b'), { body: configMap('lenient', { maxKeys: '5' }, { policy: 'limits' }) })).status).toBe(201);
    expect((await t.call('POST', cms('team-b'), { body: configMap('strict', { maxKeys: '2' }, { policy: 'limits' }) })).status).toBe(201);
    await binding('by-selector', { policyName: 'max-keys', validationActions: ['Deny'], paramRef: { selector: { matchLabels: { policy: 'limits' } }, parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } });
    const three = await eventually(() => t.call('POST', '/api/v1/namespaces/team-b/secrets', { body: secret(`t-${n++}`, 3) }), (r) => r.status !== 201);
    expect(three.body.message).toContain('denied request: at most 2 keys');
    expect((await t.call('POST', '/api/v1/namespaces/team-b/secrets', { body: secret('two', 2) })).status).toBe(201);
  });

  test('variables, request, matchConditions and failurePolicy', async () => {
    await policy('owners', {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: configMapRules },
      matchConditions: [{ name: 'owned-only', expression: "object.metadata.name.startsWith('owned-')" }],
      variables: [{ name: 'owner', expression: "has(object.data) && 'owner' in object.data ? object.data.owner : ''" }, { name: 'named', expression: "variables.owner != ''" }],
      validations: [{ expression: 'variables.named', messageExpression: "'an owner is required (asked by ' + request.userInfo.username + ' for ' + request.namespace + ')'" }],
    });
    await binding('owners', { policyName: 'owners', validationActions: ['Deny'] });
    let n = 0;
    const unowned = await eventually(() => t.call('POST', cms('team-a'), { body: configMap(`owned-${n++}`) }), (r) => r.status !== 201);
    expect(unowned.body.message).toMatch(/denied request: an owner is required \(asked by system:\S+ for team-a\)$/);
    expect((await t.call('POST', cms('team-a'), { body: configMap('owned-right', { owner: 'ops' }) })).status).toBe(201);
    // matchConditions: other names are not this policy's business.
    expect((await t.call('POST', cms('team-a'), { body: configMap('unowned') })).status).toBe(201);
    await policy('erroring', {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: configMapRules },
      validations: [{ expression: 'object.data.mustExist == "yes"' }],
    });
    await binding('erroring', { policyName: 'erroring', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { check: 'strict' } } } });
    const failed = await eventually(() => t.call('POST', cms('team-a'), { body: configMap(`e-${n++}`, { other: 'x' }, { check: 'strict' }) }), (r) => r.status !== 201);
    expect(failed.status).toBe(422);
    expect(failed.body.message).toMatch(/denied request: expression 'object\.data\.mustExist == "yes"' resulted in error: no such key: mustExist$/);
    // The objectSelector leaves other objects alone.
    expect((await t.call('POST', cms('team-a'), { body: configMap('unchecked', {}, { check: 'loose' }) })).status).toBe(201);
    const ignoring = await t.call('GET', `${arPath}/validatingadmissionpolicies/erroring`);
    ignoring.body.spec.failurePolicy = 'Ignore';
    expect((await t.call('PUT', `${arPath}/validatingadmissionpolicies/erroring`, { body: ignoring.body })).status).toBe(200);
    const admitted = await eventually(() => t.call('POST', cms('team-a'), { body: configMap(`i-${n++}`, { other: 'x' }, { check: 'strict' }) }), (r) => r.status === 201);
    expect(admitted.status).toBe(201);
  });

  test('DELETE is admitted with the old object; excludeResourceRules and resourceNames', async () => {
    await policy('keep-protected', {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }],
        excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'], resourceNames: ['disposable'] }],
      },
      validations: [{ expression: "request.operation == 'DELETE' && object == null && !(has(oldObject.metadata.labels) && oldObject.metadata.labels['protected'] == 'true')", message: 'protected' }],
    });
    await binding('keep-protected', { policyName: 'keep-protected', validationActions: ['Deny'] });
    for (const name of ['precious', 'disposable', 'plain']) {
      expect((await t.call('POST', cms('team-a'), { body: configMap(name, {}, name === 'plain' ? {} : { protected: 'true' }) })).status).toBe(201);
    }
    const refused = await eventually(() => t.call('DELETE', `${cms('team-a')}/precious`), (r) => r.status !== 200);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe("configmaps \"precious\" is forbidden: ValidatingAdmissionPolicy 'keep-protected' with binding 'keep-protected' denied request: protected");
    expect((await t.call('GET', `${cms('team-a')}/precious`)).status).toBe(200);
    expect((await t.call('DELETE', `${cms('team-a')}/disposable`)).status).toBe(200);
    expect((await t.call('DELETE', `${cms('team-a')}/plain`)).status).toBe(200);
  });

  test('the policies themselves are out of their own reach', async () => {
    await policy('no-policies', {
      matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] },
      validations: [{ expression: 'false', message: 'nothing may change' }],
    });
    await binding('no-policies', { policyName: 'no-policies', validationActions: ['Deny'] });
    const refused = await eventually(() => t.call('POST', cms('team-a'), { body: configMap('x') }), (r) => r.status !== 201);
    expect(refused.body.message).toContain('denied request: nothing may change');
    // The binding can still be deleted, which lifts the policy.
    expect((await t.call('DELETE', `${arPath}/validatingadmissionpolicybindings/no-policies`)).status).toBe(200);
    const created = await eventually(() => t.call('POST', cms('team-a'), { body: configMap('y') }), (r) => r.status === 201);
    expect(created.status).toBe(201);
  });
});
