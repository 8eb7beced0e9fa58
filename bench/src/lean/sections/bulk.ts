/**
 * Rows that need many objects, each on its own server and fresh store:
 *  - list: BENCH_LIST_N ConfigMaps created through the API, then LISTs consistent (no
 *    resourceVersion), resourceVersion=0 and paged by BENCH_LIST_PAGE, one at a time: time per list.
 *  - memory: the server's RSS (process and workers) before and after it holds each of
 *    BENCH_MEM_COUNTS objects (created through the API, then idle BENCH_MEM_SETTLE s), per
 *    object, next to the JSON size of one object as the server returns it. Each reading is
 *    taken once the server has been idle long enough for V8 to give back what the burst of
 *    creates used (settledRss); the reading right after the burst is reported beside it.
 */
import { config, want } from '../config.js';
import { load, log, withServer, type Row, type RunCtx } from '../harness.js';
import { agentFor, expectStatus, send, sleep, type Target } from '../http.js';
import type { ListResult, ListSpec } from '../listgen.js';
import { runChild } from '../ipc.js';
import { CM_PATH, configMapTemplate, objectName } from '../objects.js';
import type { Meters } from '../proc.js';

const SEED_CLIENTS = 64;

/** Creates `count` ConfigMaps named objectName(prefix, i) through the API; creates/s. */
async function seed(target: Target, meters: Meters, prefix: string, count: number): Promise<number> {
  if (count <= 0) return 0;
  const w = await load(
    { target, mode: 'create', clients: SEED_CLIENTS, path: CM_PATH, template: configMapTemplate(config.objectBytes), namePrefix: prefix, expect: 201, windowName: 'seed', durationMs: 0, warmupMs: 0, count },
    meters,
  );
  if (w.result.ops !== count) throw new Error(`seeding: ${w.result.ops} of ${count} creates succeeded (${w.result.firstError})`);
  return w.result.ops / w.result.seconds;
}

async function listRows(ctx: RunCtx, backend: string): Promise<void> {
  const n = config.listObjects;
  log(`windlass ${backend}: LIST of ${n}`);
  await withServer({ root: config.serverRoot, label: 'windlass', backend }, async ({ server, meters }) => {
    const rate = await seed(server.target, meters, 'l-', n);
    const spec: ListSpec = { target: server.target, path: CM_PATH, modes: ['consistent', 'rv0', 'paged', 'rv0-protobuf'], iterations: config.listIterations, warm: 2, page: config.listPage, expectItems: n };
    for (const w of await runChild<ListResult>('listgen.js', spec, meters)) {
      const r = w.result;
      ctx.rows.push({
        section: 'list', backend, server: 'windlass', op: `list ${n} ${w.name === 'paged' ? `paged by ${config.listPage}` : w.name === 'rv0-protobuf' ? 'rv=0 in protobuf' : w.name}`, clients: 1, client: 'node',
        ops: r.lists, seconds: w.wallMs / 1000, opsPerSec: r.lists / (w.wallMs / 1000), p50: r.latency.p50, p99: r.latency.p99,
        cpuPerOp: w.cpuMs.server / r.lists, etcdCpuPerOp: w.cpuMs.etcd === undefined ? undefined : w.cpuMs.etcd / r.lists, clientCpuPerOp: w.cpuMs.client / r.lists,
        errors: 0, extra: { mode: w.name, meanMs: r.latency.mean, bytesPerList: r.bytes, requestsPerList: r.requests, seedCreatesPerSec: rate },
      });
    }
  });
}

/**
 * RSS once the server has been idle: the lowest reading over BENCH_MEM_SETTLE seconds. A burst
 * of writes grows V8's young generation to its maximum and leaves old-space pages committed;
 * V8's memory reducer gives them back ~30 s after allocation stops (measured: 228 → 178 MB at
 * 30k ConfigMaps, 32 s after the last create), so a shorter wait measures the burst, not what
 * holding the objects costs. The reading 3 s after the burst is kept beside it.
 */
async function settledRss(rss: () => number): Promise<{ soon: number; settled: number }> {
  await sleep(Math.min(3000, config.memorySettleMs));
  const soon = rss();
  let settled = soon;
  const until = Date.now() + config.memorySettleMs - 3000;
  while (Date.now() < until) {
    await sleep(1000);
    settled = Math.min(settled, rss());
  }
  return { soon, settled };
}

/** The Node runtime's own figures from the server's /metrics (prom-client's nodejs_* gauges), in bytes. */
async function runtimeMemory(agent: ReturnType<typeof agentFor>, target: Target): Promise<Record<string, number>> {
  const r = await send(agent, target, 'GET', '/metrics', undefined, 'application/json', 'text/plain');
  expectStatus('GET /metrics', r, 200);
  const text = r.body.toString('utf8');
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { heapUsed: gauge('nodejs_heap_size_used_bytes'), heapTotal: gauge('nodejs_heap_size_total_bytes'), external: gauge('nodejs_external_memory_bytes') };
}

const mbText = (m: Record<string, number>) => Object.entries(m).map(([k, v]) => `${k} ${(v / 1048576).toFixed(1)} MB`).join(', ');

async function memoryRows(ctx: RunCtx, backend: string): Promise<void> {
  const counts = [...config.memoryCounts].sort((a, b) => a - b);
  log(`windlass ${backend}: memory at ${counts.join(', ')} objects (each reading after ${config.memorySettleMs / 1000} s idle)`);
  await withServer({ root: config.serverRoot, label: 'windlass', backend }, async ({ server, meters }) => {
    const agent = agentFor(server.target, 1);
    // A few requests first, so lazily built state (handlers, TLS, JIT) is in the "before" reading.
    await seed(server.target, meters, 'mw-', 20);
    const before = await settledRss(() => server.rss());
    log(`  before: RSS ${(before.settled / 1048576).toFixed(1)} MB; ${mbText(await runtimeMemory(agent, server.target))}`);
    let have = 0;
    let prev = { count: 0, rss: before.settled };
    for (const count of counts) {
      const rate = await seed(server.target, meters, `m${count}-`, count - have);
      have = count;
      const got = await send(agent, server.target, 'GET', `${CM_PATH}/${objectName(`m${count}-`, 0)}`);
      expectStatus('GET', got, 200);
      const after = await settledRss(() => server.rss());
      const runtime = await runtimeMemory(agent, server.target);
      log(`  ${count} objects: RSS ${(after.settled / 1048576).toFixed(1)} MB (${(after.soon / 1048576).toFixed(1)} MB 3 s after the creates); ${mbText(runtime)}`);
      const row: Row = {
        section: 'memory', backend, server: 'windlass', op: `${count} objects cached`, clients: SEED_CLIENTS, client: 'node',
        ops: count, seconds: 0, opsPerSec: NaN, p50: NaN, p99: NaN, cpuPerOp: NaN, errors: 0,
        extra: {
          rssBefore: before.settled, rssAfter: after.settled, rssSoonAfter: after.soon,
          bytesPerObject: (after.settled - before.settled) / count, bytesPerObjectSoon: (after.soon - before.settled) / count,
          marginalBytesPerObject: (after.settled - prev.rss) / (count - prev.count), jsonBytes: got.body.length, seedCreatesPerSec: rate, runtime,
        },
      };
      ctx.rows.push(row);
      prev = { count, rss: after.settled };
    }
    agent.destroy();
  });
}

export async function runBulkSections(ctx: RunCtx, backend: string): Promise<void> {
  if (want('list')) await listRows(ctx, backend);
  if (want('memory')) await memoryRows(ctx, backend);
}
