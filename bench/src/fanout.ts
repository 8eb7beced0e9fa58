/**
 * Watch fan-out: N concurrent HTTP watches (`?watch=1&resourceVersion=<rv>`) on the ConfigMaps
 * of one namespace, then W updates (PUT through the API) at a steady rate. Every watcher
 * records when each event arrives; delivery latency = arrival − the start of the write that
 * caused it (the write's own latency, start → 200 OK, is shown separately). Completeness:
 * every watcher must see exactly the store's history of the window — each write once, in
 * revision order, nothing else. The watch cache's serialization counters
 * (`serializationStats`, read in this process, where the server runs) show how many times
 * each event was serialized.
 *
 * Client and server share this process, its one event loop and the machine's 2 cores (with
 * etcd in the etcd case): the latencies include the client's own work of reading N streams.
 *
 * Env knobs: BENCH_FANOUT_RUNS (comma list of watchers@writes-per-second, default
 * "100@50,1000@50,1000@20"), BENCH_FANOUT_WRITES (W, default 200), BENCH_FANOUT_OBJECTS (objects
 * the writes go round-robin over, default 10), BENCH_BACKENDS.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { APIServer, serializationStats } from '@windlass/server';
import { backendsFromEnv, configMap, expectStatus, fmt, parallel, quantile, request, withBackend } from './common.js';

const RUNS = (process.env.BENCH_FANOUT_RUNS ?? '100@50,1000@50,1000@20').split(',').map((r) => {
  const [n, rate] = r.split('@').map(Number);
  if (!(n > 0) || !(rate > 0)) throw new Error(`BENCH_FANOUT_RUNS: bad entry ${r} (watchers@rate)`);
  return { n, rate };
});
const W = Number(process.env.BENCH_FANOUT_WRITES ?? 200);
const OBJECTS = Number(process.env.BENCH_FANOUT_OBJECTS ?? 10);
const PATH = '/api/v1/namespaces/default/configmaps';
const DRAIN_TIMEOUT_MS = 60_000;

const objName = (i: number): string => `fan-${String(i % OBJECTS).padStart(3, '0')}`;
const seqOf = (i: number): string => String(i).padStart(6, '0');

const SEQ = '"seq":"';
const RV = '"resourceVersion":"';

/** One client watch: the events it got, as (seq, resourceVersion, arrival time), plus anything unexpected. */
class Watcher {
  seqs: number[] = [];
  rvs: number[] = [];
  times: number[] = [];
  other: string[] = [];
  ended = false;
  private partial = '';
  req?: http.ClientRequest;

  constructor(private agent: http.Agent, private port: number) {}

  /** Resolves once the server answered 200 (it registers the watch before sending the headers). */
  open(rv: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get({ agent: this.agent, host: '127.0.0.1', port: this.port, path: `${PATH}?watch=1&resourceVersion=${rv}`, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.onData(chunk, performance.now()));
        res.on('end', () => (this.ended = true));
        res.on('error', () => (this.ended = true));
        resolve();
      });
      req.on('error', (err) => (this.req ? (this.ended = true) : reject(err)));
      this.req = req;
    });
  }

  /** Cheap line parsing (the object's fields are found by position, not JSON.parse): N watchers parse in this same process. */
  private onData(chunk: string, now: number): void {
    const data = this.partial + chunk;
    let start = 0;
    for (let nl = data.indexOf('\n', start); nl >= 0; nl = data.indexOf('\n', start)) {
      const line = data.slice(start, nl);
      start = nl + 1;
      const s = line.indexOf(SEQ);
      const r = line.indexOf(RV);
      if (!line.startsWith('{"type":"MODIFIED"') || s < 0 || r < 0) {
        this.other.push(line.slice(0, 200));
        continue;
      }
      this.seqs.push(Number(line.slice(s + SEQ.length, s + SEQ.length + 6)));
      this.rvs.push(Number(line.slice(r + RV.length, line.indexOf('"', r + RV.length))));
      this.times.push(now);
    }
    this.partial = data.slice(start);
  }

  close(): void {
    this.req?.destroy();
  }
}

interface FanoutResult {
  backend: string;
  watchers: number;
  rate: number;
  openMs: number;
  writeSeconds: number;
  achievedRate: number;
  writeP50: number;
  writeP99: number;
  latP50: number;
  latP99: number;
  latMax: number;
  lastDeliveredAfterLastAckMs: number;
  complete: number;
  problems: string[];
  eventsSerialized: number;
  objectsSerialized: number;
  cpuSeconds: number;
  wallSeconds: number;
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

async function runOnce(server: APIServer, port: number, backend: string, n: number, rate: number): Promise<FanoutResult> {
  const cacher = server.storeFor('', 'v1', 'configmaps')!.cacher!;
  const writer = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const watchAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const watchers = Array.from({ length: n }, () => new Watcher(watchAgent, port));
  try {
    // Start every watch at the current (consistent) revision: no initial events, only what follows.
    const list = await request(writer, port, 'GET', PATH);
    expectStatus('LIST', list, 200);
    const startRv = (JSON.parse(list.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const t0 = performance.now();
    await parallel(n, 100, (i) => watchers[i].open(startRv));
    const openMs = performance.now() - t0;
    if (!(await waitFor(() => cacher.watcherCount >= n, 5000))) throw new Error(`only ${cacher.watcherCount} of ${n} watchers registered`);

    const before = { ...serializationStats };
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const starts = new Float64Array(W), acks = new Float64Array(W), ackRvs = new Array<number>(W);
    const interval = 1000 / rate;
    const writes: Promise<void>[] = [];
    // Open loop: write i starts at wall0 + i·interval, whether or not earlier writes were acknowledged.
    for (let i = 0; i < W; i++) {
      const due = wall0 + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      starts[i] = performance.now();
      writes.push(
        request(writer, port, 'PUT', `${PATH}/${objName(i)}`, configMap(objName(i), { seq: seqOf(i) })).then((r) => {
          acks[i] = performance.now();
          expectStatus(`PUT ${objName(i)}`, r, 200);
          ackRvs[i] = Number((JSON.parse(r.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
        }),
      );
    }
    await Promise.all(writes);
    const lastAck = Math.max(...acks);
    const writeSeconds = (starts[W - 1] - starts[0]) / 1000;
    await waitFor(() => watchers.every((w) => w.seqs.length >= W || w.ended), DRAIN_TIMEOUT_MS);
    // A little longer, so duplicates or stray events would show.
    await new Promise((r) => setTimeout(r, 200));
    const wallSeconds = (performance.now() - wall0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const eventsSerialized = serializationStats.events - before.events;
    const objectsSerialized = serializationStats.objects - before.objects;

    // The store's history for this window: every write's revision, in order.
    const history = [...ackRvs].sort((a, b) => a - b);
    const problems: string[] = [];
    const lat: number[] = [];
    let complete = 0;
    let lastDelivery = 0;
    for (const [wi, w] of watchers.entries()) {
      let ok = w.other.length === 0 && w.rvs.length === history.length && !w.ended;
      for (let k = 0; ok && k < history.length; k++) if (w.rvs[k] !== history[k] || ackRvs[w.seqs[k]] !== w.rvs[k]) ok = false;
      if (ok) complete++;
      else if (problems.length < 5) {
        problems.push(`watcher ${wi}: ${w.rvs.length} events (expected ${history.length}), ${w.other.length} unexpected lines${w.ended ? ', stream ended' : ''}${w.other[0] ? `, e.g. ${w.other[0].slice(0, 120)}` : ''}`);
      }
      for (let k = 0; k < w.seqs.length; k++) {
        lat.push(w.times[k] - starts[w.seqs[k]]);
        if (w.times[k] > lastDelivery) lastDelivery = w.times[k];
      }
    }
    lat.sort((a, b) => a - b);
    const wl = Array.from(acks, (a, i) => a - starts[i]).sort((a, b) => a - b);
    return {
      backend, watchers: n, rate, openMs, writeSeconds, achievedRate: (W - 1) / writeSeconds,
      writeP50: quantile(wl, 0.5), writeP99: quantile(wl, 0.99),
      latP50: quantile(lat, 0.5), latP99: quantile(lat, 0.99), latMax: lat[lat.length - 1] ?? NaN,
      lastDeliveredAfterLastAckMs: lastDelivery - lastAck,
      complete, problems, eventsSerialized, objectsSerialized,
      cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds,
    };
  } finally {
    for (const w of watchers) w.close();
    watchAgent.destroy();
    writer.destroy();
    await waitFor(() => cacher.watcherCount === 0, 5000);
  }
}

async function benchBackend(backend: string): Promise<FanoutResult[]> {
  return withBackend(backend, async (storage) => {
    const server = new APIServer({ storage, registryPrefix: '/registry' });
    const port = await server.listen(0, '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      for (let i = 0; i < OBJECTS; i++) expectStatus('POST', await request(agent, port, 'POST', PATH, configMap(objName(i))), 201);
      const out: FanoutResult[] = [];
      for (const { n, rate } of RUNS) {
        process.stderr.write(`bench fanout: ${backend}, ${n} watchers, ${rate} writes/s …\n`);
        out.push(await runOnce(server, port, backend, n, rate));
      }
      return out;
    } finally {
      agent.destroy();
      await server.close();
    }
  });
}

export async function runFanout(): Promise<string> {
  const results: FanoutResult[] = [];
  for (const b of backendsFromEnv()) results.push(...(await benchBackend(b)));
  const lines = [
    `Workload: N watchers on \`GET ${PATH}?watch=1&resourceVersion=<current>\` (each its own HTTP/1.1 connection), then ${W} PUTs (round-robin over ${OBJECTS} ConfigMaps, each carrying a sequence number) started at a steady rate (open loop: write i starts at i ÷ rate, whether or not earlier ones were acknowledged). One APIServer per backend serves all runs.`,
    '',
    '| backend | watchers | write rate target / achieved /s | write latency p50 / p99 ms | delivery latency p50 / p99 / max ms | last event delivered after last ack ms | complete watchers | event serializations (per write) | object serializations (per write) | process CPU s / wall s | opening N watches ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.backend} | ${fmt(r.watchers)} | ${fmt(r.rate)} / ${fmt(r.achievedRate, 1)} | ${fmt(r.writeP50, 1)} / ${fmt(r.writeP99, 1)} | ${fmt(r.latP50, 1)} / ${fmt(r.latP99, 1)} / ${fmt(r.latMax, 1)} | ${fmt(r.lastDeliveredAfterLastAckMs, 1)} | ${fmt(r.complete)} / ${fmt(r.watchers)} | ` +
        `${fmt(r.eventsSerialized)} (${fmt(r.eventsSerialized / W, 2)}) | ${fmt(r.objectsSerialized)} (${fmt(r.objectsSerialized / W, 2)}) | ${fmt(r.cpuSeconds, 1)} / ${fmt(r.wallSeconds, 1)} | ${fmt(r.openMs)} |`,
    ),
  ];
  const problems = results.flatMap((r) => r.problems.map((p) => `- ${r.backend}, ${r.watchers} watchers @ ${r.rate}/s: ${p}`));
  if (problems.length) lines.push('', 'Incomplete watchers (first few):', ...problems);
  lines.push(
    '',
    `Delivery latency: from the start of the PUT (client side) to the arrival of its MODIFIED event at each watcher, over all ${W} × N deliveries. ` +
      'Complete = got exactly the store\'s history of the window: each write\'s revision once, in revision order, no other event, stream still open. ' +
      'Serializations: `serializationStats` deltas over the window (events = watch-event lines encoded, objects = object JSON encoded), read in the server\'s process.',
  );
  return lines.join('\n');
}
