/**
 * The soak: docker-compose.yml's topology as processes (scripts/ha-topology.mjs: 3 etcd
 * members, 3 replicas, the /readyz-checked balancer), writers and watchers through the
 * balancer at 80% of the peak write rate measured first in the same run, for 10 minutes,
 * with every replica's RSS read from /proc and its live memory (V8 heap used + external,
 * from its /metrics) every few seconds. Reports each replica's least-squares RSS slope (MB
 * per minute) and the slope of its live memory's per-minute floor; a growth trend in the
 * latter fails the run (RSS alone swings by tens of MB as V8 grows and shrinks its heap).
 *
 *   node bench/dist/soak/main.js [--minutes 10] [--writers 12] [--watchers 30] [--sample-seconds 5]
 *     [--warmup-minutes 2] [--json FILE] [-- windlass start flags…]
 *
 * RSS rises until what the server keeps for a while is full: the watch cache's history
 * (--watch-cache-history-window, 5 min by default) and etcd's revisions until Windlass
 * compacts them (--etcd-compaction-interval, 5 min). The slope that tells a leak is the one
 * after that (--warmup-minutes); with the defaults a 10-minute soak leaves 5 minutes of it,
 * so a soak can shorten both windows with flags after `--`.
 *
 * The whole topology rather than one replica on one etcd: it is what runs in production,
 * and a replica there also holds what a lone one does not (the balancer's connections
 * coming and going, watchers spread over replicas, writes from the other replicas arriving
 * only through its etcd watch). Keys are a bounded set (writers create, update and delete
 * their own 12 each), so the stored data does not grow: a steady state exists, and growth
 * of RSS is the server's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep, startTopology } from '../../../scripts/ha-topology.mjs';
import { KubeHttp } from '../../../test/dist/kubehttp.js';
import { ErrorLog } from '../../../test/dist/faults/errors.js';
import { ResumingWatcher } from '../../../test/dist/faults/watcher.js';
import { Writer, prng } from '../../../test/dist/faults/writer.js';
import { slope, type Slope } from './slope.js';

function parse(argv: string[]) {
  const o = { minutes: 10, writers: 12, watchers: 30, sampleSeconds: 5, peakSeconds: 30, warmupMinutes: 2, json: '', extra: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--') {
      o.extra = argv.slice(i + 1);
      break;
    } else if (a === '--minutes') o.minutes = v();
    else if (a === '--writers') o.writers = v();
    else if (a === '--watchers') o.watchers = v();
    else if (a === '--sample-seconds') o.sampleSeconds = v();
    else if (a === '--peak-seconds') o.peakSeconds = v();
    else if (a === '--warmup-minutes') o.warmupMinutes = v();
    else if (a === '--json') o.json = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/**
 * What a replica's JavaScript keeps alive, in MB: V8's used heap plus its external memory (the
 * Buffers the watch cache holds encoded objects in), from the replica's own /metrics
 * (nodejs_heap_size_used_bytes, nodejs_external_memory_bytes). Undefined when the scrape fails.
 */
async function liveMb(client: KubeHttp): Promise<number | undefined> {
  try {
    const r = await client.request('GET', '/metrics');
    if (r.status !== 200) return undefined;
    const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(r.text)?.[1] ?? NaN);
    const bytes = value('nodejs_heap_size_used_bytes') + value('nodejs_external_memory_bytes');
    return Number.isFinite(bytes) ? bytes / 2 ** 20 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lower envelope of live memory: the least value in each minute. Used heap rises with
 * garbage between collections and falls at each; its per-minute floor is what survived them,
 * so a leak shows there without the sawtooth that hides it in RSS.
 */
function perMinuteFloor(points: Array<{ x: number; y: number }>): Array<{ x: number; y: number }> {
  const bins = new Map<number, { x: number; y: number }>();
  for (const p of points) {
    const m = Math.floor(p.x);
    const cur = bins.get(m);
    if (!cur || p.y < cur.y) bins.set(m, { x: m + 0.5, y: p.y });
  }
  return [...bins.values()].sort((a, b) => a.x - b.x);
}

/** Resident set size of a process in MB (VmRSS), undefined once it is gone. */
function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const NAMESPACES = ['soak-a', 'soak-b', 'soak-c'];
const o = parse(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), 'windlass-soak-'));
const topo = await startTopology({ dir, port: 0, replicas: 3, etcdMembers: 3, extra: o.extra });
const errors = new ErrorLog();
const token = readFileSync(topo.creds.adminToken, 'utf8').trim();
const lb = new KubeHttp(topo.lbUrl, topo.ca, token, { requestTimeoutMs: 30000 });
const watchers: ResumingWatcher[] = [];
let exitCode = 0;
try {
  for (const ns of NAMESPACES) {
    const r = await lb.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status} ${r.text}`);
  }
  const listed = await lb.request('GET', '/api/v1/configmaps');
  for (let i = 0; i < o.watchers; i++) {
    const filter = i % 3 === 0 ? {} : i % 3 === 1 ? { namespace: NAMESPACES[i % NAMESPACES.length] } : { labelSelector: 'color=red' };
    const w = new ResumingWatcher(`watcher-${i}`, filter, lb, errors, false);
    watchers.push(w);
    w.start({ kind: 'rv', rv: listed.body.metadata.resourceVersion });
  }
  const makeWriters = (phase: string) => Array.from({ length: o.writers }, (_, i) => {
    const id = `${phase}${i}`;
    const keys = Array.from({ length: 12 }, (_, k) => `${NAMESPACES[k % NAMESPACES.length]}/${id}-${k}`);
    return new Writer(id, lb, errors, prng(i + 1), keys, false);
  });
  const acked = (ws: Writer[]) => ws.reduce((n, w) => n + w.ackedCount, 0);

  // Peak: the writers as fast as they go (closed loop), after a few seconds of warm-up.
  const peakWriters = makeWriters('p');
  for (const w of peakWriters) w.start(1e9);
  await sleep(5000);
  const a0 = acked(peakWriters);
  const t0 = Date.now();
  await sleep(o.peakSeconds * 1000);
  const peak = (acked(peakWriters) - a0) / ((Date.now() - t0) / 1000);
  await Promise.all(peakWriters.map((w) => w.stop()));
  const target = peak * 0.8;
  console.log(`peak: ${peak.toFixed(1)} writes/s with ${o.writers} writers and ${o.watchers} watchers; soaking at ${target.toFixed(1)} writes/s for ${o.minutes} min`);

  const writers = makeWriters('s');
  for (const w of writers) w.start(target / o.writers);
  const start = Date.now();
  const samples: Array<{ minute: number; rss: Record<string, number>; live: Record<string, number>; writes: number }> = [];
  const who = [...topo.backends.map((b) => ({ name: b.name, pid: b.proc.pid! })), ...topo.etcd.map((m) => ({ name: m.name, pid: m.proc.pid! }))];
  const direct = topo.backends.map((b) => ({ name: b.name, client: new KubeHttp(b.url, topo.ca, token, { requestTimeoutMs: 5000 }) }));
  while (Date.now() - start < o.minutes * 60000) {
    const rss: Record<string, number> = {};
    for (const p of who) {
      const mb = rssMb(p.pid);
      if (mb !== undefined) rss[p.name] = Math.round(mb * 10) / 10;
    }
    const live: Record<string, number> = {};
    for (const { name, client } of direct) {
      const mb = await liveMb(client);
      if (mb !== undefined) live[name] = Math.round(mb * 10) / 10;
    }
    samples.push({ minute: (Date.now() - start) / 60000, rss, live, writes: acked(writers) });
    const last = samples[samples.length - 1];
    if (samples.length % Math.round(60 / o.sampleSeconds) === 1) console.log(`  ${last.minute.toFixed(1)} min: ${Object.entries(rss).map(([k, v]) => `${k} ${v} MB`).join(', ')}; ${last.writes} writes`);
    await sleep(o.sampleSeconds * 1000);
  }
  await Promise.all(writers.map((w) => w.stop()));
  const achieved = acked(writers) / ((Date.now() - start) / 1000);

  const fits: Record<string, { all: Slope; afterWarmup: Slope; first: number; last: number }> = {};
  for (const p of who) {
    const pts = samples.filter((s) => s.rss[p.name] !== undefined).map((s) => ({ x: s.minute, y: s.rss[p.name] }));
    fits[p.name] = { all: slope(pts), afterWarmup: slope(pts.filter((q) => q.x >= o.warmupMinutes)), first: pts[0]?.y, last: pts[pts.length - 1]?.y };
  }
  for (const { client } of direct) client.destroy();
  const liveFits: Record<string, { afterWarmup: Slope; floors: Array<{ x: number; y: number }> }> = {};
  for (const b of topo.backends) {
    const floors = perMinuteFloor(samples.filter((s) => s.live[b.name] !== undefined).map((s) => ({ x: s.minute, y: s.live[b.name] })));
    liveFits[b.name] = { afterWarmup: slope(floors.filter((q) => q.x >= o.warmupMinutes)), floors };
  }
  // The verdict is live memory's: RSS also holds what V8 and the allocator keep after a burst.
  const replicaTrend = topo.backends.some((b) => liveFits[b.name].afterWarmup.trend);
  const rssTrend = topo.backends.some((b) => fits[b.name].afterWarmup.trend);
  const report = {
    date: new Date().toISOString(), serverFlags: o.extra, warmupMinutes: o.warmupMinutes, minutes: o.minutes, writers: o.writers, watchers: o.watchers, sampleSeconds: o.sampleSeconds,
    peakWritesPerSecond: Math.round(peak * 10) / 10, targetWritesPerSecond: Math.round(target * 10) / 10, achievedWritesPerSecond: Math.round(achieved * 10) / 10,
    watchEventsDelivered: watchers.reduce((n, w) => n + w.eventCount, 0), clientErrors: errors.byKind(), fits, liveFits, replicaGrowthTrend: replicaTrend, replicaRssTrend: rssTrend, samples,
  };
  console.log(`achieved ${report.achievedWritesPerSecond} writes/s (target ${report.targetWritesPerSecond}); ${report.watchEventsDelivered} watch events delivered; client errors: ${JSON.stringify(report.clientErrors)}`);
  for (const [name, f] of Object.entries(fits)) {
    console.log(`  ${name}: ${f.first} → ${f.last} MB; slope ${f.all.mbPerMinute.toFixed(3)} MB/min over the run, ${f.afterWarmup.mbPerMinute.toFixed(3)} ± ${(1.96 * f.afterWarmup.stdErr).toFixed(3)} MB/min after ${o.warmupMinutes} min (${f.afterWarmup.trend ? 'GROWTH TREND' : 'no growth trend'})`);
  }
  for (const [name, f] of Object.entries(liveFits)) {
    const a = f.afterWarmup;
    console.log(`  ${name} live (heap used + external, per-minute floor): ${f.floors.map((p) => p.y).join(' ')} MB; slope ${a.mbPerMinute.toFixed(3)} ± ${(1.96 * a.stdErr).toFixed(3)} MB/min after ${o.warmupMinutes} min (${a.trend ? 'GROWTH TREND' : 'no growth trend'})`);
  }
  console.log(`${replicaTrend ? 'a replica\'s live memory shows a growth trend' : 'no replica\'s live memory shows a growth trend'}; RSS: ${rssTrend ? 'a replica shows a growth trend' : 'no replica shows a growth trend'}`);
  if (o.json) writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
  if (errors.nonRetryable.length) {
    console.log(`non-retryable errors seen by clients: ${errors.nonRetryable.slice(0, 10).join('; ')}`);
    exitCode = 1;
  }
  if (replicaTrend) exitCode = 1;
} finally {
  for (const w of watchers) w.stop();
  lb.destroy();
  await topo.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
