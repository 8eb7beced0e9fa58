/**
 * The stored form of an object: its JSON without metadata.resourceVersion, which is
 * the key's mod revision and is set when reading (as kube's etcd3 store does).
 */
import type { KeyValue } from '@windlass/storage';
import { newInternalError } from '@windlass/machinery';
import type { KubeObject } from './types.js';

/**
 * An object's JSON with kind, apiVersion and metadata first, as kube's typed encoding
 * writes them. Storage, responses and watch events all use it, so an object echoed back
 * unchanged encodes to the stored bytes (a no-op update), a list item is a view past the
 * header, and the cache can splice resourceVersion into stored bytes (CachedObject).
 * `restStart` is where the fields after kind and apiVersion start (a list item is `{` + the rest).
 */
export function encodeKindFirst(obj: KubeObject): { bytes: Buffer; restStart: number } {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const header = `{"kind":${JSON.stringify(kind ?? '')},"apiVersion":${JSON.stringify(apiVersion ?? '')}`;
  const fields: string[] = [];
  if (metadata !== undefined) fields.push(`"metadata":${JSON.stringify(metadata)}`);
  const others = JSON.stringify(rest);
  if (others.length > 2) fields.push(others.slice(1, -1));
  // Without fields the header closes the object; otherwise a "," separates them.
  if (fields.length === 0) {
    const bytes = Buffer.from(`${header}}`);
    return { bytes, restStart: bytes.length - 1 };
  }
  return { bytes: Buffer.from(`${header},${fields.join(',')}}`), restStart: Buffer.byteLength(header) + 1 };
}

export function encodeForStorage(obj: KubeObject): Buffer {
  const rv = obj.metadata.resourceVersion;
  if (rv === undefined) return encodeKindFirst(obj).bytes;
  delete obj.metadata.resourceVersion;
  try {
    return encodeKindFirst(obj).bytes;
  } finally {
    obj.metadata.resourceVersion = rv;
  }
}

/** The stored form decoded, without a resourceVersion. */
export function decodeStored(value: Buffer): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(value.toString('utf8')) as KubeObject;
  } catch (err) {
    throw newInternalError(`stored object is not valid JSON: ${(err as Error).message}`);
  }
  obj.metadata = obj.metadata ?? {};
  return obj;
}

export function decodeFromStorage(value: Buffer, revision: number): KubeObject {
  const obj = decodeStored(value);
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

export function decodeKeyValue(kv: KeyValue): KubeObject {
  return decodeFromStorage(kv.value, kv.modRevision);
}
