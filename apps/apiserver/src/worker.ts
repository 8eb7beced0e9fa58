/**
 * One worker of `windlass start --workers N`: a full replica (its own storage connection,
 * APIServer and watch cache) listening on the port the primary shares among its workers.
 * The primary has already generated the credentials; it sends them over the IPC channel
 * rather than have N processes read (and warn about) the same files.
 */
import cluster from 'node:cluster';
import type { TokenEntry } from '@windlass/auth';
import type { APIServer } from '@windlass/server';
import type { Storage } from '@windlass/storage';
import type { ServerOptions } from './flags.js';
import { exitOnSignals, newAPIServer, openStorageOrExit } from './replica.js';

export interface WorkerConfig {
  tls: { cert: string; key: string };
  tokens: TokenEntry[];
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

export async function runWorker(o: ServerOptions): Promise<void> {
  let storage: Storage | undefined;
  let server: APIServer | undefined;
  // From the start: the primary forwards SIGTERM to a worker that may still be opening storage.
  exitOnSignals(() => ({ server, storage }), o.shutdownDelayDurationMs);
  const config = await requestConfig();
  storage = await openStorageOrExit(o);
  server = newAPIServer(o, storage, config);
  const port = await server.listen(config.port, o.bindAddress);
  const ready: ListeningMessage = { windlass: 'listening', port };
  cluster.worker!.send(ready);
}
