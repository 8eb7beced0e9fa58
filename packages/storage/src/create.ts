import { EmbeddedStorage } from './embedded.js';
import type { EtcdTLS } from './etcd/grpc.js';
import type { Storage } from './types.js';

export type CreateStorageOptions =
  | { backend: 'embedded'; path: string; progressIntervalMs?: number }
  | { backend: 'etcd'; endpoints: string[]; connectTimeoutMs?: number; progressIntervalMs?: number; tls?: EtcdTLS; unavailableWaitMs?: number };

/**
 * Open the configured backend. For etcd this waits for the server to answer (and learns
 * its version), failing with StorageError Unavailable within connectTimeoutMs (5 s).
 */
export async function createStorage(opts: CreateStorageOptions): Promise<Storage> {
  if (opts.backend === 'embedded') return new EmbeddedStorage(opts);
  const { EtcdStorage } = await import('./etcd.js');
  return EtcdStorage.connect(opts);
}
