export * from './types.js';
export { EmbeddedStorage, type EmbeddedStorageOptions } from './embedded.js';
// The etcd backend is its own entry point (@windlass/storage/etcd): its client and gRPC
// stack take a third of a second to load, which an embedded server must not pay at start.
export type { EtcdStorageOptions } from './etcd.js';
export type { EtcdTLS } from './etcd/grpc.js';
export { createStorage, type CreateStorageOptions } from './create.js';
