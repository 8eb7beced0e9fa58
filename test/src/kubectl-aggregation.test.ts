/**
 * The aggregation layer with a real aggregated API server (an HTTPS server in this process that
 * trusts only the front-proxy CA Windlass publishes in kube-system/extension-apiserver-authentication,
 * as servers built on k8s.io/apiserver do) and the real kubectl: an APIService naming a Service
 * becomes Available once its server answers discovery, its group shows in discovery, requests
 * reach the server as the caller (request-header identity, never the caller's token), the
 * caller's authorization is checked first, watches and upgrades go through, its OpenAPI reaches
 * kubectl explain, and an APIService whose server is gone or whose Service is missing is marked so,
 * with kube's reasons and messages, and answers 503. Windlass also trusts the front proxy itself
 * (request-header authentication).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import { eventually, kubectlAsync, removeDir, servingCertificates, startWindlass, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let backend: https.Server;
let watchStream: ServerResponse | undefined;
let port = 0;
let caBundle = '';
const group = 'metrics.e2e.example.com';
/** What the aggregated server saw of each request. */
const seen: { path: string; user?: string; groups: string[]; extra: Record<string, string>; authorization?: string; clientCN?: string }[] = [];

const run = (args: string[], input?: string) => kubectlAsync(s.kubeconfig, args, input);
async function ok(args: string[], input?: string): Promise<string> {
  const r = await run(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const resourceList = {
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`,
  resources: [
    { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list'], shortNames: ['wg'] },
    { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get'] },
  ],
};

/** The aggregated server: discovery, and widgets that say whom they were served to. */
function answer(req: IncomingMessage): { code: number; body: unknown } {
  const path = (req.url ?? '').split('?')[0];
  const header = (name: string) => req.headers[name] as string | undefined;
  const extra: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (name.startsWith('x-remote-extra-')) extra[name.slice(15)] = String(value);
  const groups = req.headersDistinct['x-remote-group'] ?? [];
  seen.push({ path, user: header('x-remote-user'), groups, extra, authorization: header('authorization'), clientCN: (req.socket as TLSSocket).getPeerCertificate().subject?.CN as string | undefined });
  if (path === `/apis/${group}/v1`) return { code: 200, body: resourceList };
  if (path === '/openapi/v3') return { code: 200, body: { paths: { [`apis/${group}/v1`]: { serverRelativeURL: `/openapi/v3/apis/${group}/v1?hash=E2E1` } } } };
  if (path === `/openapi/v3/apis/${group}/v1`) return { code: 200, body: widgetOpenAPI };
  const widget = (name: string) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, namespace: 'default', annotations: { 'served-to': header('x-remote-user') ?? '' } }, spec: { query: req.url } });
  if (path === `/apis/${group}/v1/namespaces/default/widgets` && /[?&]watch=1/.test(req.url ?? '')) return { code: 200, body: 'watch' };
  if (path === `/apis/${group}/v1/namespaces/default/widgets`) return { code: 200, body: { apiVersion: `${group}/v1`, kind: 'WidgetList', metadata: {}, items: [widget('w1'), widget('w2')] } };
  if (path === `/apis/${group}/v1/namespaces/default/widgets/w1` || path === `/apis/${group}/v1/namespaces/default/widgets/slow`) return { code: 200, body: widget('w1') };
  return { code: 404, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'not here', reason: 'NotFound', code: 404 } };
}

/** The aggregated server's OpenAPI v3 document of its group version, as `kubectl explain` reads it. */
const widgetOpenAPI = {
  openapi: '3.0.0', info: { title: 'e2e', version: 'v1' },
  paths: {
    [`/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`]: {
      get: {
        'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': { group, version: 'v1', kind: 'Widget' },
        responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.e2e.metrics.v1.Widget' } } } } },
      },
    },
  },
  components: {
    schemas: {
      'com.example.e2e.metrics.v1.Widget': {
        description: 'A Widget says whom it was served to.',
        type: 'object',
        properties: {
          apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
          kind: { type: 'string', description: 'The REST resource this object represents.' },
          spec: { type: 'object', description: 'What was asked.', properties: { query: { type: 'string', description: 'The URL the request came with.' } } },
        },
        'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'Widget' }],
      },
    },
  },
};

/** Its OpenAPI v2 document, which /openapi/v2 merges. */
const widgetSwagger = {
  swagger: '2.0', info: { title: 'e2e', version: 'v1' },
  paths: { [`/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`]: { get: { operationId: 'readWidget', 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': { group, version: 'v1', kind: 'Widget' }, responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/com.example.e2e.metrics.v1.Widget' } } } } } },
  definitions: { 'com.example.e2e.metrics.v1.Widget': { description: 'A Widget says whom it was served to.', type: 'object', 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'Widget' }] } },
};
/** The If-None-Match of each /openapi/v2 request the server got. */
const v2Asks: string[] = [];

interface AuthConfigMap { data: Record<string, string> }

/** A GET with the admin token and impersonation headers kubectl cannot send. */
function impersonating(path: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const token = readFileSync(join(s.dataDir, 'admin-token'), 'utf8').trim();
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.url}${path}`, { ca: readFileSync(join(s.dataDir, 'pki', 'ca.crt')), servername: 'localhost', headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  s = server();
  // The front-proxy trust, as an aggregated server reads it at start.
  let auth: AuthConfigMap | undefined;
  await eventually(async () => {
    const r = await run(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json']);
    if (r.code === 0) auth = JSON.parse(r.stdout) as AuthConfigMap;
    return auth !== undefined;
  }, 20000);
  // A CA and a serving certificate for the service's DNS name, as an aggregated server's deployment has.
  const tls = servingCertificates('DNS:metrics-api.aggr.svc', 'metrics-api');
  caBundle = Buffer.from(tls.ca).toString('base64');
  // Only clients with a certificate from the request-header CA get through the handshake.
  backend = https.createServer({ cert: tls.cert, key: tls.key, ca: auth!.data['requestheader-client-ca-file'], requestCert: true, rejectUnauthorized: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const { code, body } = answer(req);
      if ((req.url ?? '') === '/openapi/v2') {
        // An ETag as k8s.io/apiserver sends: a request naming it is answered 304.
        v2Asks.push(String(req.headers['if-none-match'] ?? ''));
        if (req.headers['if-none-match'] === '"v2-1"') return res.writeHead(304).end();
        return res.writeHead(200, { 'content-type': 'application/json', etag: '"v2-1"' }).end(JSON.stringify(widgetSwagger));
      }
      if (code === 200 && (req.url ?? '').startsWith(`/apis/${group}/v1/namespaces/default/widgets/slow`)) {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)), 1500);
        return;
      }
      if (body === 'watch') {
        // A watch: the first event now, the rest when the test says.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'Widget', metadata: { name: 'w1' } } })}\n`);
        watchStream = res;
        return;
      }
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  // An upgraded connection echoes what it gets, prefixed with whom it serves.
  backend.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const user = String(req.headers['x-remote-user']);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(`${user}:${d.toString()}`));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  port = (backend.address() as AddressInfo).port;
});

afterAll(async () => {
  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
});

const apiService = (name: string, service: string) => `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: ${name}
spec:
  group: ${name.slice(name.indexOf('.') + 1)}
  version: ${name.slice(0, name.indexOf('.'))}
  service: {namespace: aggr, name: ${service}, port: ${port}}
  caBundle: ${caBundle}
  groupPriorityMinimum: 100
  versionPriority: 100
`;

async function available(name: string): Promise<{ status: string; reason: string; message: string } | undefined> {
  const r = await run(['get', 'apiservice', name, '-o', 'json']);
  if (r.code !== 0) return undefined;
  const conditions = (JSON.parse(r.stdout) as { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }).status?.conditions ?? [];
  return conditions.find((c) => c.type === 'Available');
}

test('the front-proxy trust is published in extension-apiserver-authentication', async () => {
  const data = (JSON.parse(await ok(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as AuthConfigMap).data;
  expect(Object.keys(data).sort()).toEqual([
    'client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix',
    'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers',
  ]);
  expect(data['requestheader-allowed-names']).toBe('["front-proxy-client"]');
  expect(data['requestheader-username-headers']).toBe('["X-Remote-User"]');
  expect(data['requestheader-group-headers']).toBe('["X-Remote-Group"]');
  expect(data['requestheader-extra-headers-prefix']).toBe('["X-Remote-Extra-"]');
  // The serving CA signs client certificates (admin.conf); the front-proxy CA is another one.
  expect(data['client-ca-file']).toBe(readFileSync(join(s.dataDir, 'pki', 'ca.crt'), 'utf8'));
  expect(data['requestheader-client-ca-file']).toBe(readFileSync(join(s.dataDir, 'pki', 'front-proxy-ca.crt'), 'utf8'));
  expect(data['requestheader-client-ca-file']).not.toBe(data['client-ca-file']);
});

test('Windlass itself trusts the front proxy: its client certificate with identity headers is that user', async () => {
  const pki = join(s.dataDir, 'pki');
  const review = (headers: Record<string, string | string[]>, withProxyCert = true) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = https.request(`${s.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: 'POST', ca: readFileSync(join(pki, 'ca.crt')), servername: 'localhost',
      ...(withProxyCert ? { cert: readFileSync(join(pki, 'front-proxy-client.crt')), key: readFileSync(join(pki, 'front-proxy-client.key')) } : {}),
      headers: { 'content-type': 'application/json', ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
  });
  const proxied = await review({ 'X-Remote-User': 'jane', 'X-Remote-Group': ['developers', 'qa'], 'X-Remote-Extra-Team': 'blue' });
  expect(proxied.status).toBe(201);
  expect(proxied.body.status.userInfo).toEqual({ username: 'jane', groups: ['developers', 'qa', 'system:authenticated'], extra: { team: ['blue'] } });
  // The same headers without the proxy's certificate name nobody.
  const plain = await review({ 'X-Remote-User': 'jane' }, false);
  expect(plain.body.status?.userInfo?.username ?? plain.body.message).not.toBe('jane');
  expect(plain.status).toBe(403);
});

test('the request-header flags name the headers Windlass reads and publishes', async () => {
  const other = await startWindlass(['--requestheader-username-headers=X-Proxy-User', '--requestheader-group-headers=X-Proxy-Group', '--requestheader-extra-headers-prefix=X-Proxy-Extra-']);
  try {
    let data: Record<string, string> = {};
    await eventually(async () => {
      const r = await kubectlAsync(other.kubeconfig, ['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json']);
      if (r.code === 0) data = (JSON.parse(r.stdout) as AuthConfigMap).data;
      return r.code === 0;
    }, 20000);
    expect([data['requestheader-username-headers'], data['requestheader-group-headers'], data['requestheader-extra-headers-prefix']]).toEqual(['["X-Proxy-User"]', '["X-Proxy-Group"]', '["X-Proxy-Extra-"]']);
    const pki = join(other.dataDir, 'pki');
    const body = await new Promise<any>((resolve, reject) => {
      const req = https.request(`${other.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST', ca: readFileSync(join(pki, 'ca.crt')), servername: 'localhost',
        cert: readFileSync(join(pki, 'front-proxy-client.crt')), key: readFileSync(join(pki, 'front-proxy-client.key')),
        // The default names are not read by this server.
        headers: { 'content-type': 'application/json', 'X-Proxy-User': 'ann', 'X-Proxy-Group': 'ops', 'X-Proxy-Extra-Site': 'north', 'X-Remote-User': 'mallory' },
      }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
    });
    expect(body.status.userInfo).toEqual({ username: 'ann', groups: ['ops', 'system:authenticated'], extra: { site: ['north'] } });
  } finally {
    await other.stop();
    removeDir(other.dataDir);
  }
});

test('an APIService whose server answers is Available, listed in discovery, and serves kubectl as the caller', async () => {
  await ok(['create', 'namespace', 'aggr']);
  // No cluster network here: the service names the host the aggregated server listens on.
  await ok(['apply', '-f', '-'], `apiVersion: v1\nkind: Service\nmetadata: {name: metrics-api, namespace: aggr}\nspec: {type: ExternalName, externalName: 127.0.0.1}\n---\n${apiService(`v1.${group}`, 'metrics-api')}`);
  expect(await eventually(async () => (await available(`v1.${group}`))?.status === 'True', 20000)).toBe(true);
  expect(await available(`v1.${group}`)).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' });
  // The discovery check went as the aggregator, in system:masters, with the front-proxy client certificate.
  expect(seen.find((r) => r.path === `/apis/${group}/v1`)).toMatchObject({ user: 'system:kube-aggregator', groups: ['system:masters'], clientCN: 'front-proxy-client' });

  const apis = JSON.parse(await ok(['get', '--raw', '/apis'])) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
  expect(apis.groups.find((g) => g.name === group)).toEqual({ name: group, versions: [{ groupVersion: `${group}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${group}/v1`, version: 'v1' } });
  expect(JSON.parse(await ok(['get', '--raw', `/apis/${group}`]))).toMatchObject({ kind: 'APIGroup', name: group });
  // /apis/<group>/<version> is the aggregated server's own document.
  expect(JSON.parse(await ok(['get', '--raw', `/apis/${group}/v1`]))).toEqual(resourceList);
  // kubectl's aggregated discovery lists the remote resources with their short names.
  const resources = await ok(['api-resources', `--api-group=${group}`, '--no-headers']);
  expect(resources.trim().split(/\s+/)).toEqual(['widgets', 'wg', `${group}/v1`, 'true', 'Widget']);

  // The aggregated server's OpenAPI v3 is listed in /openapi/v3 and served here: kubectl explain reads it.
  const index = JSON.parse(await ok(['get', '--raw', '/openapi/v3'])) as { paths: Record<string, { serverRelativeURL: string }> };
  expect(index.paths[`apis/${group}/v1`].serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/apis/${group.replace(/\./g, '\\.')}/v1\\?hash=[0-9A-F]{128}$`));
  expect(index.paths['apis/apps/v1']).toBeDefined();
  // Its v2 document is merged into /openapi/v2, beside the built-in kinds.
  const v2 = JSON.parse(await ok(['get', '--raw', '/openapi/v2'])) as { definitions: Record<string, { description?: string }>; paths: Record<string, unknown> };
  expect(v2.definitions['com.example.e2e.metrics.v1.Widget'].description).toBe('A Widget says whom it was served to.');
  expect(v2.paths[`/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`]).toBeDefined();
  expect(v2.definitions['io.k8s.api.core.v1.Pod']).toBeDefined();
  const explained = await ok(['explain', `widgets.${group}.spec`]);
  expect(explained).toContain('What was asked.');
  expect(explained).toContain('The URL the request came with.');

  seen.length = 0;
  const list = JSON.parse(await ok(['get', 'wg', '-n', 'default', '-o', 'json', '--chunk-size=0'])) as { kind: string; items: { metadata: { name: string; annotations: Record<string, string> } }[] };
  expect(list.items.map((i) => i.metadata.name)).toEqual(['w1', 'w2']);
  expect(list.items[0].metadata.annotations['served-to']).toBe('windlass-admin');
  const request = seen.find((r) => r.path === `/apis/${group}/v1/namespaces/default/widgets`)!;
  // The caller's identity in request headers, over the front-proxy client certificate; its token stays here.
  expect(request).toMatchObject({ user: 'windlass-admin', clientCN: 'front-proxy-client', authorization: undefined });
  expect(request.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
  const one = JSON.parse(await ok(['get', `widgets.${group}`, 'w1', '-n', 'default', '-o', 'json'])) as { metadata: { name: string } };
  expect(one.metadata.name).toBe('w1');
});

test('authorization comes first: a caller without the permission is refused here, and the aggregated server never sees it', async () => {
  seen.length = 0;
  const r = await run(['get', 'widgets.' + group, '-n', 'default', '--as=jane', '--as-group=developers']);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`widgets.${group} is forbidden: User "jane" cannot list resource "widgets" in API group "${group}" in the namespace "default"`);
  expect(seen.filter((x) => x.path.includes('/widgets'))).toEqual([]);
  // Allowed through RBAC, the impersonated user (and its extra) is who the server sees.
  await ok(['create', 'clusterrole', 'widget-reader', `--verb=get,list`, `--resource=widgets.${group}`]);
  await ok(['create', 'clusterrolebinding', 'widget-reader', '--clusterrole=widget-reader', '--user=jane']);
  let last = '';
  const allowed = await eventually(async () => {
    const r = await run(['get', `widgets.${group}`, '-n', 'default', '--as=jane', '--as-group=developers', '-o', 'name']);
    last = r.stderr;
    return r.code === 0;
  }, 10000);
  expect(last).toBe('');
  expect(allowed).toBe(true);
  expect(seen.filter((x) => x.path.endsWith('/widgets')).at(-1)).toMatchObject({ user: 'jane', groups: ['developers', 'system:authenticated'], extra: {} });
  // An impersonated user's extra goes on as X-Remote-Extra-<key> (kubectl here has no --as-user-extra).
  const answer = await impersonating(`/apis/${group}/v1/namespaces/default/widgets`, { 'Impersonate-User': 'jane', 'Impersonate-Extra-Team': 'blue' });
  expect(answer.status).toBe(200);
  const request = seen.filter((x) => x.path.endsWith('/widgets')).at(-1)!;
  expect(request.user).toBe('jane');
  expect(request.groups).toEqual(['system:authenticated']);
  expect(request.extra).toEqual({ team: 'blue' });
});

test('a proxied request past its timeout is answered 504, and its backend\'s late answer is dropped', async () => {
  const slow = await run(['get', '--raw', `/apis/${group}/v1/namespaces/default/widgets/slow?timeout=1s`]);
  expect(slow.stderr).toContain('Error from server (Timeout)');
  await new Promise((r) => setTimeout(r, 1000));
  // The backend has answered meanwhile; the server is still there.
  expect(JSON.parse(await ok(['get', '--raw', `/apis/${group}/v1/namespaces/default/widgets/w1`]))).toMatchObject({ metadata: { name: 'w1' } });
});

test('a Service created after its APIService makes it Available, without a change to the APIService', async () => {
  await ok(['apply', '-f', '-'], apiService(`v1.late.${group}`, 'late-api'));
  expect(await eventually(async () => (await available(`v1.late.${group}`))?.reason === 'ServiceNotFound', 20000)).toBe(true);
  await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Service\nmetadata: {name: late-api, namespace: aggr}\nspec: {type: ExternalName, externalName: 127.0.0.1}\n');
  // The aggregated server's certificate is for metrics-api.aggr.svc, not late-api.aggr.svc: the check reaches it and fails its name.
  expect(await eventually(async () => (await available(`v1.late.${group}`))?.reason === 'FailedDiscoveryCheck', 20000)).toBe(true);
  expect((await available(`v1.late.${group}`))?.message).toContain('x509: certificate is valid for metrics-api.aggr.svc, not late-api.aggr.svc');
  await ok(['delete', 'apiservice', `v1.late.${group}`]);
});

test('a watch streams through as its server writes it, and an upgrade request is upgraded end to end', async () => {
  // Every check asks for the v2 document again with the ETag it has (one check has run since: the late Service's).
  expect(v2Asks[0]).toBe('');
  expect(v2Asks.slice(1)).toContain('"v2-1"');
  const token = readFileSync(join(s.dataDir, 'admin-token'), 'utf8').trim();
  const ca = readFileSync(join(s.dataDir, 'pki', 'ca.crt'));
  const lines: string[] = [];
  let ended = false;
  const req = https.request(`${s.url}/apis/${group}/v1/namespaces/default/widgets?watch=1`, { ca, servername: 'localhost', headers: { authorization: `Bearer ${token}` } }, (res) => {
    let buf = '';
    res.on('data', (d) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop()!;
      lines.push(...parts);
    });
    res.on('end', () => (ended = true));
  });
  req.end();
  // The first event arrives while the aggregated server still holds the stream open.
  expect(await eventually(() => lines.length === 1, 10000)).toBe(true);
  expect(ended).toBe(false);
  expect(JSON.parse(lines[0])).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w1' } } });
  watchStream!.end(`${JSON.stringify({ type: 'DELETED', object: { kind: 'Widget', metadata: { name: 'w1' } } })}\n`);
  expect(await eventually(() => ended, 10000)).toBe(true);
  expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ADDED', 'DELETED']);

  const sock = tls.connect({ host: '127.0.0.1', port: s.port, ca, servername: 'localhost' });
  let received = '';
  sock.on('data', (d) => (received += d));
  sock.write(`GET /apis/${group}/v1/namespaces/default/widgets/w1/attach HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: echo\r\nX-Remote-User: mallory\r\n\r\n`);
  expect(await eventually(() => received.includes('\r\n\r\n'), 10000)).toBe(true);
  expect(received.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
  sock.write('ping');
  // Upgraded as the caller, whatever identity header it sent.
  expect(await eventually(() => received.endsWith('windlass-admin:ping'), 10000)).toBe(true);
  sock.destroy();
});

test('an APIService whose Service is missing, or whose server stopped answering, is not Available and answers 503', async () => {
  await ok(['apply', '-f', '-'], apiService(`v1.other.${group}`, 'missing'));
  expect(await eventually(async () => (await available(`v1.other.${group}`))?.reason === 'ServiceNotFound', 20000)).toBe(true);
  expect(await available(`v1.other.${group}`)).toMatchObject({ status: 'False', message: 'service/missing in "aggr" is not present' });
  const refused = await run(['get', '--raw', `/apis/other.${group}/v1/namespaces/default/things`]);
  expect(refused.stderr).toContain('the server is currently unable to handle the request');
  // Listed in /apis all the same (kube lists every APIService's group).
  expect((JSON.parse(await ok(['get', '--raw', '/apis'])) as { groups: { name: string }[] }).groups.map((g) => g.name)).toContain(`other.${group}`);

  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
  // A change of the APIService brings a check now rather than at the next resync.
  await ok(['label', 'apiservice', `v1.${group}`, 'checked=again']);
  expect(await eventually(async () => (await available(`v1.${group}`))?.status === 'False', 20000)).toBe(true);
  const url = `https://127.0.0.1:${port}/apis/${group}/v1`;
  const condition = await available(`v1.${group}`);
  expect(condition?.reason).toBe('FailedDiscoveryCheck');
  expect(condition?.message).toBe(`failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  const raw = await run(['get', '--raw', `/apis/${group}/v1/namespaces/default/widgets`]);
  expect(raw.stderr).toContain('Error from server (ServiceUnavailable): the server is currently unable to handle the request');
  // Its discovery is marked stale, so kubectl leaves its resources out, as client-go does with kube.
  const gone = await run(['get', `widgets.${group}`, '-n', 'default']);
  expect(gone.code).not.toBe(0);
  expect(gone.stderr).toContain('the server doesn\'t have a resource type "widgets"');
});
