/** pods/binding and pods/eviction: requests on a pod answered with a 201 Success Status. */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from './testing/client.js';

const pods = '/api/v1/namespaces/default/pods';
const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
const binding = (name: string, node: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, annotations: { 'scheduled-by': 'test' } }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
const created = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

describeBackends('pod subresources', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    await t.server.bootstrap();
  });
  afterEach(() => t.close());

  test('binding assigns the node once, with the binding\'s annotations and the PodScheduled condition', async () => {
    await t.call('POST', pods, { body: pod('web') });
    const bound = await t.call('POST', `${pods}/web/binding`, { body: binding('web', 'node-a') });
    expect(bound.status).toBe(201);
    expect(bound.body).toEqual(created);
    const got = (await t.call('GET', `${pods}/web`)).body;
    expect(got.spec.nodeName).toBe('node-a');
    expect(got.metadata.annotations).toMatchObject({ 'scheduled-by': 'test' });
    expect(got.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    const again = await t.call('POST', `${pods}/web/binding`, { body: binding('web', 'node-b') });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-a"');
    expect(again.body.details).toEqual({ name: 'web', kind: 'pods/binding' });
    expect((await t.call('POST', `${pods}/missing/binding`, { body: binding('missing', 'node-a') })).status).toBe(404);
  });

  test('eviction deletes a pod that no budget protects, and refuses one an exhausted budget protects', async () => {
    await t.call('POST', pods, { body: pod('web') });
    const evicted = await t.call('POST', `${pods}/web/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web' }, deleteOptions: { gracePeriodSeconds: 0 } } });
    expect(evicted.body).toEqual(created);
    expect((await t.call('GET', `${pods}/web`)).status).toBe(404);

    await t.call('POST', pods, { body: pod('db', { app: 'db' }) });
    await t.call('PATCH', `${pods}/db/status`, { body: { status: { phase: 'Running' } }, contentType: 'application/merge-patch+json' });
    await t.call('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { body: { metadata: { name: 'db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } } } });
    const refused = await t.call('POST', `${pods}/db/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'db' } } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ reason: 'TooManyRequests', message: 'Cannot evict pod as it would violate the pod\'s disruption budget.' });
    expect((await t.call('GET', `${pods}/db`)).status).toBe(200);
  });
});
