/**
 * The stored form of an object: its JSON without metadata.resourceVersion, which is
 * the key's mod revision and is set when reading (as kube's etcd3 store does).
 */
import type { KeyValue } from '@windlass/storage';
import { newInternalError } from '@windlass/machinery';
import type { KubeObject } from './types.js';

/**
 * An object's JSON with kind and apiVersion first, as kube's typed encoding writes them.
 * Storage, responses and watch events all use it, so an object echoed back unchanged
 * encodes to the stored bytes (a no-op update) and a list item is a view past the header.
 * `restStart` is where the fields after kind and apiVersion start (a list item is `{` + the rest).
 */
export function encodeKindFirst(obj: KubeObject): { bytes: Buffer; restStart: number } {
  const { kind, apiVersion, ...rest } = obj;
  const header = `{"kind":${JSON.stringify(kind ?? '')},"apiVersion":${JSON.stringify(apiVersion ?? '')}`;
  const body = JSON.stringify(rest);
  // "{}" has no fields to follow the header; otherwise the body's own "{" becomes a ",".
  if (body.length <= 2) {
    const bytes = Buffer.from(`${header}}`);
    return { bytes, restStart: bytes.length - 1 };
  }
  return { bytes: Buffer.from(`${header},${body.slice(1)}`), restStart: Buffer.byteLength(header) + 1 };
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
