/**
 * The etcd3-client floor (a child process): the npm `etcd3` client alone, called as
 * packages/storage calls it (KVClient.txn / KVClient.range), N concurrent loops for a warm-up
 * and a timed window per mode:
 *   create  txn: compare create_revision(key) == 0, put key (the value a ConfigMap is stored as)
 *   range   range of one existing key (random among those created)
 * The parent reads this process's CPU (and etcd's) around each window.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { childMain } from './ipc.js';
import { Recorder, type Latency } from './http.js';
import { configMapTemplate, fill, objectName } from './objects.js';

export interface EtcdFloorSpec {
  endpoints: string[];
  clients: number;
  durationMs: number;
  warmupMs: number;
  /** Size of the request body the server would get; the stored value adds uid and timestamp. */
  objectBytes: number;
  modes: ('create' | 'range')[];
}

export interface EtcdFloorResult {
  ops: number;
  seconds: number;
  latency: Latency;
  errors: number;
  firstError?: string;
}

interface KV {
  txn(req: unknown): Promise<{ succeeded: boolean }>;
  range(req: unknown): Promise<{ kvs: unknown[] }>;
}
interface Client {
  kv: KV;
  close(): void;
}

/** etcd3 as the storage package resolves it (the bench does not depend on it directly). */
function loadEtcd3(): { Etcd3: new (opts: unknown) => Client } {
  const require = createRequire(import.meta.resolve('@windlass/storage'));
  return require('etcd3') as { Etcd3: new (opts: unknown) => Client };
}

const PREFIX = '/registry/configmaps/default/';

childMain<EtcdFloorSpec>(async (spec, window) => {
  const { Etcd3 } = loadEtcd3();
  const client = new Etcd3({ hosts: spec.endpoints, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  const template = configMapTemplate(spec.objectBytes);
  let created = 0;
  // The stored form (uid and creationTimestamp added), built once; per key only the name changes.
  const stored = JSON.parse(template) as { metadata: Record<string, unknown> };
  stored.metadata.uid = crypto.randomUUID();
  stored.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const storedTemplate = JSON.stringify(stored);
  const keys: Buffer[] = [];

  const phase = async (mode: 'create' | 'range', ms: number): Promise<EtcdFloorResult> => {
    const rec = new Recorder();
    let errors = 0;
    let firstError: string | undefined;
    const t0 = performance.now();
    const until = t0 + ms;
    const loop = async (): Promise<void> => {
      while (performance.now() < until) {
        const t = performance.now();
        try {
          if (mode === 'create') {
            const name = objectName('e-', created++);
            const key = Buffer.from(PREFIX + name);
            const res = await client.kv.txn({
              compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
              success: [{ request_put: { key, value: Buffer.from(fill(storedTemplate, name)) } }],
              failure: [{ request_range: { key } }],
            });
            if (!res.succeeded) throw new Error(`key ${key.toString()} exists`);
            keys.push(key);
          } else {
            const res = await client.kv.range({ key: keys[Math.floor(Math.random() * keys.length)] });
            if (res.kvs.length !== 1) throw new Error('range: key missing');
          }
          rec.add(performance.now() - t);
        } catch (err) {
          errors++;
          firstError ??= (err as Error).message;
        }
      }
    };
    await Promise.all(Array.from({ length: spec.clients }, loop));
    return { ops: rec.count, seconds: (performance.now() - t0) / 1000, latency: rec.summary(), errors, firstError };
  };

  for (const mode of spec.modes) {
    if (mode === 'range' && keys.length === 0) await phase('create', 500);
    if (spec.warmupMs > 0) await phase(mode, spec.warmupMs);
    await window(mode, () => phase(mode, spec.durationMs));
  }
  client.close();
});
