/**
 * The connect subresources over HTTP as kube-apiserver 1.35 answers them: pods/log, exec,
 * attach and portforward against pods with no node, nodes that cannot be reached and a fake
 * kubelet (HTTPS, client certificate checked); the proxy subresources of pods, services and
 * nodes; the `create` check of websocket upgrades; CONNECT admission by a policy.
 */
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage } from '@windlass/storage';
import { TokenAuthenticator } from '@windlass/auth';
import { startTestServer, type TestServer, type Reply } from './testing/client.js';
import { hostAddress, kubeletCertificates, startEchoBackend, startFakeKubelet, type FakeKubelet } from './testing/fakekubelet.js';

let t: TestServer;
let kubelet: FakeKubelet;
let echo: { port: number; close(): Promise<void> };
let dir: string;
/** A port nothing listens on. */
let closedPort = 0;
/** Where the proxy backend listens: Endpoints, EndpointSlices and pods/proxy refuse loopback addresses. */
const hostIP = hostAddress();

const admin = { authorization: 'Bearer admin-token' };
const viewer = { authorization: 'Bearer viewer-token' };

function call(method: string, path: string, o: { body?: unknown; headers?: Record<string, string>; contentType?: string } = {}): Promise<Reply> {
  return t.call(method, path, { ...o, headers: { ...admin, ...(o.headers ?? {}) } });
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const pod = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec, ...(status ? { status } : {}) });
const containers = (...names: string[]) => names.map((n) => ({ name: n, image: 'busybox' }));

async function createPod(name: string, spec: Record<string, unknown>, podIP?: string): Promise<void> {
  const r = await call('POST', '/api/v1/namespaces/default/pods', { body: pod(name, spec) });
  expect(r.status).toBe(201);
  if (podIP !== undefined) {
    const s = await call('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { body: { status: { podIP, podIPs: [{ ip: podIP }] } }, contentType: 'application/merge-patch+json' });
    expect(s.status).toBe(200);
  }
}

async function createNode(name: string, addresses: Array<{ type: string; address: string }>, port?: number): Promise<void> {
  const r = await call('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } });
  expect(r.status).toBe(201);
  const status: Record<string, unknown> = { addresses };
  if (port !== undefined) status.daemonEndpoints = { kubeletEndpoint: { Port: port } };
  const s = await call('PATCH', `/api/v1/nodes/${name}/status`, { body: { status }, contentType: 'application/merge-patch+json' });
  expect(s.status).toBe(200);
}

/** A GET whose redirect is not followed: its status and Location. */
function getUnfollowed(path: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    http.get(`${t.base}${path}`, { headers: admin }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on('error', reject);
  });
}

/** A raw HTTP/1.1 request on its own connection, read until the server closes it. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.on('data', (d) => chunks.push(d));
    sock.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    sock.on('error', reject);
    sock.write(head);
    setTimeout(() => sock.destroy(new Error(`no end: ${Buffer.concat(chunks).toString('latin1')}`)), 10_000).unref();
  });
}

function websocketUpgrade(path: string, headers: Record<string, string> = admin): Promise<string> {
  const port = Number(new URL(t.base).port);
  const lines = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol: v5.channel.k8s.io', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n`);
}

/** The v5 messages of a websocket answer: [channel, text] per binary frame. */
function frames(raw: string): Array<[number, string]> {
  const buf = Buffer.from(raw.slice(raw.indexOf('\r\n\r\n') + 4), 'latin1');
  const out: Array<[number, string]> = [];
  for (let i = 0; i < buf.length;) {
    const opcode = buf[i] & 0x0f;
    let len = buf[i + 1] & 0x7f;
    let at = i + 2;
    if (len === 126) {
      len = buf.readUInt16BE(at);
      at += 2;
    }
    if (opcode === 2) out.push([buf[at], buf.subarray(at + 1, at + len).toString()]);
    i = at + len;
  }
  return out;
}

const statusOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

beforeAll(async () => {
  const certs = kubeletCertificates();
  dir = mkdtempSync(join(tmpdir(), 'connect-test-'));
  for (const [f, v] of [['ca.crt', certs.ca], ['client.crt', certs.clientCert], ['client.key', certs.clientKey]]) writeFileSync(join(dir, f), v);
  kubelet = await startFakeKubelet(certs);
  echo = await startEchoBackend();
  closedPort = await freePort();
  const tokens = new TokenAuthenticator([
    { token: 'admin-token', user: { name: 'admin', uid: '1', groups: ['system:masters'] } },
    { token: 'viewer-token', user: { name: 'viewer', uid: '2', groups: [] } },
  ]);
  t = await startTestServer({
    storage: new EmbeddedStorage({ path: ':memory:' }),
    authenticator: { stable: true, authenticate: (h) => tokens.authenticate(h) },
    kubeletClient: { certificateAuthority: join(dir, 'ca.crt'), clientCertificate: join(dir, 'client.crt'), clientKey: join(dir, 'client.key') },
  });
  await createNode('reachable', [{ type: 'InternalIP', address: '127.0.0.1' }], kubelet.port);
  await createNode('down', [{ type: 'Hostname', address: '127.0.0.1' }], closedPort);
  await createNode('addressless', []);
  await createPod('unscheduled', { containers: containers('c') });
  await createPod('two', { initContainers: containers('init'), containers: containers('a', 'b') });
  await createPod('on-node', { nodeName: 'reachable', containers: containers('c') });
  await createPod('on-down', { nodeName: 'down', containers: containers('c') });
  await createPod('on-addressless', { nodeName: 'addressless', containers: containers('c') });
  await createPod('on-missing', { nodeName: 'missing', containers: containers('c') });
});

afterAll(async () => {
  await t?.close();
  await kubelet?.close();
  await echo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pods/log', () => {
  const log = (name: string, q = '') => call('GET', `/api/v1/namespaces/default/pods/${name}/log${q}`);

  test('a pod with no node streams nothing: 204 (LocationStreamer without a location)', async () => {
    const r = await log('unscheduled');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  test('query parameters that do not convert are 400 with the converter error', async () => {
    const r = await log('unscheduled', '?tailLines=ten');
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('strconv.ParseInt: parsing "ten": invalid syntax');
    const time = await log('unscheduled', '?sinceTime=yesterday');
    expect(time.body.message).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  });

  test('ValidatePodLogOptions: 422 PodLogOptions with every field error', async () => {
    const r = await log('unscheduled', '?tailLines=-1&limitBytes=0&sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('PodLogOptions "unscheduled" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0, []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified]');
    expect(r.body.details).toMatchObject({ name: 'unscheduled', kind: 'PodLogOptions' });
    const since = await log('unscheduled', '?sinceSeconds=0');
    expect(since.body.message).toBe('PodLogOptions "unscheduled" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0');
    const stream = await log('unscheduled', '?stream=Stdout');
    expect(stream.body.message).toBe('PodLogOptions "unscheduled" is invalid: stream: Forbidden: may not be specified');
  });

  test('the pod, then the container, are checked before the node', async () => {
    expect((await log('nope')).body.message).toBe('pods "nope" not found');
    const many = await log('two');
    expect(many.status).toBe(400);
    expect(many.body.message).toBe('a container name must be specified for pod two, choose one of: [init a b]');
    expect((await log('two', '?container=z')).body.message).toBe('container z is not valid for pod two');
    expect((await log('two', '?container=init')).status).toBe(204);
  });

  test('the node: missing (404), without a usable address (500), not answering (500 with Go\'s error)', async () => {
    const missing = await log('on-missing');
    expect([missing.status, missing.body.message]).toEqual([404, 'nodes "missing" not found']);
    const addressless = await log('on-addressless');
    expect(addressless.status).toBe(500);
    expect(addressless.body.message).toBe('no preferred addresses found; known addresses: []');
    expect(addressless.body.reason).toBeUndefined();
    const down = await log('on-down', '?follow=true');
    expect(down.status).toBe(500);
    expect(down.body.message).toBe(`Get "https://127.0.0.1:${closedPort}/containerLogs/default/on-down/c?follow=true": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`);
  });

  test('a reachable kubelet: its /containerLogs streamed as text/plain, with the client certificate and the options', async () => {
    const r = await log('on-node', '?tailLines=2&timestamps=true&sinceTime=2024-05-01T10:00:00%2B02:00');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(r.text).toBe('first line\nsecond line\n');
    const seen = kubelet.requests.at(-1)!;
    expect(seen.url).toBe('/containerLogs/default/on-node/c?sinceTime=2024-05-01T08%3A00%3A00Z&tailLines=2&timestamps=true');
    expect(seen.clientCN).toBe('kube-apiserver-kubelet-client');
    const followed = await log('on-node', '?follow=true');
    expect(followed.text).toBe('first line\nsecond line\nfollowed line 1\nfollowed line 2\n');
  });

  test('the kubelet refusing: GenericHttpResponseChecker', async () => {
    await createPod('with-missing', { nodeName: 'reachable', containers: containers('missing') });
    const r = await log('with-missing');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource ( pods/log with-missing)', details: { name: 'with-missing', kind: 'pods/log' } });
  });
});

describe('exec, attach, portforward', () => {
  test('a pod with no node, a container to choose, a dry run, a missing pod', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/pods/unscheduled/exec?command=ls&stdout=true');
    expect([r.status, r.body.message]).toEqual([400, 'pod unscheduled does not have a host assigned']);
    expect((await call('POST', '/api/v1/namespaces/default/pods/unscheduled/portforward?ports=80')).body.message).toBe('pod unscheduled does not have a host assigned');
    expect((await call('GET', '/api/v1/namespaces/default/pods/two/attach?stdout=1')).body.message).toBe('a container name must be specified for pod two, choose one of: [init a b]');
    expect((await call('POST', '/api/v1/namespaces/default/pods/unscheduled/exec?command=ls&dryRun=All')).body.message).toBe('dryRun is not supported');
    expect((await call('POST', '/api/v1/namespaces/default/pods/nope/exec?command=ls')).body.message).toBe('pods "nope" not found');
    expect((await call('POST', '/api/v1/namespaces/default/pods/unscheduled/portforward?ports=http')).body.message).toBe('cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');
    const put = await call('PUT', '/api/v1/namespaces/default/pods/unscheduled/exec');
    expect(put.status).toBe(405);
  });

  test('without an upgrade the request is refused once the pod has a node', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/pods/on-node/exec?command=ls&stdout=true');
    expect([r.status, r.body.message]).toEqual([400, 'Upgrade request required']);
  });

  test('an upgrade to a kubelet that does not answer: error dialing backend', async () => {
    const raw = await websocketUpgrade('/api/v1/namespaces/default/pods/on-down/exec?command=ls&stdout=true');
    expect(raw.startsWith('HTTP/1.1 500')).toBe(true);
    expect(statusOf(raw).message).toBe(`error dialing backend: dial tcp 127.0.0.1:${closedPort}: connect: connection refused`);
  });

  test('a websocket exec is relayed to the kubelet\'s /exec and the streams piped back', async () => {
    const raw = await websocketUpgrade('/api/v1/namespaces/default/pods/on-node/exec?command=echo&command=hi&stdout=true&stderr=true');
    expect(raw.startsWith('HTTP/1.1 101 Switching Protocols')).toBe(true);
    expect(raw).toContain('Sec-WebSocket-Protocol: v5.channel.k8s.io');
    expect(frames(raw)).toEqual([[1, 'hi\n'], [3, '{"metadata":{},"status":"Success"}']]);
    const seen = kubelet.requests.at(-1)!;
    expect(seen.url).toBe('/exec/default/on-node/c?command=echo&command=hi&error=1&output=1');
    // The credentials stay with the API server; the kubelet sees its client certificate.
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.clientCN).toBe('kube-apiserver-kubelet-client');
  });

  test('the kubelet refusing an upgrade is relayed as it answered', async () => {
    const raw = await websocketUpgrade('/api/v1/namespaces/default/pods/on-node/portforward?ports=8080,9090');
    expect(raw.startsWith('HTTP/1.1 400 Bad Request')).toBe(true);
    expect(raw.endsWith('no portForward streams but websocket v5.channel.k8s.io ones are served by this kubelet')).toBe(true);
    expect(kubelet.requests.at(-1)!.url).toBe('/portForward/default/on-node?port=8080%2C9090');
  });

  test('a websocket upgrade (GET) also needs create on the subresource', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'exec-get' }, rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['get'] }] };
    expect((await call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { body: role })).status).toBe(201);
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'exec-get' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'exec-get' }, subjects: [{ kind: 'User', name: 'viewer' }] };
    expect((await call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { body: binding })).status).toBe(201);
    // Until the binding reaches the RBAC cache the filter refuses the get itself.
    let raw = '';
    for (let i = 0; i < 100; i++) {
      raw = await websocketUpgrade('/api/v1/namespaces/default/pods/on-node/exec?command=echo&stdout=true', viewer);
      if (statusOf(raw).message === 'pods "on-node" is forbidden: ') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(raw.startsWith('HTTP/1.1 403')).toBe(true);
    expect(statusOf(raw)).toMatchObject({ reason: 'Forbidden', message: 'pods "on-node" is forbidden: ', details: { name: 'on-node', kind: 'pods' } });
    expect(kubelet.requests.some((r) => r.url.startsWith('/exec/default/on-node/c?command=echo&output=1'))).toBe(false);
  });
});

describe('proxy subresources', () => {
  test('pods/proxy: a global unicast pod IP, the first container port unless one is named', async () => {
    expect((await call('GET', '/api/v1/namespaces/default/pods/unscheduled/proxy/')).body.message).toBe('address not allowed');
    await createPod('loopback', { containers: containers('c') }, '127.0.0.1');
    const loopback = await call('DELETE', '/api/v1/namespaces/default/pods/loopback:8080/proxy/x');
    expect([loopback.status, loopback.body.message]).toEqual([400, 'address not allowed']);
    expect((await call('GET', '/api/v1/namespaces/default/pods/a:b:c:d/proxy/')).body.message).toBe('invalid pod request "a:b:c:d"');
    await createPod('web', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: echo.port }] }] }, hostIP);
    const r = await call('GET', '/api/v1/namespaces/default/pods/web/proxy/status/?verbose=1');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ method: 'GET', url: '/status/?verbose=1', forwardedUri: '/api/v1/namespaces/default/pods/web/proxy/status/' });
    const named = await call('GET', `/api/v1/namespaces/default/pods/http:web:${closedPort}/proxy/`);
    expect([named.status, named.body.message]).toEqual([503, `error trying to reach service: dial tcp ${hostIP}:${closedPort}: connect: connection refused`]);
  });

  test('services/proxy over v1 Endpoints: none (404), empty (503), addresses without their pod (503), an unknown port (503), a pod behind it', async () => {
    const svc = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'http', port: 80 }] } });
    for (const n of ['lonely', 'manual', 'empty', 'backed']) expect((await call('POST', '/api/v1/namespaces/default/services', { body: svc(n) })).status).toBe(201);
    const lonely = await call('GET', '/api/v1/namespaces/default/services/lonely/proxy/');
    expect([lonely.status, lonely.body.message]).toEqual([404, 'endpoints "lonely" not found']);
    const endpoints = (name: string, address: Record<string, unknown>) => ({ metadata: { name }, subsets: [{ addresses: [address], ports: [{ name: 'http', port: echo.port }] }] });
    expect((await call('POST', '/api/v1/namespaces/default/endpoints', { body: { metadata: { name: 'empty' } } })).status).toBe(201);
    const empty = await call('GET', '/api/v1/namespaces/default/services/empty/proxy/');
    expect([empty.status, empty.body.reason, empty.body.message]).toEqual([503, 'ServiceUnavailable', 'no endpoints available for service "empty"']);
    expect((await call('POST', '/api/v1/namespaces/default/endpoints', { body: endpoints('manual', { ip: hostIP }) })).status).toBe(201);
    const manual = await call('GET', '/api/v1/namespaces/default/services/http:manual:http/proxy/');
    expect([manual.status, manual.body.message]).toEqual([503, 'no endpoints available for service "http:manual:http"']);
    const port = await call('GET', '/api/v1/namespaces/default/services/manual:81/proxy/');
    expect([port.status, port.body.message]).toEqual([503, 'no service port 81 found for service "manual"']);
    await createPod('backend', { containers: containers('c') }, hostIP);
    expect((await call('POST', '/api/v1/namespaces/default/endpoints', { body: endpoints('backed', { ip: hostIP, targetRef: { kind: 'Pod', namespace: 'default', name: 'backend' } }) })).status).toBe(201);
    const backed = await call('GET', '/api/v1/namespaces/default/services/backed:http/proxy/ping');
    expect([backed.status, backed.body.url]).toEqual([200, '/ping']);
  });

  test('services/proxy to a ready EndpointSlice endpoint: method, path, query, body and headers as kube proxies them', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sliced' }, spec: { ports: [{ name: 'http', port: 80 }] } };
    expect((await call('POST', '/api/v1/namespaces/default/services', { body: svc })).status).toBe(201);
    const slice = {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'sliced-1', labels: { 'kubernetes.io/service-name': 'sliced' } }, addressType: 'IPv4',
      endpoints: [{ addresses: [hostIP], conditions: { ready: true } }], ports: [{ name: 'http', port: echo.port, protocol: 'TCP' }],
    };
    expect((await call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { body: slice })).status).toBe(201);
    const r = await call('POST', '/api/v1/namespaces/default/services/sliced:80/proxy/api/items/?limit=5', { body: 'payload', contentType: 'text/plain' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-backend')).toBe('echo');
    // corsRemovingTransport.
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.body).toMatchObject({ method: 'POST', url: '/api/items/?limit=5', body: 'payload', forwardedUri: '/api/v1/namespaces/default/services/sliced:80/proxy/api/items/', authorization: null });
    expect(r.body.host).toBe(new URL(t.base).host);
    // Without a port the endpoint port named "" is looked for: this Service's is named.
    const unnamed = await call('GET', '/api/v1/namespaces/default/services/sliced/proxy/');
    expect([unnamed.status, unnamed.body.message]).toEqual([503, 'no endpoints available for service "sliced"']);
    const root = await getUnfollowed('/api/v1/namespaces/default/services/sliced:http/proxy?x=1');
    expect(root).toEqual({ status: 301, location: '/api/v1/namespaces/default/services/sliced:http/proxy/?x=1' });
    // The backend's Location is moved under the proxy path, and leads back through the proxy.
    const redirect = await getUnfollowed('/api/v1/namespaces/default/services/sliced:http/proxy/redirect');
    expect(redirect).toEqual({ status: 302, location: '/api/v1/namespaces/default/services/sliced:http/proxy/landing/' });
    const landed = await call('GET', redirect.location!);
    expect([landed.status, landed.body.url]).toEqual([200, '/landing/']);
  });

  test('a backend that does not answer: error trying to reach service (503)', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gone' }, spec: { ports: [{ port: 80 }] } };
    expect((await call('POST', '/api/v1/namespaces/default/services', { body: svc })).status).toBe(201);
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'gone-1', labels: { 'kubernetes.io/service-name': 'gone' } }, addressType: 'IPv4', endpoints: [{ addresses: [hostIP] }], ports: [{ port: closedPort }] };
    expect((await call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { body: slice })).status).toBe(201);
    const r = await call('GET', '/api/v1/namespaces/default/services/gone/proxy/healthz');
    expect([r.status, r.body.reason, r.body.message]).toEqual([503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${hostIP}:${closedPort}: connect: connection refused`]);
  });

  test('nodes/proxy: the kubelet with its credentials; another port only on a global unicast address', async () => {
    const r = await call('PUT', '/api/v1/nodes/reachable/proxy/configz?a=b', { body: '{}' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ kubelet: true, method: 'PUT', path: '/configz', query: '?a=b', body: '{}' });
    expect(kubelet.requests.at(-1)!.clientCN).toBe('kube-apiserver-kubelet-client');
    expect((await call('GET', '/api/v1/nodes/reachable:8080/proxy/')).body.message).toBe('address not allowed');
    expect((await call('GET', '/api/v1/nodes/addressless/proxy/')).body.message).toBe('no preferred addresses found; known addresses: []');
    expect((await call('GET', '/api/v1/nodes/nowhere/proxy/')).body.message).toBe('nodes "nowhere" not found');
  });
});

describe('CONNECT admission', () => {
  test('a ValidatingAdmissionPolicy matching CONNECT on pods/exec sees the PodExecOptions', async () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-rm' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CONNECT'], resources: ['pods/exec'] }] },
        validations: [{ expression: "object.kind == 'PodExecOptions' && !('rm' in object.command)", message: 'rm is not allowed' }],
      },
    };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-rm' }, spec: { policyName: 'no-rm', validationActions: ['Deny'] } };
    expect((await call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: policy })).status).toBe(201);
    expect((await call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: binding })).status).toBe(201);
    let r: Reply | undefined;
    for (let i = 0; i < 100; i++) {
      r = await call('POST', '/api/v1/namespaces/default/pods/unscheduled/exec?command=rm&command=-rf&stdout=true');
      if (r.status === 422) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    // The validation's reason (Invalid by default) is the answer's.
    expect([r!.status, r!.body.reason]).toEqual([422, 'Invalid']);
    expect(r!.body.message).toBe("pods \"unscheduled\" is forbidden: ValidatingAdmissionPolicy 'no-rm' with binding 'no-rm' denied request: rm is not allowed");
    const allowed = await call('POST', '/api/v1/namespaces/default/pods/unscheduled/exec?command=ls&stdout=true');
    expect(allowed.body.message).toBe('pod unscheduled does not have a host assigned');
  });
});
