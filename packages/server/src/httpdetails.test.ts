/**
 * Discovery, /version, OpenAPI and the health endpoints answer HTTP as kube-apiserver 1.35
 * does, read off its handlers (k8s.io/apiserver v0.35.7, kube-aggregator v0.35.6,
 * kube-openapi 589584f1c912, Go 1.25's http.ServeContent): methods per route (kube-aggregator's
 * mux answers any, go-restful's web services GET only), caching headers, conditional requests,
 * ranges, gzip, and the metrics labels of health requests. A real server over HTTP on the
 * embedded backend; requests through node:http so headers are seen as sent.
 */
import protobuf from 'protobufjs';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';
import { value } from './testing/scrape.js';
import { aggregatedDiscoveryMediaType } from './aggregateddiscovery.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
});
afterAll(() => t.close());

function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(t.base + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const aggregated = { accept: aggregatedDiscoveryMediaType };
const methodNotAllowed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
const notFoundStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };

test('HEAD on discovery: kube-aggregator\'s /apis and /apis/<group> answer it, go-restful\'s /api, versions and /version refuse it with 405', async () => {
  const getApis = await raw('GET', '/apis', aggregated);
  const headApis = await raw('HEAD', '/apis', aggregated);
  expect(headApis.status).toBe(200);
  expect(headApis.body.length).toBe(0);
  expect(headApis.headers['content-type']).toBe(aggregatedDiscoveryMediaType);
  expect(headApis.headers['cache-control']).toBe('public');
  expect(headApis.headers.etag).toBe(getApis.headers.etag);
  expect(headApis.headers['content-length']).toBe(String(getApis.body.length));
  expect((await raw('HEAD', '/apis', { ...aggregated, 'if-none-match': String(getApis.headers.etag) })).status).toBe(304);

  const headLegacy = await raw('HEAD', '/apis');
  expect(headLegacy.status).toBe(200);
  expect(headLegacy.headers['content-type']).toBe('application/json');
  expect(headLegacy.headers['cache-control']).toBe('no-cache, private');
  expect(headLegacy.headers['content-length']).toBe(String((await raw('GET', '/apis')).body.length));
  // The aggregator's group handler answers any method, POST included.
  for (const [method, path] of [['HEAD', '/apis/apps'], ['POST', '/apis/apps'], ['HEAD', '/apis/apps/'], ['POST', '/apis']]) {
    const r = await raw(method, path);
    expect([method, path, r.status]).toEqual([method, path, 200]);
  }
  expect(JSON.parse((await raw('POST', '/apis/apps')).body.toString()).kind).toBe('APIGroup');

  for (const [method, path, headers] of [
    ['HEAD', '/api', {}], ['HEAD', '/api', aggregated], ['HEAD', '/api/', aggregated], ['HEAD', '/api/v1', {}],
    ['HEAD', '/apis/apps/v1', {}], ['HEAD', '/version', {}], ['POST', '/version', {}], ['DELETE', '/api', {}], ['PUT', '/apis/apps/v1/', {}],
  ] as const) {
    const r = await raw(method, path, headers);
    expect([method, path, r.status, r.headers['content-type'], r.headers['cache-control']]).toEqual([method, path, 405, 'application/json', 'no-cache, private']);
    if (method !== 'HEAD') expect(JSON.parse(r.body.toString())).toEqual(methodNotAllowed);
  }
  // GET still serves them, and /version stays kube's indented JSON.
  expect(JSON.parse((await raw('GET', '/api', aggregated)).body.toString()).kind).toBe('APIGroupDiscoveryList');
  expect((await raw('GET', '/version')).body.toString()).toMatch(/^\{\n {2}"major": "1",/);
  // /apis/ is the aggregator's unwrapped legacy handler: never the aggregated document.
  expect(JSON.parse((await raw('GET', '/apis/', { accept: `${aggregatedDiscoveryMediaType},application/json` })).body.toString()).kind).toBe('APIGroupList');
});

test('paths under go-restful\'s web services that no route matches are its 404 Status; unknown groups the plain 404 page', async () => {
  for (const path of ['/api/v2', '/api/v1x', '/apis/apps/v9', '/apis/apps/v1beta1']) {
    const r = await raw('GET', path);
    expect([path, r.status, r.headers['content-type']]).toEqual([path, 404, 'application/json']);
    expect(JSON.parse(r.body.toString())).toEqual(notFoundStatus);
  }
  const page = await raw('GET', '/apis/nope.example.com');
  expect(page.status).toBe(404);
  expect(page.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(page.headers['cache-control']).toBe('no-cache, private');
  expect(page.body.toString()).toBe('404 page not found\n');
});

test('/openapi/v2: kube-openapi\'s ETag, Last-Modified, conditional requests, ranges, gzip and Accept as its handler answers them', async () => {
  const full = await raw('GET', '/openapi/v2');
  expect(full.status).toBe(200);
  expect(full.headers['content-type']).toBe('application/json');
  expect(full.headers.etag).toBe(`"${createHash('sha512').update(full.body).digest('hex').toUpperCase()}"`);
  expect(full.headers['cache-control']).toBe('no-cache, private');
  expect(full.headers['accept-ranges']).toBe('bytes');
  expect(full.headers.vary).toBe('Accept-Encoding, Accept');
  expect(full.headers['content-length']).toBe(String(full.body.length));
  const modified = String(full.headers['last-modified']);
  expect(modified).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  const etag = String(full.headers.etag);

  const notModified = await raw('GET', '/openapi/v2', { 'if-none-match': `"other", W/${etag}` });
  expect(notModified.status).toBe(304);
  expect(notModified.body.length).toBe(0);
  expect(notModified.headers.etag).toBe(etag);
  // writeNotModified drops the body's headers, and Last-Modified when there is an ETag.
  expect([notModified.headers['content-type'], notModified.headers['content-length'], notModified.headers['last-modified']]).toEqual([undefined, undefined, undefined]);
  expect((await raw('GET', '/openapi/v2', { 'if-modified-since': modified })).status).toBe(304);
  expect((await raw('GET', '/openapi/v2', { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
  // If-None-Match wins over If-Modified-Since; a POST's matching tag is a failed precondition.
  expect((await raw('GET', '/openapi/v2', { 'if-none-match': '"other"', 'if-modified-since': modified })).status).toBe(200);
  expect((await raw('POST', '/openapi/v2', { 'if-none-match': etag })).status).toBe(412);
  expect((await raw('GET', '/openapi/v2', { 'if-match': '"other"' })).status).toBe(412);

  const head = await raw('HEAD', '/openapi/v2', { 'accept-encoding': 'gzip' });
  expect([head.status, head.body.length, head.headers['content-length'], head.headers['content-encoding']]).toEqual([200, 0, String(full.body.length), undefined]);

  const zipped = await raw('GET', '/openapi/v2', { 'accept-encoding': 'deflate, gzip' });
  expect(zipped.headers['content-encoding']).toBe('gzip');
  expect(zipped.headers['content-length']).toBeUndefined();
  expect(zipped.headers['transfer-encoding']).toBe('chunked');
  expect(gunzipSync(zipped.body).equals(full.body)).toBe(true);
  expect((await raw('GET', '/openapi/v2', { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();

  const part = await raw('GET', '/openapi/v2', { range: 'bytes=0-9' });
  expect([part.status, part.headers['content-range'], part.body.toString()]).toEqual([206, `bytes 0-9/${full.body.length}`, full.body.subarray(0, 10).toString()]);
  const past = await raw('GET', '/openapi/v2', { range: `bytes=${full.body.length}-` });
  expect([past.status, past.headers['content-range'], past.body.toString(), past.headers.etag, past.headers['cache-control']])
    .toEqual([416, `bytes */${full.body.length}`, 'invalid range: failed to overlap\n', undefined, undefined]);
  // A stale If-Range serves the whole document.
  expect((await raw('GET', '/openapi/v2', { range: 'bytes=0-9', 'if-range': '"stale"' })).status).toBe(200);

  // gnostic's protobuf Document, under both of kube-openapi's subtypes, with its own ETag.
  const pb = await raw('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  expect([pb.status, pb.headers['content-type']]).toEqual([200, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']);
  expect(pb.headers.etag).not.toBe(full.headers.etag);
  const dotted = await raw('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'if-none-match': pb.headers.etag as string });
  expect(dotted.status).toBe(304);
  const doc = fields(pb.body);
  expect(doc.get(1)?.[0].toString()).toBe('2.0');
  const configMap = fields(doc.get(9)![0]).get(1)!.map(fields).find((named) => named.get(1)![0].toString() === 'io.k8s.api.core.v1.ConfigMap');
  const extensions = fields(configMap!.get(2)![0]).get(31)!.map(fields);
  const gvk = extensions.find((e) => e.get(1)![0].toString() === 'x-kubernetes-group-version-kind')!;
  expect(JSON.parse(fields(gvk.get(2)![0]).get(2)![0].toString())).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  // The first acceptable clause decides, in q order.
  expect((await raw('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json' })).headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  expect((await raw('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.5, application/json' })).headers['content-type']).toBe('application/json');
  expect((await raw('GET', '/openapi/v2', { accept: 'application/yaml' })).status).toBe(406);
  // The path mux matches exactly.
  expect((await raw('GET', '/openapi/v2/')).status).toBe(404);
});

test('/openapi/v3: the aggregator\'s index is sniffed text/plain with no ETag; unknown keys a bare 404; group versions handler3\'s caching', async () => {
  const index = await raw('GET', '/openapi/v3');
  expect(index.status).toBe(200);
  expect(index.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(index.headers['cache-control']).toBe('no-cache, private');
  expect(index.headers.etag).toBeUndefined();
  expect(index.headers['last-modified']).toMatch(/GMT$/);
  const paths = JSON.parse(index.body.toString()).paths as Record<string, { serverRelativeURL: string }>;
  const keys = Object.keys(paths);
  expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

  for (const path of ['/openapi/v3/apis/nope.example.com/v1', '/openapi/v3/apis/apps/v1/', '/openapi/v3/api/apps/v1', '/openapi/v3/']) {
    const r = await raw('GET', path);
    expect([path, r.status, r.headers['content-type'], r.headers['content-length'], r.body.length, r.headers['cache-control']])
      .toEqual([path, 404, undefined, '0', 0, 'no-cache, private']);
  }

  const url = paths['apis/apps/v1'].serverRelativeURL;
  const hash = url.slice(url.indexOf('hash=') + 5);
  const plain = await raw('GET', '/openapi/v3/apis/apps/v1');
  expect([plain.status, plain.headers['content-type'], plain.headers.etag, plain.headers['cache-control'], plain.headers.vary, plain.headers['accept-ranges']])
    .toEqual([200, 'application/json', `"${hash}"`, 'no-cache, private', 'Accept', 'bytes']);
  const pinned = await raw('GET', url);
  expect(pinned.headers['cache-control']).toBe('public, immutable');
  expect(pinned.headers.expires).toMatch(/ UTC$/);
  expect(pinned.body.equals(plain.body)).toBe(true);
  // A stale hash: http.Redirect after handler3 chose a Content-Type writes no body.
  const stale = await raw('GET', '/openapi/v3/apis/apps/v1?hash=0123');
  expect([stale.status, stale.headers.location, stale.headers['content-type'], stale.body.length]).toEqual([301, url, 'application/json', 0]);
  expect((await raw('GET', url, { 'if-none-match': `"${hash}"` })).status).toBe(304);
  expect((await raw('GET', url, { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' })).status).toBe(406);
  const head = await raw('HEAD', '/openapi/v3/api/v1');
  expect([head.status, head.body.length, head.headers['content-type']]).toEqual([200, 0, 'application/json']);
});

test('health endpoints answer any method at their exact paths, and their metrics carry kube\'s verb and dry_run labels', async () => {
  const ok = await raw('GET', '/healthz');
  expect([ok.status, ok.body.toString(), ok.headers['content-type'], ok.headers['x-content-type-options'], ok.headers['cache-control'], ok.headers['content-length']])
    .toEqual([200, 'ok', 'text/plain; charset=utf-8', 'nosniff', 'no-cache, private', '2']);
  const head = await raw('HEAD', '/livez');
  expect([head.status, head.body.length, head.headers['content-length']]).toEqual([200, 0, '2']);
  expect((await raw('POST', '/readyz')).status).toBe(200);
  expect((await raw('GET', '/healthz/')).status).toBe(404);
  // One check's page: `ok` through Go's sniffer, so no nosniff header.
  const one = await raw('GET', '/readyz/ping');
  expect([one.status, one.body.toString(), one.headers['content-type'], one.headers['x-content-type-options']]).toEqual([200, 'ok', 'text/plain; charset=utf-8', undefined]);

  await raw('GET', '/healthz?watch=true');
  await raw('GET', '/healthz?watch=false');
  await raw('HEAD', '/healthz?watch=1');
  await raw('GET', '/livez?dryRun=All');
  await raw('GET', '/livez?dryRun=bogus');
  await raw('OPTIONS', '/livez');
  const text = (await t.call('GET', '/metrics')).text;
  const total = (subresource: string, verb: string, dryRun = '') =>
    value(text, 'apiserver_request_total', { verb, dry_run: dryRun, group: '', version: '', resource: '', subresource, scope: '', component: '', code: '200' });
  expect(total('/healthz', 'WATCH')).toBe(1);
  // GET /healthz, ?watch=false, and the HEAD (getVerbIfWatch looks at GET only).
  expect(total('/healthz', 'GET')).toBe(3);
  expect(total('/livez', 'GET', 'All')).toBe(1);
  expect(total('/livez', 'GET', 'invalid')).toBe(1);
  expect(total('/livez', 'GET')).toBe(1);
  expect(total('/livez', 'other')).toBe(1);
  expect(total('/readyz', 'POST')).toBe(1);
});

/** The length-delimited fields of a protobuf message by number (enough to walk gnostic's Document). */
function fields(buf: Buffer): Map<number, Buffer[]> {
  const r = protobuf.Reader.create(buf);
  const out = new Map<number, Buffer[]>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) !== 2) {
      r.skipType(tag & 7);
      continue;
    }
    const b = Buffer.from(r.bytes());
    const list = out.get(tag >>> 3) ?? [];
    list.push(b);
    out.set(tag >>> 3, list);
  }
  return out;
}
