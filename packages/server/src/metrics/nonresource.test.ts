/**
 * The non-resource requests kube-apiserver 1.35 counts, counted the same way: aggregated
 * discovery ("api"/"apis", component apiserver, 304s to a matching ETag included) and OpenAPI
 * v3 ("openapi/v3", "openapi/v3/", empty component, whatever the code); legacy discovery and
 * /openapi/v2 not at all. A real server over HTTP on the embedded backend.
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from '../testing/client.js';
import { samples, value } from '../testing/scrape.js';
import { aggregatedDiscoveryMediaType } from '../aggregateddiscovery.js';
import { instrumentedNonResource, nonResourceVerb } from './nonresource.js';

const aggregated = { accept: `${aggregatedDiscoveryMediaType},application/json` };
const requestLabels = ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'];

/** Labels of a non-resource series: every resource label empty. */
const nonResource = (subresource: string, component: string, verb = 'GET') => ({ verb, group: '', version: '', resource: '', subresource, scope: '', component });

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
});
afterEach(() => t.close());

/** A request whose redirects are answered, not followed. */
async function raw(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(t.base + path, { headers, redirect: 'manual' });
  await res.arrayBuffer();
  return res;
}

test('aggregated discovery is counted as kube\'s resource managers count it, 304s included; legacy discovery and /openapi/v2 are not', async () => {
  const apis = await raw('/apis', aggregated);
  expect(apis.status).toBe(200);
  expect(apis.headers.get('content-type')).toBe(aggregatedDiscoveryMediaType);
  expect(apis.headers.get('cache-control')).toBe('public');
  expect(apis.headers.get('vary')).toBe('Accept');
  const etag = apis.headers.get('etag')!;
  expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
  const apisBytes = Number(apis.headers.get('content-length'));
  // client-go's cached discovery: the same document answers 304 with no body.
  const again = await raw('/apis', { ...aggregated, 'if-none-match': etag });
  expect(again.status).toBe(304);
  expect(again.headers.get('etag')).toBe(etag);
  expect(await (await fetch(t.base + '/apis', { headers: { ...aggregated, 'if-none-match': '"stale"' } })).text()).toContain('APIGroupDiscoveryList');
  const api = await raw('/api', aggregated);
  expect(api.status).toBe(200);
  expect(api.headers.get('etag')).not.toBe(etag);
  // ?watch makes kube's cleanVerb report WATCH even here.
  expect((await raw('/apis?watch=true', aggregated)).status).toBe(200);
  // Legacy discovery is go-restful routes kube does not instrument; /openapi/v2 is kube-openapi's.
  for (const path of ['/api', '/apis', '/api/v1', '/apis/apps', '/apis/apps/v1', '/openapi/v2', '/version']) {
    expect((await t.call('GET', path)).status).toBe(200);
  }

  const text = (await t.call('GET', '/metrics')).text;
  const total = (labels: Record<string, string>, code: string) => value(text, 'apiserver_request_total', { ...labels, dry_run: '', code });
  const apisLabels = nonResource('apis', 'apiserver');
  expect(total(apisLabels, '200')).toBe(2);
  expect(total(apisLabels, '304')).toBe(1);
  expect(total(nonResource('api', 'apiserver'), '200')).toBe(1);
  expect(total(nonResource('apis', 'apiserver', 'WATCH'), '200')).toBe(1);
  // Nothing else without a resource: no legacy discovery, no /openapi/v2, no /version.
  const all = samples(text, 'apiserver_request_total');
  expect(all.every((s) => Object.keys(s.labels).sort().join() === requestLabels.join())).toBe(true);
  const others = all.filter((s) => s.labels.resource === '');
  expect(others.map((s) => `${s.labels.verb} ${s.labels.subresource} ${s.labels.code}`).sort()).toEqual(['GET api 200', 'GET apis 200', 'GET apis 304', 'WATCH apis 200']);
  expect(value(text, 'apiserver_request_duration_seconds_count', { ...apisLabels, dry_run: '' })).toBe(3);
  expect(value(text, 'apiserver_request_sli_duration_seconds_count', apisLabels)).toBe(3);
  // Sizes of what was written: two whole documents and an empty 304.
  expect(value(text, 'apiserver_response_sizes_count', apisLabels)).toBe(3);
  expect(value(text, 'apiserver_response_sizes_sum', apisLabels)).toBe(2 * apisBytes);
  expect(value(text, 'apiserver_response_sizes_bucket', { ...apisLabels, le: '1000' })).toBe(1);
  // kube observes sizes by the route's verb (GET), so the WATCH-reported request has them too.
  expect(value(text, 'apiserver_response_sizes_count', nonResource('apis', 'apiserver', 'WATCH'))).toBe(1);
});

test('OpenAPI v3 is counted under kube-aggregator\'s two routes with an empty component, every code; its documents answer 304 to their ETag', async () => {
  expect((await raw('/openapi/v3')).status).toBe(200);
  const index = (await t.call('GET', '/openapi/v3')).body as { paths: Record<string, { serverRelativeURL: string }> };
  const url = index.paths['apis/apps/v1'].serverRelativeURL;
  const hash = url.split('?hash=')[1];
  const doc = await raw('/openapi/v3/apis/apps/v1');
  expect(doc.status).toBe(200);
  expect(doc.headers.get('etag')).toBe(`"${hash}"`);
  expect(doc.headers.get('vary')).toBe('Accept');
  expect(doc.headers.get('cache-control')).toBe('no-cache, private');
  const docBytes = Number(doc.headers.get('content-length'));
  expect(docBytes).toBeGreaterThan(1000);
  const notModified = await raw('/openapi/v3/apis/apps/v1', { 'if-none-match': `W/"other", "${hash}"` });
  expect(notModified.status).toBe(304);
  // kubectl asks by the index's URL: immutable, or moved when the hash is not the document's.
  const pinned = await raw(url);
  expect(pinned.status).toBe(200);
  expect(pinned.headers.get('cache-control')).toBe('public, immutable');
  const moved = await raw('/openapi/v3/apis/apps/v1?hash=0BAD');
  expect(moved.status).toBe(301);
  expect(moved.headers.get('location')).toBe(url);
  expect((await raw('/openapi/v3/apis/nosuch.example.com/v1')).status).toBe(404);
  expect((await raw('/openapi/v3?dryRun=All')).status).toBe(200);

  const text = (await t.call('GET', '/metrics')).text;
  const total = (labels: Record<string, string>, code: string, dryRun = '') => value(text, 'apiserver_request_total', { ...labels, dry_run: dryRun, code });
  const index3 = nonResource('openapi/v3', '');
  const groupVersion = nonResource('openapi/v3/', '');
  expect(total(index3, '200')).toBe(2);
  expect(total(index3, '200', 'All')).toBe(1);
  expect(total(groupVersion, '200')).toBe(2);
  expect(total(groupVersion, '304')).toBe(1);
  expect(total(groupVersion, '301')).toBe(1);
  expect(total(groupVersion, '404')).toBe(1);
  const others = samples(text, 'apiserver_request_total').filter((s) => s.labels.resource === '');
  expect(others.reduce((n, s) => n + s.value, 0)).toBe(8);
  expect(others.every((s) => s.labels.component === '')).toBe(true);
  expect(value(text, 'apiserver_request_duration_seconds_count', { ...groupVersion, dry_run: '' })).toBe(5);
  expect(value(text, 'apiserver_request_duration_seconds_count', { ...index3, dry_run: 'All' })).toBe(1);
  // kube leaves dry runs out of the SLI: the index's SLI has only its two plain requests.
  expect(value(text, 'apiserver_request_sli_duration_seconds_count', index3)).toBe(2);
  expect(samples(text, 'apiserver_request_sli_duration_seconds_count').filter((s) => s.labels.subresource === 'openapi/v3')).toHaveLength(1);
  expect(samples(text, 'apiserver_response_sizes_count').filter((s) => s.labels.subresource === 'openapi/v3')).toHaveLength(1);
  // Two documents in full (the plain and the pinned request); 304, 301 and 404 wrote their own small bodies.
  const sizes = value(text, 'apiserver_response_sizes_sum', groupVersion)!;
  expect(sizes).toBeGreaterThanOrEqual(2 * docBytes);
  expect(sizes).toBeLessThan(2 * docBytes + 1000);
});

test('which requests kube instruments and the verb it reports for them', () => {
  const agg = aggregated.accept;
  expect(instrumentedNonResource('GET', '/apis', agg)).toEqual({ subresource: 'apis', component: 'apiserver' });
  expect(instrumentedNonResource('GET', '/api/', agg)).toEqual({ subresource: 'api', component: 'apiserver' });
  expect(instrumentedNonResource('POST', '/apis', agg)).toEqual({ subresource: 'apis', component: 'apiserver' });
  // The /api web service has a GET route only; /apis/ is the aggregator's unwrapped legacy handler.
  expect(instrumentedNonResource('POST', '/api', agg)).toBeUndefined();
  expect(instrumentedNonResource('GET', '/apis/', agg)).toBeUndefined();
  expect(instrumentedNonResource('GET', '/apis', 'application/json')).toBeUndefined();
  expect(instrumentedNonResource('GET', '/apis/apps/v1', agg)).toBeUndefined();
  expect(instrumentedNonResource('GET', '/openapi/v3/', undefined)).toEqual({ subresource: 'openapi/v3/', component: '' });
  expect(instrumentedNonResource('GET', '/openapi/v2', undefined)).toBeUndefined();
  const q = (s: string) => new URLSearchParams(s);
  expect(nonResourceVerb('HEAD', q(''), undefined)).toBe('GET');
  // getVerbIfWatch looks at the request's own method.
  expect(nonResourceVerb('HEAD', q('watch=1'), undefined)).toBe('GET');
  expect(nonResourceVerb('GET', q('watch=1'), undefined)).toBe('WATCH');
  expect(nonResourceVerb('GET', q('watch=false'), undefined)).toBe('GET');
  expect(nonResourceVerb('PATCH', q(''), 'application/apply-patch+yaml')).toBe('APPLY');
  expect(nonResourceVerb('OPTIONS', q(''), undefined)).toBe('other');
});
