/**
 * Admission webhooks on both backends, called over HTTPS on a real webhook server with a test CA
 * (as envtest suites run them): the AdmissionReview they get, refusals with kube's messages and
 * codes, warnings, JSONPatch mutations and reinvocation, failurePolicy on unreachable and slow
 * webhooks, the CA bundle, namespace and object selectors, match conditions, Equivalent matching,
 * service references resolved to EndpointSlices, dry runs, DELETE, custom resources, and the
 * exemption of webhook configurations.
 */
import { networkInterfaces } from 'node:os';
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, until, type TestServer } from '../../testing/client.js';
import { patchAnswer, reviewAnswer, startWebhookServer, testCertificates, type TestCA, type TestWebhookServer } from '../../testing/webhookserver.js';

const arGroup = '/apis/admissionregistration.k8s.io/v1';
const tls: TestCA = testCertificates(['hooks.webhooks.svc', 'outside.webhooks.svc']);


describeBackends('admission webhooks', (ctx) => {
  let t: TestServer;
  let hooks: TestWebhookServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    hooks = await startWebhookServer(tls);
  });
  afterEach(async () => {
    await t.close();
    await hooks.close();
  });

  const webhook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name, clientConfig: { url: hooks.url(path), caBundle: tls.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
  });

  /** Writes a configuration and waits until this replica's watch cache holds it. */
  async function configure(kind: 'validating' | 'mutating', name: string, webhooks: unknown[]) {
    const resource = `${kind}webhookconfigurations`;
    const res = await t.call('POST', `${arGroup}/${resource}`, { body: { metadata: { name }, webhooks } });
    expect(res.status).toBe(201);
    const rv = res.body.metadata.resourceVersion;
    await until(async () => ((await t.call('GET', `${arGroup}/${resource}/${name}?resourceVersion=0`)).body?.metadata?.resourceVersion === rv ? true : undefined));
  }
  async function unconfigure(kind: 'validating' | 'mutating', name: string) {
    const resource = `${kind}webhookconfigurations`;
    expect((await t.call('DELETE', `${arGroup}/${resource}/${name}`)).status).toBe(200);
    await until(async () => ((await t.call('GET', `${arGroup}/${resource}/${name}?resourceVersion=0`)).status === 404 ? true : undefined));
  }
  const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: '1' } });
  const cms = '/api/v1/namespaces/default/configmaps';

  test('a validating webhook gets kube\'s AdmissionReview, allows, and denies with its message and code', async () => {
    hooks.handle('/validate', (r) => r.request.object.metadata.name.startsWith('bad')
      ? reviewAnswer(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'bad names are not welcome' } })
      : reviewAnswer(r, { allowed: true, warnings: ['checked by the test webhook'] }));
    await configure('validating', 'names', [webhook('names.example.com', '/validate')]);

    const ok = await t.call('POST', `${cms}?fieldManager=tester`, { body: configMap('good') });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('warning')).toBe('299 - "checked by the test webhook"');
    const [review] = hooks.received.get('/validate')!;
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    const req = review.request;
    expect(req.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.kind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(req.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(req.requestKind).toEqual(req.kind);
    expect(req.requestResource).toEqual(req.resource);
    expect(req.subResource).toBeUndefined();
    expect(req).toMatchObject({ name: 'good', namespace: 'default', operation: 'CREATE', dryRun: false, oldObject: null });
    expect(req.userInfo.username).toBe('system:apiserver');
    expect(req.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good', namespace: 'default' }, data: { a: '1' } });
    expect(req.options).toEqual({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' });

    const bad = await t.call('POST', cms, { body: configMap('bad-one') });
    expect(bad.status).toBe(403);
    expect(bad.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'admission webhook "names.example.com" denied the request: bad names are not welcome' });
    expect((await t.call('GET', `${cms}/bad-one`)).status).toBe(404);

    // An update is sent with the old object; a refusal without a status is kube's 400 "without explanation".
    hooks.handle('/validate', (r) => reviewAnswer(r, { allowed: r.request.operation !== 'UPDATE' }));
    const put = await t.call('PUT', `${cms}/good`, { body: { ...configMap('good'), data: { a: '2' } } });
    expect(put.status).toBe(400);
    expect(put.body.message).toBe('admission webhook "names.example.com" denied the request without explanation');
    const update = hooks.received.get('/validate')!.at(-1).request;
    expect(update).toMatchObject({ operation: 'UPDATE', object: { data: { a: '2' } }, oldObject: { data: { a: '1' } }, options: { kind: 'UpdateOptions' } });
  });

  test('a mutating webhook\'s JSONPatch is applied and stored; IfNeeded webhooks run again after a later change', async () => {
    hooks.handle('/label', (r) => patchAnswer(r, [{ op: 'add', path: '/metadata/labels', value: { ...(r.request.object.metadata.labels ?? {}), mutated: 'yes' } }]));
    hooks.handle('/count', (r) => {
      const seen = Number(r.request.object.metadata.annotations?.calls ?? '0');
      return patchAnswer(r, [{ op: 'add', path: '/metadata/annotations', value: { calls: String(seen + 1), sawLabel: String(r.request.object.metadata.labels?.mutated === 'yes') } }]);
    });
    // Configurations run in name order: a-count before b-label.
    await configure('mutating', 'a-count', [webhook('count.example.com', '/count', { reinvocationPolicy: 'IfNeeded' })]);
    await configure('mutating', 'b-label', [webhook('label.example.com', '/label')]);
    const res = await t.call('POST', cms, { body: configMap('m') });
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ mutated: 'yes' });
    // count ran, label changed the object, count ran again and saw the label.
    expect(res.body.metadata.annotations).toEqual({ calls: '2', sawLabel: 'true' });
    expect(hooks.received.get('/count')!.length).toBe(2);
    expect(hooks.received.get('/label')!.length).toBe(1);
    const stored = await t.call('GET', `${cms}/m`);
    expect(stored.body.metadata.labels).toEqual({ mutated: 'yes' });

    // A patch that cannot apply is kube's 500, whatever the failurePolicy.
    hooks.handle('/label', (r) => patchAnswer(r, [{ op: 'replace', path: '/spec/missing', value: 1 }]));
    const broken = await t.call('POST', cms, { body: configMap('m2') });
    expect(broken.status).toBe(500);
    expect(broken.body.reason).toBe('InternalError');
  });

  test('failurePolicy: Fail refuses with kube\'s "failed calling webhook", Ignore admits; timeouts and unknown CAs likewise', async () => {
    const unreachable = { name: 'down.example.com', clientConfig: { url: 'https://127.0.0.1:1/check', caBundle: tls.caBundle }, rules: webhook('', '').rules, sideEffects: 'None', admissionReviewVersions: ['v1'] };
    await configure('validating', 'down', [{ ...unreachable, failurePolicy: 'Fail' }]);
    const refused = await t.call('POST', cms, { body: configMap('x') });
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({
      reason: 'InternalError',
      message: 'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/check?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
    });
    await unconfigure('validating', 'down');
    await configure('validating', 'down-ignored', [{ ...unreachable, failurePolicy: 'Ignore' }]);
    expect((await t.call('POST', cms, { body: configMap('x') })).status).toBe(201);
    await unconfigure('validating', 'down-ignored');

    hooks.handle('/slow', async (r) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return reviewAnswer(r, { allowed: true });
    });
    await configure('validating', 'slow', [webhook('slow.example.com', '/slow', { timeoutSeconds: 1 })]);
    const slow = await t.call('POST', cms, { body: configMap('y') });
    expect(slow.status).toBe(500);
    expect(slow.body.message).toBe(`Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hooks.url('/slow')}?timeout=1s": context deadline exceeded`);
    await unconfigure('validating', 'slow');

    hooks.handle('/ok', (r) => reviewAnswer(r, { allowed: true }));
    const otherCA = testCertificates([]).caBundle;
    await configure('validating', 'wrong-ca', [{ ...webhook('ca.example.com', '/ok'), clientConfig: { url: hooks.url('/ok'), caBundle: otherCA } }]);
    const untrusted = await t.call('POST', cms, { body: configMap('z') });
    expect(untrusted.status).toBe(500);
    expect(untrusted.body.message).toBe(`Internal error occurred: failed calling webhook "ca.example.com": failed to call webhook: Post "${hooks.url('/ok')}?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    await unconfigure('validating', 'wrong-ca');

    // An answer that is not this request's: invalid, so the failurePolicy applies.
    hooks.handle('/wrong-uid', (r) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } }));
    await configure('validating', 'wrong-uid', [webhook('uid.example.com', '/wrong-uid')]);
    const wrong = await t.call('POST', cms, { body: configMap('w') });
    expect(wrong.status).toBe(500);
    expect(wrong.body.message).toMatch(/^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "other"$/);
  });

  test('namespaceSelector, objectSelector and matchConditions choose which requests a webhook sees', async () => {
    hooks.handle('/deny', (r) => reviewAnswer(r, { allowed: false, status: { message: `seen ${r.request.name}` } }));
    for (const [name, labels] of [['watched', { webhooks: 'on' }], ['quiet', {}]] as const) {
      expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } })).status).toBe(201);
    }
    await configure('validating', 'selectors', [
      webhook('ns.example.com', '/deny', { namespaceSelector: { matchLabels: { webhooks: 'on' } } }),
      webhook('obj.example.com', '/deny', { objectSelector: { matchExpressions: [{ key: 'checked', operator: 'Exists' }] }, matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }] }),
    ]);
    const inWatched = await t.call('POST', '/api/v1/namespaces/watched/configmaps', { body: configMap('a') });
    expect(inWatched.status).toBe(400);
    expect(inWatched.body.message).toBe('admission webhook "ns.example.com" denied the request: seen a');
    expect((await t.call('POST', '/api/v1/namespaces/quiet/configmaps', { body: configMap('a') })).status).toBe(201);
    const labelled = await t.call('POST', '/api/v1/namespaces/quiet/configmaps', { body: configMap('b', { labels: { checked: 'yes' } }) });
    expect(labelled.body.message).toBe('admission webhook "obj.example.com" denied the request: seen b');
    expect((await t.call('POST', '/api/v1/namespaces/quiet/configmaps', { body: configMap('c', { labels: { checked: 'yes', exempt: 'true' } }) })).status).toBe(201);
    // The old object's labels count too: removing the label is still seen.
    expect((await t.call('PUT', '/api/v1/namespaces/quiet/configmaps/c', { body: configMap('c', { labels: { other: 'x' } }) })).status).toBe(400);
  });

  test('dry runs reach only webhooks without side effects, with dryRun true; DELETE sends the old object', async () => {
    hooks.handle('/seen', (r) => reviewAnswer(r, { allowed: true }));
    await configure('validating', 'dry', [webhook('dry.example.com', '/seen', { sideEffects: 'NoneOnDryRun', rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    expect((await t.call('POST', `${cms}?dryRun=All`, { body: configMap('d') })).status).toBe(201);
    expect(hooks.received.get('/seen')!.at(-1).request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    expect((await t.call('POST', cms, { body: configMap('d') })).status).toBe(201);
    expect((await t.call('DELETE', `${cms}/d`)).status).toBe(200);
    const del = hooks.received.get('/seen')!.at(-1).request;
    expect(del).toMatchObject({ operation: 'DELETE', name: 'd', namespace: 'default', object: null, oldObject: { metadata: { name: 'd' } }, options: { kind: 'DeleteOptions' } });
  });

  test('a service reference is called at its EndpointSlice address (or an ExternalName) under <service>.<namespace>.svc', async () => {
    // EndpointSlices may not name loopback addresses: the server listens on the machine's own too.
    const address = Object.values(networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address;
    expect(address).toBeDefined();
    const external = await startWebhookServer(tls, '0.0.0.0');
    try {
      external.handle('/svc', (r) => reviewAnswer(r, { allowed: false, status: { message: `through the service at ${r.request.name}` } }));
      expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'webhooks' } } })).status).toBe(201);
      expect((await t.call('POST', '/api/v1/namespaces/webhooks/services', { body: { metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } } })).status).toBe(201);
      await configure('validating', 'svc', [{ ...webhook('svc.example.com', '/svc', { timeoutSeconds: 2 }), clientConfig: { service: { namespace: 'webhooks', name: 'hooks', path: '/svc' }, caBundle: tls.caBundle } }]);
      // No endpoints yet: the ClusterIP is dialled, where no webhook of ours answers.
      const noEndpoints = await t.call('POST', cms, { body: configMap('s') });
      expect(noEndpoints.status).toBe(500);
      expect(noEndpoints.body.message).toMatch(/^Internal error occurred: failed calling webhook "svc\.example\.com": failed to call webhook: Post "https:\/\/hooks\.webhooks\.svc:443\/svc\?timeout=2s": /);
      expect((await t.call('POST', '/apis/discovery.k8s.io/v1/namespaces/webhooks/endpointslices', {
        body: { metadata: { name: 'hooks-1', labels: { 'kubernetes.io/service-name': 'hooks' } }, addressType: 'IPv4', endpoints: [{ addresses: [address], conditions: { ready: true } }], ports: [{ name: 'https', port: external.port }] },
      })).status).toBe(201);
      const viaService = await until(async () => {
        const res = await t.call('POST', cms, { body: configMap('s') });
        return res.status === 400 ? res : undefined;
      });
      expect(viaService.body.message).toBe('admission webhook "svc.example.com" denied the request: through the service at s');

      // An ExternalName service is dialled at its name, verified as <service>.<namespace>.svc.
      expect((await t.call('POST', '/api/v1/namespaces/webhooks/services', { body: { metadata: { name: 'outside' }, spec: { type: 'ExternalName', externalName: 'localhost' } } })).status).toBe(201);
      await unconfigure('validating', 'svc');
      hooks.handle('/ext', (r) => reviewAnswer(r, { allowed: false, status: { message: 'via the external name' } }));
      await configure('validating', 'ext', [{ ...webhook('ext.example.com', '/ext'), clientConfig: { service: { namespace: 'webhooks', name: 'outside', path: '/ext', port: hooks.port }, caBundle: tls.caBundle } }]);
      const viaName = await t.call('POST', cms, { body: configMap('e') });
      expect(viaName.status).toBe(400);
      expect(viaName.body.message).toBe('admission webhook "ext.example.com" denied the request: via the external name');
    } finally {
      await external.close();
    }
  });

  test('Equivalent matching, subresources, v1beta1 reviews, and configurations never sent to webhooks', async () => {
    hooks.handle('/all', (r) => reviewAnswer(r, { allowed: true }));
    hooks.handle('/beta', (r) => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: false, status: { message: 'beta says no' } } }));
    await configure('validating', 'everything', [
      webhook('all.example.com', '/all', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }),
      webhook('hpa.example.com', '/beta', { admissionReviewVersions: ['v1beta1'], rules: [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] }] }),
    ]);
    const before = hooks.received.get('/all')?.length ?? 0;
    await configure('mutating', 'not-sent', [webhook('x.example.com', '/all')]);
    expect(hooks.received.get('/all')?.length ?? 0).toBe(before);

    // An autoscaling/v2 write matches the v1 rule with matchPolicy Equivalent: sent as v1.
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3 } };
    const denied = await t.call('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { body: hpa });
    expect(denied.status).toBe(400);
    expect(denied.body.message).toBe('admission webhook "hpa.example.com" denied the request: beta says no');
    const beta = hooks.received.get('/beta')!.at(-1);
    expect(beta.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(beta.request.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    expect(beta.request.requestKind).toEqual({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    expect(beta.request.object.apiVersion).toBe('autoscaling/v1');

    // A status write is seen as the status subresource.
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'st' } } })).status).toBe(201);
    expect((await t.call('PUT', '/api/v1/namespaces/st/status', { body: { metadata: { name: 'st' }, status: { phase: 'Active' } } })).status).toBe(200);
    const status = hooks.received.get('/all')!.at(-1).request;
    expect(status).toMatchObject({ operation: 'UPDATE', subResource: 'status', requestSubResource: 'status', name: 'st', namespace: 'st', resource: { resource: 'namespaces' } });
  });

  test('a custom resource goes through the webhooks in its version', async () => {
    const crd = {
      metadata: { name: 'gadgets.hooks.example.com' },
      spec: {
        group: 'hooks.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } } } } }],
      },
    };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const gadgets = '/apis/hooks.example.com/v1/namespaces/default/gadgets';
    await until(async () => ((await t.call('GET', gadgets)).status === 200 ? true : undefined));
    hooks.handle('/gadget-mutate', (r) => patchAnswer(r, [{ op: 'add', path: '/spec/color', value: 'blue' }]));
    hooks.handle('/gadget-validate', (r) => r.request.object.spec.size > 3
      ? reviewAnswer(r, { allowed: false, status: { code: 422, reason: 'Invalid', message: 'too big' } })
      : reviewAnswer(r, { allowed: true }));
    const rules = [{ operations: ['CREATE'], apiGroups: ['hooks.example.com'], apiVersions: ['v1'], resources: ['gadgets'], scope: 'Namespaced' }];
    await configure('mutating', 'gadgets', [webhook('gadget-mutate.example.com', '/gadget-mutate', { rules })]);
    await configure('validating', 'gadgets', [webhook('gadget-validate.example.com', '/gadget-validate', { rules })]);
    const ok = await t.call('POST', gadgets, { body: { apiVersion: 'hooks.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } } });
    expect(ok.status).toBe(201);
    expect(ok.body.spec).toEqual({ size: 1, color: 'blue' });
    expect(hooks.received.get('/gadget-validate')!.at(-1).request.object.spec).toEqual({ size: 1, color: 'blue' });
    const big = await t.call('POST', gadgets, { body: { apiVersion: 'hooks.example.com/v1', kind: 'Gadget', metadata: { name: 'h' }, spec: { size: 5 } } });
    expect(big.status).toBe(422);
    expect(big.body).toMatchObject({ reason: 'Invalid', message: 'admission webhook "gadget-validate.example.com" denied the request: too big' });
  });
});

describe('dry runs and side effects', () => {
  // Configurations written through admissionregistration.k8s.io/v1 may only declare None or
  // NoneOnDryRun; kube still guards the call for webhooks stored with Some or Unknown.
  test('a webhook with sideEffects Some or Unknown is refused a dry run with kube\'s 400, whatever its failurePolicy', async () => {
    const { callWebhook } = await import('./invoke.js');
    const { builtinDefinitions } = await import('../../registry/builtins.js');
    const def = builtinDefinitions().find((d) => d.group === '' && d.resource === 'configmaps')!;
    for (const sideEffects of ['Some', 'Unknown']) {
      const accessor = { uid: 'c/w/0', configurationName: 'c', mutating: false, webhook: { name: 'effects.example.com', clientConfig: { url: 'https://127.0.0.1:1/' }, sideEffects, failurePolicy: 'Ignore' as const, admissionReviewVersions: ['v1'] } };
      const attrs = { operation: 'CREATE' as const, def, namespace: 'default', name: 'x', subresource: '', obj: { metadata: { name: 'x' } }, dryRun: true, user: { name: 'u', groups: [] }, options: {}, warn: () => undefined };
      await expect(callWebhook({ accessor, def, resource: { group: '', version: 'v1', resource: 'configmaps' }, subresource: '' }, attrs, { obj: attrs.obj }, { resolve: async () => ({ host: '127.0.0.1', port: 1 }) }))
        .rejects.toMatchObject({ status: { code: 400, reason: 'BadRequest', message: 'admission webhook "effects.example.com" does not support dry run' } });
    }
  });
});
