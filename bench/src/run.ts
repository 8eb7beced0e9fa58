/**
 * First benchmark: create / get / list throughput through the HTTP API server versus the
 * same key/value operations on the raw storage, for both backends (embedded :memory:
 * SQLite and a throwaway etcd). Prints a markdown table; ratio = server ops/s ÷ raw ops/s.
 *
 * Client and server share this process (and its event loop), so the server column also
 * pays for the HTTP client. Env knobs: BENCH_N (objects, default 2000), BENCH_CONC
 * (in flight, default 16), BENCH_LISTS (lists of 1000, default 50), BENCH_BACKENDS
 * (comma list, default "embedded,etcd").
 *
 * Suites: `node dist/run.js [crud] [list]` (default: both). `list` is the 10k-object
 * list benchmark (list10k.ts); the watch fan-out is measured by `lean` with its watchers in their own
 * process (the in-process fanout.ts it replaced shared the server's event loop). `lean` (issue 15,
 * only when named) starts the server through its CLI in its own process: see lean/main.ts.
 */
import http from 'node:http';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { EmbeddedStorage, type Storage } from '@windlass/storage';
import { EtcdStorage } from '@windlass/storage/etcd';
import { startEtcd } from '@windlass/storage/testing';
import { APIServer } from '@windlass/server';
import { runList10k } from './list10k.js';
import { runLean } from './lean/main.js';
import { request, type HttpResult } from './common.js';

const N = Number(process.env.BENCH_N ?? 2000);
const CONC = Number(process.env.BENCH_CONC ?? 16);
const LISTS = Number(process.env.BENCH_LISTS ?? 50);
const LIST_SIZE = 1000;
const WARMUP = 200;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'embedded,etcd').split(',').map((s) => s.trim()).filter(Boolean);

interface OpStats {
  ops: number;
  seconds: number;
  opsPerSec: number;
  p50: number;
  p99: number;
}

/** Run `count` calls of `fn(i)` with at most `conc` in flight; per-op latencies in ms. */
async function pool(count: number, conc: number, fn: (i: number) => Promise<void>): Promise<OpStats> {
  const lat = new Float64Array(count);
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const t = performance.now();
      await fn(i);
      lat[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: Math.min(conc, count) }, worker));
  const seconds = (performance.now() - start) / 1000;
  lat.sort();
  const pct = (p: number): number => lat[Math.min(count - 1, Math.floor(p * count))];
  return { ops: count, seconds, opsPerSec: count / seconds, p50: pct(0.5), p99: pct(0.99) };
}

function configMap(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { 'app.properties': `name=${name}\nreplicas=3\nlog.level=info\n`, owner: 'bench', payload: 'x'.repeat(64) },
  };
}

/** What the raw run stores: the object as the server would, with the fields it adds. */
function storedConfigMap(name: string): Buffer {
  const o = configMap(name);
  (o.metadata as Record<string, unknown>).uid = crypto.randomUUID();
  (o.metadata as Record<string, unknown>).creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return Buffer.from(JSON.stringify(o));
}

/** Items a list must return: all objects so far, at most LIST_SIZE. */
let expectedListItems = 0;

const names = (tag: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(6, '0')}`);
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

interface Workload {
  create(name: string): Promise<void>;
  get(name: string): Promise<void>;
  list(): Promise<void>;
}

async function measure(w: Workload): Promise<Record<'create' | 'get' | 'list', OpStats>> {
  // Warm-up: JIT, connections, prepared statements.
  const warm = names('warm', WARMUP);
  await pool(WARMUP, CONC, (i) => w.create(warm[i]));
  expectedListItems = Math.min(LIST_SIZE, WARMUP);
  await pool(WARMUP, CONC, () => w.get(pick(warm)));
  await pool(5, CONC, () => w.list());

  const created = names('obj', N);
  const create = await pool(N, CONC, (i) => w.create(created[i]));
  expectedListItems = Math.min(LIST_SIZE, WARMUP + N);
  const get = await pool(N, CONC, () => w.get(pick(created)));
  const list = await pool(LISTS, CONC, () => w.list());
  return { create, get, list };
}

function rawWorkload(storage: Storage, prefix: string): Workload {
  const dir = `${prefix}/configmaps/default/`;
  return {
    async create(name) {
      await storage.create(dir + name, storedConfigMap(name));
    },
    async get(name) {
      const kv = await storage.get(dir + name);
      if (!kv) throw new Error(`raw get ${name}: missing`);
      JSON.parse(kv.value.toString('utf8'));
    },
    async list() {
      const res = await storage.range(dir, { prefix: true, limit: LIST_SIZE });
      if (res.items.length !== expectedListItems) throw new Error(`raw list: ${res.items.length} items`);
      for (const kv of res.items) JSON.parse(kv.value.toString('utf8'));
    },
  };
}

function serverWorkload(agent: http.Agent, port: number): Workload {
  const base = '/api/v1/namespaces/default/configmaps';
  const expect = (what: string, r: HttpResult, status: number): void => {
    if (r.status !== status) throw new Error(`${what}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  };
  return {
    async create(name) {
      expect(`POST ${name}`, await request(agent, port, 'POST', base, configMap(name)), 201);
    },
    async get(name) {
      const r = await request(agent, port, 'GET', `${base}/${name}`);
      expect(`GET ${name}`, r, 200);
      JSON.parse(r.body.toString('utf8'));
    },
    async list() {
      const r = await request(agent, port, 'GET', `${base}?limit=${LIST_SIZE}`);
      expect('LIST', r, 200);
      const items = (JSON.parse(r.body.toString('utf8')) as { items: unknown[] }).items;
      if (items.length !== expectedListItems) throw new Error(`server list: ${items.length} items`);
    },
  };
}

async function runServer(storage: Storage, registryPrefix: string): Promise<Awaited<ReturnType<typeof measure>>> {
  const server = new APIServer({ storage, registryPrefix });
  const port = await server.listen(0, '127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONC });
  try {
    return await measure(serverWorkload(agent, port));
  } finally {
    agent.destroy();
    await server.close();
  }
}

type Row = { backend: string; op: string; raw: OpStats; server: OpStats };

async function benchBackend(backend: string): Promise<Row[]> {
  let raw: Awaited<ReturnType<typeof measure>>;
  let srv: Awaited<ReturnType<typeof measure>>;
  if (backend === 'embedded') {
    const a = new EmbeddedStorage({ path: ':memory:' });
    try {
      raw = await measure(rawWorkload(a, '/registry'));
    } finally {
      await a.close();
    }
    const b = new EmbeddedStorage({ path: ':memory:' });
    try {
      srv = await runServer(b, '/registry');
    } finally {
      await b.close();
    }
  } else if (backend === 'etcd') {
    const etcd = await startEtcd();
    try {
      // One etcd; the raw run and the server use disjoint key prefixes.
      const a = await EtcdStorage.connect({ endpoints: etcd.endpoints });
      try {
        raw = await measure(rawWorkload(a, '/registry'));
      } finally {
        await a.close();
      }
      const b = await EtcdStorage.connect({ endpoints: etcd.endpoints });
      try {
        srv = await runServer(b, '/srv/registry');
      } finally {
        await b.close();
      }
    } finally {
      await etcd.stop();
    }
  } else {
    throw new Error(`unknown backend ${backend} (embedded, etcd)`);
  }
  return (['create', 'get', 'list'] as const).map((op) => ({ backend, op: op === 'list' ? `list (${LIST_SIZE})` : op, raw: raw[op], server: srv[op] }));
}

function etcdVersion(): string {
  const bin = process.env.ETCD_BIN ?? '/usr/bin/etcd';
  try {
    return /etcd Version: (\S+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'not found';
  }
}

const fmt = (x: number, d = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

async function runCrud(): Promise<string> {
  const started = performance.now();
  const rows: Row[] = [];
  for (const b of BACKENDS) {
    process.stderr.write(`bench: ${b} …\n`);
    rows.push(...(await benchBackend(b)));
  }
  const lines = [
    `Workload: ${N} creates, ${N} gets of random existing names, ${LISTS} lists of ${LIST_SIZE} (limit=${LIST_SIZE}); ${CONC} in flight; after ${WARMUP} warm-up creates/gets and 5 lists.`,
    '',
    '| backend | op | raw ops/s | server ops/s | ratio (server/raw) | raw p50 / p99 ms | server p50 / p99 ms |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.op} | ${fmt(r.raw.opsPerSec)} | ${fmt(r.server.opsPerSec)} | ${fmt(r.server.opsPerSec / r.raw.opsPerSec, 3)} | ` +
        `${fmt(r.raw.p50, 2)} / ${fmt(r.raw.p99, 2)} | ${fmt(r.server.p50, 2)} / ${fmt(r.server.p99, 2)} |`,
    ),
    '',
    `Runtime ${fmt((performance.now() - started) / 1000, 1)} s.`,
  ];
  return lines.join('\n');
}

const suites: Record<string, { title: string; run: () => Promise<string> }> = {
  crud: { title: 'create / get / list(1000): server vs raw storage', run: runCrud },
  list: { title: 'List of 10k objects', run: runList10k },
};
/** Run only when named: the issue-15 suite (lean/main.ts) starts servers in their own processes. */
const onDemand: Record<string, { title: string; run: () => Promise<string> }> = {
  lean: { title: 'Issue 15: lean request path (server in its own process)', run: runLean },
};

async function main(): Promise<void> {
  const started = performance.now();
  const selected = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = selected.length ? selected : Object.keys(suites);
  Object.assign(suites, onDemand);
  for (const n of names) if (!suites[n]) throw new Error(`unknown suite ${n} (${Object.keys(suites).join(', ')})`);
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  process.stdout.write(`Machine: nproc=${os.availableParallelism()}, CPU ${cpu}, node ${process.version}, etcd ${etcdVersion()}, ${os.platform()} ${os.release()}\n`);
  for (const n of names) {
    const t = performance.now();
    const out = await suites[n].run();
    process.stdout.write(`\n### ${suites[n].title}\n\n${out}\n\n(${n}: ${fmt((performance.now() - t) / 1000, 1)} s)\n`);
  }
  process.stdout.write(`\nTotal runtime ${fmt((performance.now() - started) / 1000, 1)} s.\n`);
  // Sockets and timers of closed servers must not keep the process alive.
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
