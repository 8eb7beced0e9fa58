/**
 * Operating the server: kube's metrics after a known request mix, bounded label cardinality,
 * the body and JSON-patch limits (413), the in-flight limits (429 with Retry-After), the
 * request timeout (504), health endpoints and graceful shutdown with an open watch.
 * Real servers over HTTP; storage-level figures on both backends.
 */
import http from 'node:http';
import net from 'node:net';
import { describeBackends } from '@windlass/storage/testing';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';
import type { APIServerOptions } from './apiserver.js';

const cms = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

/** Samples of one metric name from the text format: labels and value. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line)!;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

function value(text: string, name: string, want: Record<string, string>): number | undefined {
  return samples(text, name).find((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))?.value;
}

const requestLabels = ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'];

async function metrics(t: TestServer): Promise<string> {
  const r = await t.call('GET', '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return r.text;
}

describeBackends('metrics', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix.slice(0, -1) });
  });
  afterEach(() => t.close());

  it('counts a known request mix as kube-apiserver does', async () => {
    expect((await t.call('POST', cms, { body: cm('a') })).status).toBe(201);
    expect((await t.call('POST', cms, { body: cm('b') })).status).toBe(201);
    expect((await t.call('POST', `${cms}?dryRun=All`, { body: cm('c') })).status).toBe(201);
    expect((await t.call('POST', `${cms}?dryRun=Nope`, { body: cm('d') })).status).toBe(422);
    expect((await t.call('GET', `${cms}/a`)).status).toBe(200);
    expect((await t.call('GET', `${cms}/a`)).status).toBe(200);
    expect((await t.call('GET', `${cms}/missing`)).status).toBe(404);
    expect((await t.call('GET', cms)).status).toBe(200);
    expect((await t.call('GET', '/api/v1/configmaps')).status).toBe(200);
    expect((await t.call('PATCH', `${cms}/a`, { body: { data: { k: 'w' } }, contentType: 'application/merge-patch+json' })).status).toBe(200);
    expect((await t.call('DELETE', `${cms}/b`)).status).toBe(200);
    expect((await t.call('GET', '/api/v1/namespaces/default')).status).toBe(200);
    // An unknown resource is not counted: kube has no instrumented route for it.
    expect((await t.call('GET', '/api/v1/namespaces/default/nosuchthings/x')).status).toBe(404);
    // A subresource is labelled as such (kube's route for it); one the kind lacks is not a label value.
    expect((await t.call('GET', '/api/v1/namespaces/default/status')).status).toBe(200);
    expect((await t.call('GET', `${cms}/a/nosuchsub`)).status).toBe(404);

    const text = await metrics(t);
    const total = (labels: Record<string, string>) => value(text, 'apiserver_request_total', { component: 'apiserver', group: '', version: 'v1', subresource: '', ...labels });
    expect(total({ verb: 'POST', resource: 'configmaps', scope: 'resource', dry_run: '', code: '201' })).toBe(2);
    expect(total({ verb: 'POST', resource: 'configmaps', scope: 'resource', dry_run: 'All', code: '201' })).toBe(1);
    expect(total({ verb: 'POST', resource: 'configmaps', scope: 'resource', dry_run: 'invalid', code: '422' })).toBe(1);
    expect(total({ verb: 'GET', resource: 'configmaps', scope: 'resource', dry_run: '', code: '200' })).toBe(2);
    expect(total({ verb: 'GET', resource: 'configmaps', scope: 'resource', dry_run: '', code: '404' })).toBe(1);
    expect(total({ verb: 'LIST', resource: 'configmaps', scope: 'namespace', dry_run: '', code: '200' })).toBe(1);
    expect(total({ verb: 'LIST', resource: 'configmaps', scope: 'cluster', dry_run: '', code: '200' })).toBe(1);
    expect(total({ verb: 'PATCH', resource: 'configmaps', scope: 'resource', dry_run: '', code: '200' })).toBe(1);
    expect(total({ verb: 'DELETE', resource: 'configmaps', scope: 'resource', dry_run: '', code: '200' })).toBe(1);
    expect(total({ verb: 'GET', resource: 'namespaces', scope: 'resource', dry_run: '', code: '200' })).toBe(1);
    const all = samples(text, 'apiserver_request_total');
    expect(all.every((s) => Object.keys(s.labels).sort().join() === requestLabels.join())).toBe(true);
    expect(all.some((s) => s.labels.resource === 'nosuchthings')).toBe(false);
    expect(total({ verb: 'GET', resource: 'namespaces', subresource: 'status', scope: 'resource', dry_run: '', code: '200' })).toBe(1);
    expect(all.some((s) => s.labels.subresource === 'nosuchsub')).toBe(false);
    expect(all.reduce((n, s) => n + s.value, 0)).toBe(13);

    // Histograms: kube's buckets, cumulative, +Inf equal to _count.
    const get = { verb: 'GET', resource: 'configmaps', scope: 'resource', dry_run: '', group: '', version: 'v1', subresource: '', component: 'apiserver' };
    const buckets = samples(text, 'apiserver_request_duration_seconds_bucket').filter((s) => Object.entries(get).every(([k, v]) => s.labels[k] === v));
    expect(buckets.map((b) => b.labels.le)).toEqual(['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    expect(buckets.at(-1)!.value).toBe(3);
    expect(value(text, 'apiserver_request_duration_seconds_count', get)).toBe(3);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
    const { dry_run: _d, ...sliLabels } = get;
    expect(value(text, 'apiserver_request_sli_duration_seconds_count', sliLabels)).toBe(3);
    expect(samples(text, 'apiserver_request_sli_duration_seconds_bucket').filter((s) => s.labels.verb === 'GET' && s.labels.resource === 'configmaps').map((s) => s.labels.le)[0]).toBe('0.05');
    // Response sizes for reads only, kube's 1000×10^n buckets as client_golang writes them.
    const sizes = samples(text, 'apiserver_response_sizes_bucket').filter((s) => s.labels.verb === 'GET' && s.labels.resource === 'configmaps');
    expect(sizes.map((s) => s.labels.le)).toEqual(['1000', '10000', '100000', '1e+06', '1e+07', '1e+08', '1e+09', '+Inf']);
    expect(samples(text, 'apiserver_response_sizes_count').some((s) => s.labels.verb === 'POST')).toBe(false);

    // Storage: the writes reached the store as creates (dry run did not), counted per resource.
    expect(value(text, 'etcd_request_duration_seconds_count', { operation: 'create', group: '', resource: 'configmaps' })).toBe(2);
    expect(value(text, 'etcd_requests_total', { operation: 'delete', group: '', resource: 'configmaps' })).toBe(1);
    expect(value(text, 'apiserver_storage_objects', { resource: 'configmaps' })).toBe(1);
    expect(value(text, 'apiserver_resource_objects', { group: '', resource: 'configmaps' })).toBe(1);
    expect(value(text, 'apiserver_storage_objects', { resource: 'namespaces' })).toBe(4);
    expect(value(text, 'apiserver_init_events_total', { group: '', resource: 'namespaces' })).toBeGreaterThanOrEqual(0);
    expect(value(text, 'apiserver_watch_cache_events_received_total', { group: '', resource: 'configmaps' })).toBeGreaterThanOrEqual(3);
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })).toBeDefined();
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBeDefined();
    // prom-client's process and Node runtime metrics.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('counts watches as long-running requests and their events', async () => {
    await t.call('POST', cms, { body: cm('w') });
    // The server's own controllers may watch the cache too (as kube-controller-manager's informers do).
    const ownWatchers = value(await metrics(t), 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'ConfigMap' }) ?? 0;
    const ctrl = new AbortController();
    const res = await fetch(`${t.base}${cms}?watch=1`, { signal: ctrl.signal });
    const reader = res.body!.getReader();
    let got = '';
    while (!got.includes('"ADDED"')) got += new TextDecoder().decode((await reader.read()).value);
    let text = await metrics(t);
    const watch = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    expect(value(text, 'apiserver_longrunning_requests', watch)).toBe(1);
    expect(value(text, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'ConfigMap' })).toBe(ownWatchers + 1);
    expect(value(text, 'apiserver_watch_events_total', { group: '', version: 'v1', kind: 'ConfigMap' })).toBe(1);
    expect(value(text, 'apiserver_watch_events_sizes_count', { group: '', version: 'v1', kind: 'ConfigMap' })).toBe(1);
    ctrl.abort();
    await reader.cancel().catch(() => undefined);
    for (let i = 0; i < 100 && value(text, 'apiserver_longrunning_requests', watch) !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await metrics(t);
    }
    expect(value(text, 'apiserver_longrunning_requests', watch)).toBe(0);
    expect(value(text, 'apiserver_request_total', { ...watch, dry_run: '', code: '200' })).toBe(1);
  });
});

describe('metrics cardinality', () => {
  it('stays bounded after requests on 10k distinct object names', async () => {
    const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
    try {
      const hit = async (names: string[]) => {
        for (let i = 0; i < names.length; i += 100) {
          await Promise.all(names.slice(i, i + 100).map(async (n, j) => {
            const r = j % 10 === 0 ? await t.call('POST', cms, { body: cm(n) }) : await t.call('GET', `/api/v1/namespaces/ns-${n}/configmaps/${n}`);
            expect([201, 404]).toContain(r.status);
          }));
        }
      };
      await hit(Array.from({ length: 100 }, (_, i) => `warm-${i}`));
      const before = (await metrics(t)).split('\n').filter((l) => !l.startsWith('#') && !/^(process|nodejs)_/.test(l)).length;
      await hit(Array.from({ length: 10_000 }, (_, i) => `object-${i}`));
      const text = await metrics(t);
      const after = text.split('\n').filter((l) => !l.startsWith('#') && !/^(process|nodejs)_/.test(l)).length;
      expect(after).toBe(before);
      expect(text).not.toMatch(/object-\d|ns-object/);
    } finally {
      await t.close();
    }
  }, 120_000);
});

describe('limits', () => {
  let t: TestServer | undefined;
  const start = async (o: Partial<APIServerOptions> = {}) => (t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }), ...o }));
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers 413 to a body over 3 MiB and to a JSON patch of more than 10000 operations', async () => {
    const s = await start();
    const big = await s.call('POST', cms, { body: { ...cm('big'), data: { k: 'x'.repeat(3 * 1024 * 1024) } } });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    await s.call('POST', cms, { body: cm('p') });
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/k', value: 'v' }));
    const patch = await s.call('PATCH', `${cms}/p`, { body: ops, contentType: 'application/json-patch+json' });
    expect(patch.status).toBe(413);
    expect(patch.body.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    expect((await s.call('PATCH', `${cms}/p`, { body: ops.slice(0, 10_000), contentType: 'application/json-patch+json' })).status).toBe(200);
  });

  it('answers 429 with Retry-After over the in-flight limits; watches are not counted', async () => {
    const s = await start({ operations: { maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, cacher: { freshnessTimeoutMs: 2000 } });
    await s.call('POST', cms, { body: cm('x') });
    // Watches hold no slot.
    const ctrl = new AbortController();
    const watches = await Promise.all([1, 2, 3].map(() => fetch(`${s.base}${cms}?watch=1`, { signal: ctrl.signal })));
    expect(watches.map((w) => w.status)).toEqual([200, 200, 200]);
    expect((await s.call('GET', `${cms}/x`)).status).toBe(200);
    // Reads that wait for a future revision hold their slots for ~2 s.
    const slow = [1, 2].map(() => s.call('GET', `${cms}/x?resourceVersion=99999999`));
    await new Promise((r) => setTimeout(r, 200));
    const flood = await Promise.all(Array.from({ length: 5 }, () => s.call('GET', `${cms}/x`)));
    for (const r of flood) {
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.text).toBe('Too many requests, please try again later.\n');
    }
    // The mutating limit is separate: one write still goes through beside the full read slots.
    expect((await s.call('PATCH', `${cms}/x`, { body: { data: { k: '2' } }, contentType: 'application/merge-patch+json' })).status).toBe(200);
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([504, 504]);
    expect((await s.call('GET', `${cms}/x`)).status).toBe(200);
    const text = await metrics(s);
    expect(value(text, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', code: '429' })).toBe(5);
    expect(value(text, 'apiserver_request_terminations_total', { verb: 'GET', resource: 'configmaps', code: '429' })).toBe(5);
    ctrl.abort();
  });

  it('answers 504 with kube\'s Timeout Status after --request-timeout', async () => {
    const s = await start({ operations: { requestTimeoutMs: 500 }, cacher: { freshnessTimeoutMs: 5000 } });
    await s.call('POST', cms, { body: cm('x') });
    const began = Date.now();
    const r = await s.call('GET', `${cms}/x?resourceVersion=99999999`);
    const took = Date.now() - began;
    expect(r.status).toBe(504);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', reason: 'Timeout', details: {}, code: 504,
    });
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(3000);
    // Watches are long-running: not cut by the timeout.
    const ctrl = new AbortController();
    const w = await fetch(`${s.base}${cms}?watch=1`, { signal: ctrl.signal });
    await new Promise((res) => setTimeout(res, 800));
    expect(w.status).toBe(200);
    const text = await metrics(s);
    expect(value(text, 'apiserver_request_terminations_total', { verb: 'GET', resource: 'configmaps', code: '504' })).toBe(1);
    ctrl.abort();
  });

  it('leaves the connect subresources to run past --request-timeout, as kube\'s long-running check does', async () => {
    // A kubelet that accepts and never answers: the pod's log stays pending.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const s = await start({ operations: { requestTimeoutMs: 300 } });
    try {
      const port = (silent.address() as net.AddressInfo).port;
      expect((await s.call('POST', '/api/v1/nodes', { body: { metadata: { name: 'n' } } })).status).toBe(201);
      const status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } };
      expect((await s.call('PATCH', '/api/v1/nodes/n/status', { body: { status }, contentType: 'application/merge-patch+json' })).status).toBe(200);
      expect((await s.call('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p' }, spec: { nodeName: 'n', containers: [{ name: 'c', image: 'busybox' }] } } })).status).toBe(201);
      const ctrl = new AbortController();
      const log = fetch(`${s.base}/api/v1/namespaces/default/pods/p/log?follow=true`, { signal: ctrl.signal }).then((r) => r.status, () => 'aborted');
      const after = await Promise.race([log, new Promise((r) => setTimeout(() => r('pending'), 900))]);
      expect(after).toBe('pending');
      const text = await metrics(s);
      expect(value(text, 'apiserver_longrunning_requests', { verb: 'GET', resource: 'pods', subresource: 'log' })).toBe(1);
      expect(value(text, 'apiserver_request_terminations_total', { verb: 'GET', resource: 'pods', code: '504' }) ?? 0).toBe(0);
      ctrl.abort();
      expect(await log).toBe('aborted');
    } finally {
      silent.close();
    }
  });

  it('takes a request\'s own shorter ?timeout=, and refuses a malformed one as kube does', async () => {
    const s = await start({ operations: { requestTimeoutMs: 60_000 }, cacher: { freshnessTimeoutMs: 5000 } });
    await s.call('POST', cms, { body: cm('x') });
    const began = Date.now();
    const r = await s.call('GET', `${cms}/x?resourceVersion=99999999&timeout=300ms`);
    expect(r.status).toBe(504);
    expect(r.body.reason).toBe('Timeout');
    expect(Date.now() - began).toBeLessThan(3000);
    // A longer one than the server's is clamped to it; 0 means the server's.
    expect((await s.call('GET', `${cms}/x?timeout=5m`)).status).toBe(200);
    expect((await s.call('GET', `${cms}/x?timeout=0s`)).status).toBe(200);
    const bad = await s.call('GET', `${cms}/x?timeout=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid timeout specified in the request URL - time: invalid duration "soon"');
  });
});

describe('health and graceful shutdown', () => {
  it('serves kube\'s named checks, fails readyz first on shutdown, and ends open watches cleanly', async () => {
    const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
    let closed = false;
    try {
      const ready = await t.call('GET', '/readyz?verbose');
      expect(ready.status).toBe(200);
      expect(ready.text).toBe([
        '[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok',
        '[+]poststarthook/start-system-namespaces-controller ok', '[+]shutdown ok', 'readyz check passed', '',
      ].join('\n'));
      expect((await t.call('GET', '/readyz')).text).toBe('ok');
      expect((await t.call('GET', '/livez?verbose')).text).toBe('[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-system-namespaces-controller ok\nlivez check passed\n');
      expect((await t.call('GET', '/healthz?verbose&exclude=etcd&exclude=nope')).text).toBe(
        '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]poststarthook/start-system-namespaces-controller ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n');
      expect((await t.call('GET', '/readyz/etcd')).text).toBe('ok');
      expect((await t.call('GET', '/readyz/nope')).status).toBe(404);

      await t.call('POST', cms, { body: cm('x') });
      // An open watch: it must see its stream end, not a reset.
      const res = await fetch(`${t.base}${cms}?watch=1`);
      const reader = res.body!.getReader();
      const stream = (async () => {
        let text = '';
        for (;;) {
          const { value: chunk, done } = await reader.read();
          if (done) return text;
          text += new TextDecoder().decode(chunk);
        }
      })();

      const shutdown = t.server.shutdown(400);
      const notReady = await t.call('GET', '/readyz');
      expect(notReady.status).toBe(500);
      expect(notReady.text).toContain('[-]shutdown failed: reason withheld\n');
      expect(notReady.text.endsWith('readyz check failed\n')).toBe(true);
      expect((await t.call('GET', '/livez')).status).toBe(200);
      // During the delay requests are still served, including a slow one that outlives it.
      const slow = t.call('GET', `${cms}/x?resourceVersion=99999999`);
      expect((await t.call('GET', `${cms}/x`)).status).toBe(200);
      const text = await stream; // rejects on a reset connection
      expect(text).toContain('"ADDED"');
      expect((await slow).status).toBe(504);
      await shutdown;
      closed = true;
      await expect(fetch(`${t.base}/readyz`)).rejects.toThrow();
    } finally {
      if (!closed) await t.close();
    }
  }, 20_000);

  it('closes each connection after its answer once draining, so a client re-watching or writing on it goes elsewhere; a request still arriving there is refused', async () => {
    const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
    const { port } = new URL(t.base);
    // One keep-alive connection per agent, as client-go's transport reuses an HTTP/1.1 connection.
    const watcher = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const writer = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (agent: http.Agent, path: string) => new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      http.get(`${t.base}${path}`, { agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
        res.on('error', reject);
      }).on('error', reject);
    });
    let closed = false;
    try {
      await t.call('POST', cms, { body: cm('x') });
      // A watch that, as a reflector does, watches again on the same client the moment it ends.
      const rewatch = new Promise<{ status?: number; headers?: http.IncomingHttpHeaders; error?: string }>((resolve) => {
        http.get(`${t.base}${cms}?watch=1`, { agent: watcher }, (res) => {
          res.resume();
          res.on('end', () => get(watcher, `${cms}?watch=1&resourceVersion=1`).then(resolve, (err) => resolve({ error: String(err) })));
        });
      });
      // An answer under way when draining starts (waits 3 s for a revision the cache lacks).
      const slow = get(writer, `${cms}/x?resourceVersion=99999999`);
      // A connection with a request half sent: it is not idle, so draining leaves it open.
      const raw = net.connect(Number(port), '127.0.0.1');
      await new Promise((r) => raw.once('connect', r));
      raw.write(`GET ${cms}/x HTTP/1.1\r\nHost: x\r\n`);
      let rawText = '';
      raw.on('data', (d) => (rawText += d));
      const rawEnded = new Promise((r) => raw.once('close', r));
      await new Promise((r) => setTimeout(r, 200));

      const began = Date.now();
      const shutdown = t.server.shutdown(0);
      raw.write('\r\n');
      // The re-watch did not get a stream that nothing ends: its connection was closed after
      // the first watch (so it connected anew and was refused), or it was answered 429.
      const again = await rewatch;
      if (again.error === undefined) {
        expect(again.status).toBe(429);
        expect(again.headers!['retry-after']).toBe('5');
      } else expect(again.error).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up/);
      // The answer that was under way says the connection closes after it.
      const s = await slow;
      expect(s.status).toBe(504);
      expect(s.headers.connection).toBe('close');
      // The request that arrived while draining: kube's WithWaitGroup answer.
      await rawEnded;
      expect(rawText).toMatch(/^HTTP\/1\.1 503 /);
      expect(rawText).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(rawText).toMatch(/\r\nConnection: close\r\n/i);
      expect(rawText).toContain('"message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503');
      await shutdown;
      closed = true;
      // Done once the slow answer was, not after a request timeout.
      expect(Date.now() - began).toBeLessThan(10_000);
    } finally {
      watcher.destroy();
      writer.destroy();
      if (!closed) await t.close();
    }
  }, 30_000);
});
