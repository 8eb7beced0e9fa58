export * from './types.js';
export { EmbeddedStorage, type EmbeddedStorageOptions } from './embedded.js';
export { EtcdStorage, type EtcdStorageOptions } from './etcd.js';
export { createStorage, type CreateStorageOptions } from './create.js';
