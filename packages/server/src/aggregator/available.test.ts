/**
 * The availability of an APIService behind a ClusterIP Service, on the real server: kube's
 * reasons in the order kube checks them (port, EndpointSlices, a ready address with the port's
 * name), then the discovery check through the EndpointSlice's address, and requests proxied there.
 */
import { networkInterfaces } from 'node:os';
import { createStorage, type Storage } from '@windlass/storage';
import { startTestServer, until, type TestServer } from '../testing/client.js';
import { startWebhookServer, testCertificates, type TestWebhookServer } from '../testing/webhookserver.js';

const tls = testCertificates(['api.aggr.svc']);
let storage: Storage;
let t: TestServer;
let backend: TestWebhookServer;

beforeAll(async () => {
  storage = await createStorage({ backend: 'embedded', path: ':memory:' });
  // A short resync: the last check is found by it alone.
  t = await startTestServer({ storage, aggregator: { resyncMs: 300 } });
  // EndpointSlices may not name loopback addresses: the server listens on the machine's own too.
  backend = await startWebhookServer(tls, '0.0.0.0');
  backend.handle('/apis/things.example.com/v1', () => ({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'things.example.com/v1', resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['list'] }] }));
  backend.handle('/apis/things.example.com/v1/namespaces/default/things', () => ({ kind: 'ThingList', apiVersion: 'things.example.com/v1', metadata: {}, items: [{ metadata: { name: 'one' } }] }));
});

afterAll(async () => {
  await t.close();
  await backend.close();
  await storage.close();
});

const apiService = (name: string, port: number) => ({
  apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name },
  spec: { group: name.slice(name.indexOf('.') + 1), version: 'v1', service: { namespace: 'aggr', name: 'api', port }, caBundle: tls.caBundle, groupPriorityMinimum: 100, versionPriority: 10 },
});

/** Until the APIService's Available condition has `reason`; then the condition. */
function condition(name: string, reason: string): Promise<{ status: string; reason: string; message: string }> {
  return until(async () => {
    const res = await t.call('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    const c = (res.body?.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Available');
    return c?.reason === reason ? c : undefined;
  });
}

test('a ClusterIP service is checked for its port, its EndpointSlices and a ready address with the port\'s name before its server', async () => {
  const address = Object.values(networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address;
  expect(address).toBeDefined();
  expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'aggr' } } })).status).toBe(201);
  expect((await t.call('POST', '/api/v1/namespaces/aggr/services', { body: { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } } })).status).toBe(201);
  expect((await t.call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: apiService('v1.things.example.com', 443) })).status).toBe(201);
  expect((await t.call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: apiService('v1.port.example.com', 8443) })).status).toBe(201);

  expect(await condition('v1.port.example.com', 'ServicePortError')).toMatchObject({ status: 'False', message: 'service/api in "aggr" is not listening on port 8443' });
  expect(await condition('v1.things.example.com', 'EndpointsNotFound')).toMatchObject({ status: 'False', message: 'cannot find endpointslices for service/api in "aggr"' });
  // Not Available: requests for its group version are refused here.
  const refused = await t.call('GET', '/apis/things.example.com/v1/namespaces/default/things');
  expect([refused.status, refused.text]).toEqual([503, 'service unavailable\n']);

  const slice = (portName: string, ready: boolean) => ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'api-1', labels: { 'kubernetes.io/service-name': 'api' } },
    addressType: 'IPv4', endpoints: [{ addresses: [address], conditions: { ready } }], ports: [{ name: portName, port: backend.port }],
  });
  expect((await t.call('POST', '/apis/discovery.k8s.io/v1/namespaces/aggr/endpointslices', { body: slice('metrics', true) })).status).toBe(201);
  expect(await condition('v1.things.example.com', 'MissingEndpoints')).toMatchObject({ message: 'endpointslices for service/api in "aggr" have no addresses with port name "https"' });
  // The EndpointSlice's change alone brings the next check.
  expect((await t.call('PUT', '/apis/discovery.k8s.io/v1/namespaces/aggr/endpointslices/api-1', { body: slice('https', true) })).status).toBe(200);
  expect(await condition('v1.things.example.com', 'Passed')).toMatchObject({ status: 'True', message: 'all checks passed' });
  expect(backend.received.get('/apis/things.example.com/v1')?.length).toBeGreaterThan(0);

  // The metrics follow the status write once it returns, which can be a moment after a GET sees it.
  const metric = (line: string) => until(async () => ((await t.call('GET', '/metrics')).text.split('\n').includes(line) ? true : undefined), 5000).catch(() => false);
  expect(await metric('aggregator_unavailable_apiservice{name="v1.things.example.com"} 0')).toBe(true);
  expect(await metric('aggregator_unavailable_apiservice{name="v1.port.example.com"} 1')).toBe(true);

  const proxied = await t.call('GET', '/apis/things.example.com/v1/namespaces/default/things');
  expect(proxied.status).toBe(200);
  expect(proxied.body).toMatchObject({ kind: 'ThingList', items: [{ metadata: { name: 'one' } }] });
  // Its only address not ready: missing again.
  expect((await t.call('PUT', '/apis/discovery.k8s.io/v1/namespaces/aggr/endpointslices/api-1', { body: slice('https', false) })).status).toBe(200);
  expect(await condition('v1.things.example.com', 'MissingEndpoints')).toMatchObject({ status: 'False' });
  // kube's metrics: the gauge follows the condition; the counter counts the fall from Available, by reason.
  expect(await metric('aggregator_unavailable_apiservice{name="v1.things.example.com"} 1')).toBe(true);
  expect(await metric('aggregator_unavailable_apiservice_total{name="v1.things.example.com",reason="MissingEndpoints"} 1')).toBe(true);
  // The APIService that never was Available never counted.
  expect((await t.call('GET', '/metrics')).text).not.toContain('aggregator_unavailable_apiservice_total{name="v1.port.example.com"');

  // An APIService that stops naming a Service is local, and always Available (kube's local controller).
  const current = (await t.call('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.port.example.com')).body;
  current.spec = { group: 'port.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 };
  expect((await t.call('PUT', '/apis/apiregistration.k8s.io/v1/apiservices/v1.port.example.com', { body: current })).status).toBe(200);
  expect(await condition('v1.port.example.com', 'Local')).toMatchObject({ status: 'True', message: 'Local APIServices are always available' });

  // A server that stops answering, with no object changed: the periodic check (kube's resync) finds it.
  expect((await t.call('PUT', '/apis/discovery.k8s.io/v1/namespaces/aggr/endpointslices/api-1', { body: slice('https', true) })).status).toBe(200);
  await condition('v1.things.example.com', 'Passed');
  await backend.close();
  expect((await condition('v1.things.example.com', 'FailedDiscoveryCheck')).message).toMatch(/^failing or missing response from https:\/\/[0-9.]+:\d+\/apis\/things\.example\.com\/v1: Get "https:\/\/[0-9.]+:\d+\/apis\/things\.example\.com\/v1": dial tcp [0-9.]+:\d+: connect: connection refused$/);
});
