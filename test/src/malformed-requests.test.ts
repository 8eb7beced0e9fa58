/**
 * Malformed and hostile requests over raw HTTPS, on the embedded backend: bodies that are not
 * JSON, truncated, of the wrong type, 100k levels deep, over the body limit, with a BOM or
 * invalid UTF-8; every patch type's broken patches; content types and Accept headers nothing
 * serves; broken query parameters; paths with `..`, escaped slashes and malformed escapes;
 * methods no route takes (malformedcases.ts lists them with kube-apiserver 1.35's answers).
 * Each is answered with kube's code, reason and message, as a Status where kube sends one; and
 * afterwards the server is ready, alive, holds exactly what the valid requests wrote, has no
 * request or watch left open, and clients that vanished mid-body or mid-watch left nothing stuck.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminToken, type RunningServer, useWindlass } from './harness.js';
import { RawHttps, type RawAnswer } from './rawhttps.js';
import { allCases, group, ns, paths, type Case } from './malformedcases.js';

const { cms, deployments, widgets } = paths;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      schema: {
        openAPIV3Schema: {
          type: 'object', properties: {
            spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, color: { type: 'string', enum: ['red', 'blue'] } } },
            status: { type: 'object', properties: { replicas: { type: 'integer' } } },
          },
        },
      },
    }],
  },
};

const deployment = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
};

/** What differs between the answer and kube's, or undefined. */
function mismatch(c: Case, r: RawAnswer): string | undefined {
  const problems: string[] = [];
  if (r.status !== c.code) problems.push(`code ${r.status}, kube's ${c.code}`);
  if (c.plain !== undefined) {
    if (r.text !== c.plain) problems.push(`body ${JSON.stringify(r.text.slice(0, 200))}, kube's ${JSON.stringify(c.plain)}`);
  } else if (r.json?.kind !== 'Status' || r.json.status !== 'Failure' || r.json.code !== c.code || !/^application\/json/.test(String(r.headers['content-type']))) {
    problems.push(`not a JSON Failure Status of code ${c.code}: ${r.headers['content-type']} ${r.text.slice(0, 200)}`);
  } else {
    if (c.reason !== undefined && (r.json.reason ?? '') !== c.reason) problems.push(`reason ${JSON.stringify(r.json.reason)}, kube's ${JSON.stringify(c.reason)}`);
    const m = String(r.json.message);
    if (typeof c.message === 'string' ? m !== c.message : c.message !== undefined && !c.message.test(m)) problems.push(`message ${JSON.stringify(m.slice(0, 400))}, kube's ${String(c.message).slice(0, 400)}`);
  }
  return problems.length ? `${c.name}: ${problems.join('; ')}` : undefined;
}

/** Prometheus text: the value of the sample whose name and labels start as given. */
function sample(metrics: string, prefix: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('malformed and hostile requests', () => {
  const server = useWindlass();
  let s: RunningServer;
  let http: RawHttps;
  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http.send({ method, path, body: body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body), headers });
  const versions: Record<string, string> = {};
  const metrics = async () => (await send('GET', '/metrics', undefined, { accept: 'text/plain' })).text;

  beforeAll(async () => {
    s = server();
    http = new RawHttps(s.url, readFileSync(join(s.dataDir, 'pki', 'ca.crt')), adminToken(s));
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    expect((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    expect((await send('POST', cms, { metadata: { name: 'base' }, data: { a: '1' } })).status).toBe(201);
    expect((await send('POST', deployments, deployment)).status).toBe(201);
    for (let i = 0; (await send('GET', widgets)).status !== 200; i++) {
      if (i > 100) throw new Error('the CRD was never served');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await send('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1, color: 'red' } })).status).toBe(201);
    for (const [key, path] of [['base', `${cms}/base`], ['web', `${deployments}/web`], ['w1', `${widgets}/w1`]]) versions[key] = (await send('GET', path)).json.metadata.resourceVersion;
  });
  afterAll(() => http?.destroy());

  test('every malformed request gets kube\'s Status, code, reason and message', async () => {
    const cases = allCases();
    expect(cases.length).toBeGreaterThan(250);
    // All at once: the server has to keep them apart, and the run stays short.
    const answers = await Promise.all(cases.map((c) => http.send(c.req)));
    expect(cases.map((c, i) => mismatch(c, answers[i])).filter(Boolean)).toEqual([]);
  });

  test('what kube accepts of the odd bodies is stored as kube stores it', async () => {
    // Repeated keys: Go merges a repeated object into the first, with a warning per field.
    const dup = await send('POST', cms, '{"metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}');
    expect(dup.status).toBe(201);
    expect(dup.json.data).toEqual({ a: '1', b: '2' });
    expect(String(dup.headers.warning)).toContain('duplicate field \\"data\\"');
    // Invalid UTF-8 inside a string becomes U+FFFD, as encoding/json decodes it.
    const utf8 = await send('POST', cms, Buffer.concat([Buffer.from('{"metadata":{"name":"utf8"},"data":{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]));
    expect(utf8.status).toBe(201);
    expect(utf8.json.data).toEqual({ a: '\ufffd\ufffd' });
    // A strategic merge patch converts field by field into the typed object: the kind it writes is not read.
    const smp = await send('PATCH', `${cms}/dup`, '{"kind":"Secret","apiVersion":"v9"}', { 'content-type': 'application/strategic-merge-patch+json' });
    expect([smp.status, smp.json.kind, smp.json.apiVersion]).toEqual([200, 'ConfigMap', 'v1']);
    // A watch timing out at once, and watch=maybe (anything but 0 and false is true), end by themselves.
    const negative = await send('GET', `${cms}?watch=1&timeoutSeconds=-1`);
    expect(negative.status).toBe(200);
    const maybe = await send('GET', `${cms}?watch=maybe&timeoutSeconds=1`);
    expect([maybe.status, maybe.text.split('\n')[0]]).toEqual([200, expect.stringContaining('"type":"ADDED"')]);
  });

  test('clients gone mid-body or mid-watch leave nothing open', async () => {
    const before = await metrics();
    const watchers = sample(before, 'apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"}');
    await Promise.all([
      http.abandonBody(cms, 100_000, Buffer.from('{"metadata":{"name":"half"},"data":{"a":"')),
      http.abandonBody(`${cms}/base`, 5000, Buffer.from('{"metadata":')),
      http.abandonWatch(`${cms}?watch=1`),
      http.abandonWatch(`/api/v1/watch/namespaces/${ns}/configmaps/base`),
      http.abandonWatch(`${widgets}?watch=1`),
    ]);
    // The server notices the closed sockets on its own time: wait for the gauges to settle.
    let m = '';
    for (let i = 0; i < 100; i++) {
      m = await metrics();
      const open = sample(m, 'apiserver_current_inflight_requests{request_kind="mutating"}') + sample(m, 'apiserver_current_inflight_requests{request_kind="readOnly"}')
        + sample(m, 'apiserver_longrunning_requests{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"}')
        + sample(m, 'apiserver_longrunning_requests{component="apiserver",group="",resource="configmaps",scope="resource",subresource="",verb="WATCH",version="v1"}');
      if (open === 0 && sample(m, 'apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"}') === watchers) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sample(m, 'apiserver_current_inflight_requests{request_kind="mutating"}')).toBe(0);
    expect(sample(m, 'apiserver_current_inflight_requests{request_kind="readOnly"}')).toBe(0);
    expect(sample(m, 'apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"}')).toBe(watchers);
    expect(m).not.toMatch(/apiserver_longrunning_requests\{[^}]*resource="(configmaps|widgets)"[^}]*\} [1-9]/);
    // The half-sent create wrote nothing, and the next requests are served.
    expect((await send('GET', `${cms}/half`)).status).toBe(404);
    expect((await send('POST', cms, { metadata: { name: 'after' } })).status).toBe(201);
  });

  test('afterwards the server is alive and ready, and holds only what the valid requests wrote', async () => {
    expect(s.proc.exitCode).toBeNull();
    const ready = await send('GET', '/readyz');
    expect([ready.status, ready.text]).toEqual([200, 'ok']);
    const names = (await send('GET', cms)).json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    expect(names.sort()).toEqual(['after', 'base', 'dup', 'utf8']);
    const base = (await send('GET', `${cms}/base`)).json;
    expect([base.metadata.resourceVersion, base.data]).toEqual([versions.base, { a: '1' }]);
    const web = (await send('GET', `${deployments}/web`)).json;
    expect([web.kind, web.metadata.resourceVersion, web.spec.replicas]).toEqual(['Deployment', versions.web, 1]);
    const w1 = (await send('GET', `${widgets}/w1`)).json;
    expect([w1.kind, w1.apiVersion, w1.metadata.resourceVersion, w1.spec]).toEqual(['Widget', `${group}/v1`, versions.w1, { replicas: 1, color: 'red' }]);
    expect((await send('GET', widgets)).json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(['w1']);
    const namespaces = (await send('GET', '/api/v1/namespaces')).json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    expect(namespaces.sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system', ns]);
  });
});
