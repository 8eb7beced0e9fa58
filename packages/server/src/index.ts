export { serverVersion } from './discovery.js';
export { APIServer, type APIServerOptions, type Authenticator, type UserInfo } from './apiserver.js';
export { APIRegistry, builtinResources } from './registry/index.js';
export type { ResourceDefinition, KubeObject } from './registry/types.js';
export { Store } from './registry/store.js';
export { serializationStats } from './cacher/stats.js';
export { aggregateMetrics, type MetricsJSON } from './metrics/endpoint.js';
export { defaultRequestHeaders, type AuthenticationTrust } from './controllers/authenticationtrust.js';
