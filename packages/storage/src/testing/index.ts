export { startEtcd, type EtcdServer, type StartEtcdOptions } from './etcd.js';
export { freePort } from './ports.js';
export { WatchRecorder } from './recorder.js';
export { keyValues, plainEvent, rejectsWith } from './assertions.js';
// Calls jest's globals only when invoked, so importing this module outside jest is safe.
export { describeBackends, type BackendContext, type BackendName, type DescribeBackendsOptions } from './backends.js';
