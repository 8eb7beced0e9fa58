/**
 * Knobs of the lean request-path suite (issue 15), all from the environment. Defaults are the
 * full run; `BENCH_QUICK=1` switches every default to a smoke-run size (each knob still wins).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
const quick = env.BENCH_QUICK === '1';

const num = (name: string, full: number, smoke: number): number => {
  const v = env[name];
  if (v === undefined || v === '') return quick ? smoke : full;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: not a number: ${v}`);
  return n;
};
const list = (name: string, full: string, smoke = full): string[] =>
  (env[name] ?? (quick ? smoke : full)).split(',').map((s) => s.trim()).filter(Boolean);

/** bench/dist/lean → the repository root that holds this bench. */
export const BENCH_REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export const ALL_SECTIONS = ['floors', 'create', 'get', 'contend', 'list', 'fanout', 'memory', 'workers'] as const;
export type Section = (typeof ALL_SECTIONS)[number];

export const config = {
  quick,
  /** The windlass checkout to measure (its apps/apiserver/bin/windlass.js). */
  serverRoot: resolve(env.BENCH_SERVER_ROOT || BENCH_REPO_ROOT),
  /** Optional second checkout ("today's main") for the rows the issue compares with it, in the same run. */
  baselineRoot: env.BENCH_BASELINE_ROOT ? resolve(env.BENCH_BASELINE_ROOT) : undefined,
  backends: list('BENCH_BACKENDS', 'embedded,etcd'),
  sections: new Set(list('BENCH_SECTIONS', ALL_SECTIONS.join(',')) as Section[]),
  /** Seconds of each timed window and of the warm-up before it. */
  durationMs: num('BENCH_DURATION', 8, 1) * 1000,
  warmupMs: num('BENCH_WARMUP', 2, 0.3) * 1000,
  createClients: list('BENCH_CREATE_CLIENTS', '1,16,64', '16,64').map(Number),
  getClients: num('BENCH_GET_CLIENTS', 16, 16),
  contendClients: num('BENCH_CONTEND_CLIENTS', 16, 16),
  /** wrk | node | both (wrk only when installed). */
  getClient: env.BENCH_GET_CLIENT ?? 'wrk',
  wrkThreads: num('BENCH_WRK_THREADS', 1, 1),
  /** JSON size of the ConfigMap as sent (the stored and returned object adds ~150 bytes of metadata). */
  objectBytes: num('BENCH_OBJECT_BYTES', 1500, 1500),
  listObjects: num('BENCH_LIST_N', 10_000, 500),
  listIterations: num('BENCH_LIST_ITER', 10, 3),
  listPage: num('BENCH_LIST_PAGE', 500, 100),
  /** Object counts after which the server's RSS is read. */
  memoryCounts: list('BENCH_MEM_COUNTS', '10000,50000', '500,1000').map(Number),
  /** Seconds idle before each RSS reading (its lowest reading over them): V8 gives memory back after ~30 s. */
  memorySettleMs: num('BENCH_MEM_SETTLE', 40, 3) * 1000,
  /** Watcher counts of the fan-out rows, writes per second and writes per row. */
  fanoutWatchers: list('BENCH_FANOUT_WATCHERS', '100,1000', '20,100').map(Number),
  fanoutRate: num('BENCH_FANOUT_RATE', 20, 20),
  fanoutWrites: num('BENCH_FANOUT_WRITES', 200, 20),
  fanoutObjects: num('BENCH_FANOUT_OBJECTS', 10, 10),
  /** Extra rows with --workers N (etcd only; needs a server that has the flag). Empty: none. */
  workers: list('BENCH_WORKERS', '2').map(Number),
  /** Concurrency levels of the etcd3-client floor. */
  etcdClients: list('BENCH_ETCD_CLIENTS', '1,16,64', '16').map(Number),
  /** Raw results; default bench/results/lean-<time>.json. */
  outFile: env.BENCH_OUT,
  /**
   * Passes over the selected sections. With more than one, each target's ratio is computed per
   * pass and the median decides (this machine's throughput varies ±30 % between identical runs).
   */
  repeat: Math.max(1, Math.floor(num('BENCH_REPEAT', 1, 1))),
  profile: env.BENCH_PROFILE === '1',
  profileDir: env.BENCH_PROFILE_DIR,
  profileTop: num('BENCH_PROFILE_TOP', 25, 25),
};

export type Config = typeof config;

export function windlassBin(root: string): string {
  const bin = join(root, 'apps/apiserver/bin/windlass.js');
  if (!existsSync(bin)) throw new Error(`no windlass binary at ${bin} (BENCH_SERVER_ROOT / BENCH_BASELINE_ROOT must be a built checkout)`);
  return bin;
}

export const want = (s: Section): boolean => config.sections.has(s);
