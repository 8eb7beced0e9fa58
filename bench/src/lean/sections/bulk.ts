/**
 * Rows that need many objects, each on its own server and fresh store:
 *  - list: BENCH_LIST_N ConfigMaps created through the API, then LISTs consistent (no
 *    resourceVersion), resourceVersion=0 and paged by BENCH_LIST_PAGE, one at a time: time per list.
 *  - memory: the server's RSS (process and workers) before and after it holds each of
 *    BENCH_MEM_COUNTS objects (created through the API, then idle BENCH_MEM_SETTLE s), per
 *    object, next to the JSON size of one object as the server returns it. "Before" is read
 *    twice: cold (after 20 creates) and warm, after BENCH_MEM_WARMUP objects were created and
 *    deleted by as many clients as the counted creates use. A burst of writes grows V8's young
 *    generation to its maximum (32 MB) and leaves old-space and malloc pages that the
 *    allocators keep; that happens once per process whatever it holds, so the warm reading
 *    keeps it out of the per-object figure. Both figures are reported.
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
async function seed(target: Target, meters: Meters, prefix: string, count: number, mode: 'create' | 'churn' = 'create'): Promise<number> {
  if (count <= 0) return 0;
  const w = await load(
    { target, mode, clients: SEED_CLIENTS, path: CM_PATH, template: configMapTemplate(config.objectBytes), namePrefix: prefix, expect: 201, windowName: 'seed', durationMs: 0, warmupMs: 0, count },
    meters,
  );
  if (w.result.ops !== count) throw new Error(`seeding (${mode}): ${w.result.ops} of ${count} succeeded (${w.result.firstError})`);
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

async function settledRss(rss: () => number): Promise<number> {
  await sleep(config.memorySettleMs);
  // The lowest of a few readings: a collection may be in progress at any one of them.
  let min = Infinity;
  for (let i = 0; i < 5; i++) {
    min = Math.min(min, rss());
    await sleep(config.memorySettleMs / 10);
  }
  return min;
}

async function memoryRows(ctx: RunCtx, backend: string): Promise<void> {
  const counts = [...config.memoryCounts].sort((a, b) => a - b);
  log(`windlass ${backend}: memory at ${counts.join(', ')} objects`);
  await withServer({ root: config.serverRoot, label: 'windlass', backend }, async ({ server, meters }) => {
    const agent = agentFor(server.target, 1);
    // A few requests first, so lazily built state (handlers, TLS, JIT) is in the "before" reading.
    await seed(server.target, meters, 'mw-', 20);
    const cold = await settledRss(() => server.rss());
    await seed(server.target, meters, 'mc-', config.memoryWarmup, 'churn');
    const before = await settledRss(() => server.rss());
    let have = 0;
    let prev = { count: 0, rss: before };
    for (const count of counts) {
      const rate = await seed(server.target, meters, `m${count}-`, count - have);
      have = count;
      const got = await send(agent, server.target, 'GET', `${CM_PATH}/${objectName(`m${count}-`, 0)}`);
      expectStatus('GET', got, 200);
      const rss = await settledRss(() => server.rss());
      const perObject = (rss - before) / count;
      const marginal = (rss - prev.rss) / (count - prev.count);
      const row: Row = {
        section: 'memory', backend, server: 'windlass', op: `${count} objects cached`, clients: SEED_CLIENTS, client: 'node',
        ops: count, seconds: 0, opsPerSec: NaN, p50: NaN, p99: NaN, cpuPerOp: NaN, errors: 0,
        extra: { rssCold: cold, rssBefore: before, rssAfter: rss, bytesPerObject: perObject, bytesPerObjectFromCold: (rss - cold) / count, marginalBytesPerObject: marginal, jsonBytes: got.body.length, seedCreatesPerSec: rate },
      };
      ctx.rows.push(row);
      prev = { count, rss };
    }
    agent.destroy();
  });
}

export async function runBulkSections(ctx: RunCtx, backend: string): Promise<void> {
  if (want('list')) await listRows(ctx, backend);
  if (want('memory')) await memoryRows(ctx, backend);
}
