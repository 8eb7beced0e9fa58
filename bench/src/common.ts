/** Helpers shared by the list and fan-out benchmarks. */
import http from 'node:http';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { EmbeddedStorage, type Storage } from '@windlass/storage';
import { EtcdStorage } from '@windlass/storage/etcd';
import { startEtcd } from '@windlass/storage/testing';

export const backendsFromEnv = (): string[] =>
  (process.env.BENCH_BACKENDS ?? 'embedded,etcd').split(',').map((s) => s.trim()).filter(Boolean);

/** A ConfigMap as a client sends it (~300 bytes stored), the same shape as run.ts uses. */
export function configMap(name: string, extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { 'app.properties': `name=${name}\nreplicas=3\nlog.level=info\n`, owner: 'bench', payload: 'x'.repeat(64), ...extra },
  };
}

/** The bytes the server stores for it (encodeForStorage: no resourceVersion; uid and creationTimestamp added). */
export function storedConfigMap(name: string): Buffer {
  const o = configMap(name);
  const m = o.metadata as Record<string, unknown>;
  m.uid = crypto.randomUUID();
  m.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return Buffer.from(JSON.stringify(o));
}

export const names = (tag: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(6, '0')}`);

/** Runs `count` calls of `fn(i)` with at most `conc` in flight. */
export async function parallel(count: number, conc: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await fn(i);
  };
  await Promise.all(Array.from({ length: Math.min(conc, count) }, worker));
}

/**
 * Runs `fn` against a fresh store of the backend: embedded `:memory:` SQLite, or a throwaway
 * single-member etcd started by startEtcd(). Gives the fn some facts about the store to report.
 */
export async function withBackend<T>(backend: string, fn: (storage: Storage, facts: string) => Promise<T>): Promise<T> {
  if (backend === 'embedded') {
    const s = new EmbeddedStorage({ path: ':memory:' });
    try {
      return await fn(s, 'embedded :memory:');
    } finally {
      await s.close();
    }
  }
  if (backend === 'etcd') {
    const etcd = await startEtcd();
    try {
      const s = await EtcdStorage.connect({ endpoints: etcd.endpoints });
      try {
        return await fn(s, `etcd ${s.serverVersion}`);
      } finally {
        await s.close();
      }
    } finally {
      await etcd.stop();
    }
  }
  throw new Error(`unknown backend ${backend} (embedded, etcd)`);
}

export function etcdVersion(): string {
  const bin = process.env.ETCD_BIN ?? '/usr/bin/etcd';
  try {
    return /etcd Version: (\S+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'not found';
  }
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  return `Machine: nproc=${os.availableParallelism()}, CPU ${cpu}, node ${process.version}, etcd ${etcdVersion()}, ${os.platform()} ${os.release()}`;
}

export const fmt = (x: number, d = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** The p-quantile (0..1) of an ascending-sorted array. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export interface HttpResult {
  status: number;
  body: Buffer;
}

/** One request; the whole body as bytes (not parsed). */
export function request(agent: http.Agent, port: number, method: string, path: string, body?: unknown): Promise<HttpResult> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function expectStatus(what: string, r: HttpResult, status: number): void {
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
}
