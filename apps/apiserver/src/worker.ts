/**
 * One worker of `windlass start --workers N`: a full replica (its own storage connection,
 * APIServer and watch cache) listening on the port the primary shares among its workers.
 * The primary has already generated the credentials; it sends them over the IPC channel
 * rather than have N processes read (and warn about) the same files.
 */
import cluster from 'node:cluster';
import { startMemoryRelease } from '@windlass/memory';
import type { TokenEntry } from '@windlass/auth';
import type { APIServer, MetricsJSON } from '@windlass/server';
import type { Storage } from '@windlass/storage';
import type { ServerOptions } from './flags.js';
import { exitOnSignals, newAPIServer, openStorageOrExit, type AuthenticationFiles, type FrontProxyFiles } from './replica.js';

export interface WorkerConfig {
  tls: { cert: string; key: string };
  tokens: TokenEntry[];
  /** Client CAs and service account keys, as the primary read them. */
  authentication?: AuthenticationFiles;
  /** The aggregation layer's client certificate and front-proxy trust. */
  frontProxy?: FrontProxyFiles;
  /** The port to listen on: --secure-port, or the one the first workers got for --secure-port 0. */
  port: number;
}

/** Worker → primary, asking for its ConfigMessage. */
export interface ConfigRequest {
  windlass: 'config?';
}

/** Primary → worker. */
export interface ConfigMessage {
  windlass: 'config';
  config: WorkerConfig;
}

/** Worker → primary, once its server accepts connections. */
export interface ListeningMessage {
  windlass: 'listening';
  port: number;
}

/**
 * /metrics across workers: the worker a scrape reached asks the primary (`metrics?`), which
 * collects every worker's families (`collect`/`collected`) and answers with their sum.
 */
export type MetricsMessage =
  | { windlass: 'metrics?'; id: number }
  | { windlass: 'metrics'; id: number; text?: string; error?: string }
  | { windlass: 'collect'; id: number }
  | { windlass: 'collected'; id: number; metrics: MetricsJSON };

export function isMetricsMessage<K extends MetricsMessage['windlass']>(m: unknown, kind: K): m is Extract<MetricsMessage, { windlass: K }> {
  return typeof m === 'object' && m !== null && (m as MetricsMessage).windlass === kind && typeof (m as MetricsMessage).id === 'number';
}

export function isConfigRequest(m: unknown): m is ConfigRequest {
  return typeof m === 'object' && m !== null && (m as ConfigRequest).windlass === 'config?';
}

export function isListeningMessage(m: unknown): m is ListeningMessage {
  return typeof m === 'object' && m !== null && (m as ListeningMessage).windlass === 'listening' && typeof (m as ListeningMessage).port === 'number';
}

// The worker asks, rather than the primary sending at fork: a message that arrives before
// this module has loaded and listens is dropped.
function requestConfig(): Promise<WorkerConfig> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m !== 'object' || m === null || (m as ConfigMessage).windlass !== 'config') return;
      process.off('message', onMessage);
      resolve((m as ConfigMessage).config);
    };
    process.on('message', onMessage);
    const ask: ConfigRequest = { windlass: 'config?' };
    cluster.worker!.send(ask);
  });
}

/** Asks the primary for the whole server's /metrics; answers its collection requests with this worker's. */
function workerMetrics(server: () => APIServer | undefined): () => Promise<string> {
  let nextId = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  process.on('message', (m: unknown) => {
    if (isMetricsMessage(m, 'collect')) {
      const s = server();
      if (!s) return;
      void s.metricsJSON().then((metrics) => {
        const reply: MetricsMessage = { windlass: 'collected', id: m.id, metrics };
        cluster.worker!.send(reply);
      });
    } else if (isMetricsMessage(m, 'metrics')) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.text !== undefined) p?.resolve(m.text);
      else p?.reject(new Error(m.error ?? 'no metrics from the primary'));
    }
  });
  return () => new Promise<string>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const ask: MetricsMessage = { windlass: 'metrics?', id };
    cluster.worker!.send(ask);
  });
}

export async function runWorker(o: ServerOptions): Promise<void> {
  let storage: Storage | undefined;
  let server: APIServer | undefined;
  // From the start: the primary forwards SIGTERM to a worker that may still be opening storage.
  exitOnSignals(() => ({ server, storage }), o.shutdownDelayDurationMs);
  const gatherMetrics = workerMetrics(() => server);
  const config = await requestConfig();
  storage = await openStorageOrExit(o);
  server = newAPIServer(o, storage, config, gatherMetrics);
  const port = await server.listen(config.port, o.bindAddress);
  startMemoryRelease();
  const ready: ListeningMessage = { windlass: 'listening', port };
  cluster.worker!.send(ready);
}
