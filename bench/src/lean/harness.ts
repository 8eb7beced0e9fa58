/** Rows of results, and the pieces every section uses: a server on a fresh store, the two GET clients, load windows. */
import { join } from 'node:path';
import { config } from './config.js';
import { runChild, type WindowOutcome } from './ipc.js';
import type { Target } from './http.js';
import type { LoadResult, LoadSpec } from './loadgen.js';
import { measured, type Meters } from './proc.js';
import { freshEtcd, startWindlass, type FreshEtcd, type WindlassServer } from './targets.js';
import { hasWrk, runWrk } from './wrk.js';

export interface Row {
  section: string;
  /** embedded | etcd | '' (floors) */
  backend: string;
  /** windlass | baseline | bare | etcd3 */
  server: string;
  op: string;
  clients: number;
  /** node | wrk | etcd3 */
  client: string;
  workers?: number;
  ops: number;
  seconds: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  /** CPU ms per operation of the measured process tree (the server; for the etcd3 floor, the client). */
  cpuPerOp: number;
  /** etcd's CPU ms per operation, when there is an etcd. */
  etcdCpuPerOp?: number;
  /** The load generator's own CPU ms per operation. */
  clientCpuPerOp?: number;
  errors: number;
  firstError?: string;
  extra?: Record<string, unknown>;
  /** Which pass of BENCH_REPEAT measured it (1-based). */
  pass?: number;
}

export type RowBase = Pick<Row, 'section' | 'backend' | 'server' | 'op' | 'clients' | 'client'> & Partial<Pick<Row, 'workers' | 'extra'>>;

/** A row from a window of a load generator (or wrk); cpuPerOp from the `cpuKey` meter. */
export function rowFrom(base: RowBase, w: { wallMs: number; cpuMs: Record<string, number> }, r: LoadResult, cpuKey = 'server'): Row {
  const ops = r.ops;
  const per = (k: string): number | undefined => (w.cpuMs[k] === undefined ? undefined : w.cpuMs[k] / Math.max(1, ops));
  return {
    ...base, ops, seconds: r.seconds, opsPerSec: r.ops / r.seconds, p50: r.latency.p50, p99: r.latency.p99,
    cpuPerOp: per(cpuKey) ?? NaN, etcdCpuPerOp: per('etcd'), clientCpuPerOp: per('client'),
    errors: r.errors, firstError: r.firstError, extra: { ...base.extra, statuses: r.statuses, conflicts: r.conflicts || undefined, windowMs: w.wallMs },
  };
}

const t0 = Date.now();
export const RUN_STAMP = new Date(t0).toISOString().replace(/[:.]/g, '-');

export function log(msg: string): void {
  process.stderr.write(`bench lean [${((Date.now() - t0) / 1000).toFixed(1)} s]: ${msg}\n`);
}

export interface ServerCtx {
  server: WindlassServer;
  etcd?: FreshEtcd;
  meters: Meters;
}

let profileSeq = 0;
/** Profiles of one run go under one directory, named by the run's start time. */
const profileBase = (): string => config.profileDir ?? join('/tmp/windlass-bench-profiles', RUN_STAMP);

/**
 * A Windlass from `root` on a fresh store (a new etcd for the etcd backend, a new data dir for
 * embedded), stopped afterwards. With `profile` and BENCH_PROFILE=1 the server writes a CPU profile
 * into a directory of its own, returned in `profiles`.
 */
export async function withServer<T>(
  o: { root: string; label: string; backend: string; workers?: number; profile?: string },
  fn: (c: ServerCtx) => Promise<T>,
  profiles?: { label: string; dir: string }[],
): Promise<T> {
  const etcd = o.backend === 'etcd' ? await freshEtcd() : undefined;
  let profileDir: string | undefined;
  if (o.profile && config.profile) {
    profileDir = join(profileBase(), `${String(++profileSeq).padStart(2, '0')}-${o.label}-${o.backend}-${o.profile}`.replace(/[^\w.-]+/g, '_'));
    profiles?.push({ label: `${o.label} ${o.backend} ${o.profile}`, dir: profileDir });
  }
  try {
    const server = await startWindlass({ root: o.root, label: o.label, backend: o.backend, etcdEndpoints: etcd?.endpoints, workers: o.workers, profileDir });
    try {
      const meters: Meters = { server: () => server.pids() };
      if (etcd) meters.etcd = () => etcd.pids();
      return await fn({ server, etcd, meters });
    } finally {
      await server.stop();
    }
  } finally {
    await etcd?.stop();
  }
}

/** One load-generator window (loadgen.js) with the meters read around it. */
export async function load(spec: Omit<LoadSpec, 'durationMs' | 'warmupMs'> & Partial<Pick<LoadSpec, 'durationMs' | 'warmupMs'>>, meters: Meters): Promise<WindowOutcome<LoadResult>> {
  const full: LoadSpec = { durationMs: config.durationMs, warmupMs: config.warmupMs, ...spec };
  const [w] = await runChild<LoadResult>('loadgen.js', full, meters);
  if (w.result.ops === 0) throw new Error(`${spec.windowName}: no successful operation (${w.result.firstError ?? JSON.stringify(w.result.statuses)})`);
  return w;
}

/** The GET clients this run uses: wrk when installed (BENCH_GET_CLIENT=wrk), node, or both. */
export function getClients(): ('wrk' | 'node')[] {
  const want = config.getClient;
  const wrk = hasWrk();
  if (want === 'node' || !wrk) return ['node'];
  return want === 'both' ? ['wrk', 'node'] : ['wrk'];
}

const wrkWarm = new Set<string>();

/**
 * GETs of one path at `clients` concurrency with the given client, after a warm-up (the Node
 * load generator: every window; wrk, which runs whole seconds: once per server and path shape).
 */
export async function getWindow(client: 'wrk' | 'node', target: Target, path: string, clients: number, meters: Meters): Promise<WindowOutcome<LoadResult>> {
  if (client === 'node') return load({ target, mode: 'get', clients, path, windowName: `GET ${path}` }, meters);
  const key = `${target.port} ${path}`;
  if (config.warmupMs > 0 && (config.warmupMs >= 1000 || !wrkWarm.has(`${target.port}`))) {
    await runWrk({ target, path, clients, threads: config.wrkThreads, durationMs: Math.max(1000, config.warmupMs) });
    wrkWarm.add(`${target.port}`).add(key);
  }
  const m = await measured(meters, () => runWrk({ target, path, clients, threads: config.wrkThreads, durationMs: config.durationMs }));
  if (m.value.ops === 0) throw new Error(`wrk GET ${path}: no 2xx answer (${m.value.firstError})`);
  return { name: `GET ${path}`, result: m.value, wallMs: m.wallMs, cpuMs: m.cpuMs };
}

export interface RunCtx {
  rows: Row[];
  /** CPU profiles written by servers (BENCH_PROFILE=1). */
  profiles: { label: string; dir: string }[];
  notes: string[];
}

/** The checkouts whose servers a section runs: this one, and the baseline where the issue compares with it. */
export function roots(withBaseline: boolean): { root: string; label: 'windlass' | 'baseline' }[] {
  const out: { root: string; label: 'windlass' | 'baseline' }[] = [{ root: config.serverRoot, label: 'windlass' }];
  if (withBaseline && config.baselineRoot) out.push({ root: config.baselineRoot, label: 'baseline' });
  return out;
}
