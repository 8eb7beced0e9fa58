/**
 * List of 10k ConfigMaps: through the API server (from the watch cache, and from the store
 * with the cache turned off for that resource) versus what a non-caching server does with the
 * store (range + JSON decode of every item + JSON encode of the list), on both backends.
 *
 * Modes: Any (`?resourceVersion=0`), Most Recent (resourceVersion unset) and a whole paged
 * traversal (`?limit=500`, then every continue token). The HTTP client receives each body as
 * bytes and does not parse it in the timed loop (one untimed validation pass per mode parses
 * it and checks the items). One request in flight; client and server share this process.
 *
 * Env knobs: BENCH_LIST_N (objects, default 10000), BENCH_LIST_ITER (timed lists per mode,
 * default 10, after 2 warm-up lists), BENCH_LIST_PAGE (page size, default 500), BENCH_BACKENDS.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Storage } from '@windlass/storage';
import { APIServer, serializationStats } from '@windlass/server';
import { backendsFromEnv, expectStatus, fmt, names, parallel, quantile, request, storedConfigMap, withBackend } from './common.js';

const N = Number(process.env.BENCH_LIST_N ?? 10_000);
const ITER = Number(process.env.BENCH_LIST_ITER ?? 10);
const WARM = 2;
const PAGE = Number(process.env.BENCH_LIST_PAGE ?? 500);
const PREFIX = '/registry/configmaps/default/';
const PATH = '/api/v1/namespaces/default/configmaps';

interface Timing {
  p50: number;
  mean: number;
  min: number;
  /** Objects the server serialized per list (serializationStats.objects delta ÷ lists). */
  serializedPerList: number;
  /** Response bytes per list (whole traversal for paged). */
  bytes: number;
  requests: number;
}

/** Times `fn` ITER times after WARM warm-up calls; fn returns (bytes, requests). */
async function time(fn: () => Promise<{ bytes: number; requests: number }>): Promise<Timing> {
  for (let i = 0; i < WARM; i++) await fn();
  const ms: number[] = [];
  let last = { bytes: 0, requests: 0 };
  const before = serializationStats.objects;
  for (let i = 0; i < ITER; i++) {
    const t = performance.now();
    last = await fn();
    ms.push(performance.now() - t);
  }
  const serializedPerList = (serializationStats.objects - before) / ITER;
  ms.sort((a, b) => a - b);
  return { p50: quantile(ms, 0.5), mean: ms.reduce((a, b) => a + b, 0) / ms.length, min: ms[0], serializedPerList, ...last };
}

// ---- what a server without a watch cache does: range, decode every item, encode the list ----

function decodeItems(items: { value: Buffer; modRevision: number }[]): unknown[] {
  return items.map((kv) => {
    const o = JSON.parse(kv.value.toString('utf8')) as Record<string, unknown> & { metadata: Record<string, unknown> };
    o.metadata.resourceVersion = String(kv.modRevision);
    delete o.kind;
    delete o.apiVersion;
    return o;
  });
}

function encodeList(items: unknown[], resourceVersion: number, cont?: string): Buffer {
  const metadata: Record<string, unknown> = { resourceVersion: String(resourceVersion) };
  if (cont) metadata.continue = cont;
  return Buffer.from(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata, items }));
}

async function rawFull(storage: Storage): Promise<{ bytes: number; requests: number }> {
  const res = await storage.range(PREFIX, { prefix: true });
  if (res.items.length !== N) throw new Error(`raw range: ${res.items.length} items`);
  return { bytes: encodeList(decodeItems(res.items), res.revision).length, requests: 1 };
}

async function rawRangeOnly(storage: Storage): Promise<{ bytes: number; requests: number }> {
  const res = await storage.range(PREFIX, { prefix: true });
  if (res.items.length !== N) throw new Error(`raw range: ${res.items.length} items`);
  return { bytes: res.items.reduce((a, kv) => a + kv.value.length, 0), requests: 1 };
}

async function rawPaged(storage: Storage): Promise<{ bytes: number; requests: number }> {
  let revision: number | undefined;
  let startKey: string | undefined;
  let bytes = 0, requests = 0, seen = 0;
  for (;;) {
    const res = await storage.range(PREFIX, { prefix: true, limit: PAGE, startKey, revision });
    revision = res.revision;
    requests++;
    seen += res.items.length;
    const last = res.items[res.items.length - 1]?.key;
    bytes += encodeList(decodeItems(res.items), res.revision, res.more ? `token-after-${last}` : undefined).length;
    if (!res.more) break;
    startKey = last + '\u0000';
  }
  if (seen !== N) throw new Error(`raw paged: ${seen} items`);
  return { bytes, requests };
}

// ---- through the API server ----

/** The continue token from a list body; the list metadata comes first, so only its head is searched. */
function continueOf(body: Buffer): string | undefined {
  const head = body.subarray(0, 2048).toString('utf8');
  return /"metadata":\{[^}]*"continue":"([^"]+)"/.exec(head)?.[1];
}

function httpList(agent: http.Agent, port: number, query: string): () => Promise<{ bytes: number; requests: number }> {
  return async () => {
    const r = await request(agent, port, 'GET', `${PATH}${query}`);
    expectStatus(`LIST ${query}`, r, 200);
    return { bytes: r.body.length, requests: 1 };
  };
}

function httpPaged(agent: http.Agent, port: number): () => Promise<{ bytes: number; requests: number }> {
  return async () => {
    let bytes = 0, requests = 0;
    let cont: string | undefined;
    do {
      const q = cont ? `?limit=${PAGE}&continue=${encodeURIComponent(cont)}` : `?limit=${PAGE}`;
      const r = await request(agent, port, 'GET', `${PATH}${q}`);
      expectStatus(`LIST ${q}`, r, 200);
      bytes += r.body.length;
      requests++;
      cont = continueOf(r.body);
    } while (cont);
    return { bytes, requests };
  };
}

/** Untimed: parse every response of a mode and check it holds exactly the N objects, in key order, at one revision. */
async function validate(agent: http.Agent, port: number, query: string | 'paged'): Promise<void> {
  const all: string[] = [];
  const rvs = new Set<string>();
  let cont: string | undefined;
  let pages = 0;
  do {
    const q = query === 'paged' ? (cont ? `?limit=${PAGE}&continue=${encodeURIComponent(cont)}` : `?limit=${PAGE}`) : query;
    const r = await request(agent, port, 'GET', `${PATH}${q}`);
    expectStatus(`LIST ${q}`, r, 200);
    const list = JSON.parse(r.body.toString('utf8')) as { kind: string; metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number }; items: { metadata: { name: string } }[] };
    if (list.kind !== 'ConfigMapList') throw new Error(`LIST ${q}: kind ${list.kind}`);
    rvs.add(list.metadata.resourceVersion);
    for (const it of list.items) all.push(it.metadata.name);
    cont = query === 'paged' ? list.metadata.continue : undefined;
    if (cont && list.metadata.remainingItemCount !== N - all.length) throw new Error(`LIST ${q}: remainingItemCount ${list.metadata.remainingItemCount}, expected ${N - all.length}`);
    pages++;
  } while (cont);
  const expected = names('cm', N);
  if (all.length !== N || all.some((n, i) => n !== expected[i])) throw new Error(`LIST ${query}: ${all.length} items, not the ${N} expected in key order`);
  if (rvs.size !== 1) throw new Error(`LIST ${query}: pages at several resourceVersions ${[...rvs].join(',')}`);
  if (query === 'paged' && pages !== Math.ceil(N / PAGE)) throw new Error(`paged: ${pages} pages`);
}

interface ServerRun {
  any: Timing;
  mostRecent: Timing;
  paged: Timing;
}

async function serverModes(agent: http.Agent, port: number): Promise<ServerRun> {
  for (const q of ['?resourceVersion=0', '', 'paged']) await validate(agent, port, q);
  return {
    any: await time(httpList(agent, port, '?resourceVersion=0')),
    mostRecent: await time(httpList(agent, port, '')),
    paged: await time(httpPaged(agent, port)),
  };
}

interface BackendResult {
  backend: string;
  facts: string;
  seedSeconds: number;
  cacheStartMs: number;
  coldAnyMs: number;
  coldSerialized: number;
  mostRecentFrom: string;
  raw: { rangeOnly: Timing; full: Timing; paged: Timing };
  cached: ServerRun;
  uncached: ServerRun;
}

async function benchBackend(backend: string): Promise<BackendResult> {
  return withBackend(backend, async (storage, facts) => {
    const t0 = performance.now();
    const ns = names('cm', N);
    await parallel(N, 64, (i) => storage.create(PREFIX + ns[i], storedConfigMap(ns[i])).then(() => undefined));
    const seedSeconds = (performance.now() - t0) / 1000;

    // The server with its watch cache; listen() waits until every Cacher holds its initial list.
    const t1 = performance.now();
    const cached = new APIServer({ storage, registryPrefix: '/registry' });
    const cachedPort = await cached.listen(0, '127.0.0.1');
    const cacheStartMs = performance.now() - t1;
    // A second replica on the same store with the ConfigMap cache turned off: every read goes to the store.
    const uncached = new APIServer({ storage, registryPrefix: '/registry' });
    const cmStore = uncached.storeFor('', 'v1', 'configmaps')!;
    cmStore.cacher?.stop();
    cmStore.cacher = undefined;
    const uncachedPort = await uncached.listen(0, '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // The first list from the cache serializes each object once; later lists reuse the bytes.
      const s0 = serializationStats.objects;
      const tc = performance.now();
      await httpList(agent, cachedPort, '?resourceVersion=0')();
      const coldAnyMs = performance.now() - tc;
      const coldSerialized = serializationStats.objects - s0;

      const raw = { rangeOnly: await time(() => rawRangeOnly(storage)), full: await time(() => rawFull(storage)), paged: await time(() => rawPaged(storage)) };
      const c = await serverModes(agent, cachedPort);
      const u = await serverModes(agent, uncachedPort);
      const mostRecentFrom = storage.supportsProgressRequests === false ? 'store (no reliable progress requests)' : 'watch cache';
      return { backend, facts, seedSeconds, cacheStartMs, coldAnyMs, coldSerialized, mostRecentFrom, raw, cached: c, uncached: u };
    } finally {
      agent.destroy();
      await uncached.close();
      await cached.close();
    }
  });
}

export async function runList10k(): Promise<string> {
  const results: BackendResult[] = [];
  for (const b of backendsFromEnv()) {
    process.stderr.write(`bench list10k: ${b} …\n`);
    results.push(await benchBackend(b));
  }
  const t = (x: Timing) => `${fmt(x.p50, 1)} / ${fmt(x.mean, 1)}`;
  const lines: string[] = [
    `Workload: ${fmt(N)} ConfigMaps (~${fmt(results[0]?.raw.rangeOnly.bytes / N || 0)} stored bytes each) in namespace default; ${ITER} timed lists per mode after ${WARM} warm-up lists; one request in flight; page size ${PAGE}.`,
    '',
    '**Times per list in ms, p50 / mean** (paged = the whole traversal of every page). "raw" = `storage.range` + `JSON.parse` of every value + `JSON.stringify` of the list, in-process, no HTTP — what a server without a watch cache does. "server, cache" = HTTP GET to `APIServer` (served from its watch cache where the semantics allow). "server, no cache" = the same HTTP GET to a second `APIServer` on the same store whose ConfigMap Store has no Cacher (every read goes to the store).',
    '',
    '| backend | mode | raw range only | raw range+decode+encode | server, no cache | server, cache | raw ÷ cache (p50) | no-cache ÷ cache (p50) | objects serialized per list (cache / no cache) | served from (cache server) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    const rows: [string, Timing | undefined, Timing, Timing, Timing, string][] = [
      ['Any (`resourceVersion=0`)', r.raw.rangeOnly, r.raw.full, r.uncached.any, r.cached.any, 'watch cache'],
      ['Most Recent (unset)', r.raw.rangeOnly, r.raw.full, r.uncached.mostRecent, r.cached.mostRecent, r.mostRecentFrom],
      [`paged by ${PAGE} (${r.cached.paged.requests} requests)`, undefined, r.raw.paged, r.uncached.paged, r.cached.paged, r.mostRecentFrom === 'watch cache' ? 'watch cache (first page and continuations)' : 'first page: store; continuations: cache snapshot'],
    ];
    for (const [mode, rangeOnly, raw, unc, cac, from] of rows) {
      lines.push(
        `| ${r.backend} | ${mode} | ${rangeOnly ? t(rangeOnly) : '–'} | ${t(raw)} | ${t(unc)} | ${t(cac)} | **${fmt(raw.p50 / cac.p50, 2)}×** | ${fmt(unc.p50 / cac.p50, 2)}× | ${fmt(cac.serializedPerList)} / ${fmt(unc.serializedPerList)} | ${from} |`,
      );
    }
  }
  lines.push('');
  for (const r of results) {
    lines.push(
      `- ${r.backend} (${r.facts}): seeding ${fmt(N)} objects into storage ${fmt(r.seedSeconds, 1)} s; APIServer.listen() incl. the Cachers' initial lists ${fmt(r.cacheStartMs)} ms; ` +
        `first Any list from the cold cache ${fmt(r.coldAnyMs, 1)} ms (serialized ${fmt(r.coldSerialized)} objects once; later lists reuse the bytes); ` +
        `response size ${fmt(r.cached.any.bytes / 1e6, 2)} MB (Any), ${fmt(r.cached.paged.bytes / 1e6, 2)} MB (all pages).`,
    );
  }
  return lines.join('\n');
}
