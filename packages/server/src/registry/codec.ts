/**
 * The stored form of an object: its JSON without metadata.resourceVersion, which is
 * the key's mod revision and is set when reading (as kube's etcd3 store does).
 */
import type { KeyValue } from '@windlass/storage';
import { newInternalError } from '@windlass/machinery';
import type { KubeObject } from './types.js';

export function encodeForStorage(obj: KubeObject): Buffer {
  const rv = obj.metadata.resourceVersion;
  if (rv === undefined) return Buffer.from(JSON.stringify(obj));
  delete obj.metadata.resourceVersion;
  try {
    return Buffer.from(JSON.stringify(obj));
  } finally {
    obj.metadata.resourceVersion = rv;
  }
}

export function decodeFromStorage(value: Buffer, revision: number): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(value.toString('utf8')) as KubeObject;
  } catch (err) {
    throw newInternalError(`stored object is not valid JSON: ${(err as Error).message}`);
  }
  obj.metadata = obj.metadata ?? {};
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

export function decodeKeyValue(kv: KeyValue): KubeObject {
  return decodeFromStorage(kv.value, kv.modRevision);
}
