import { isStorageError, type KeyValue, type StorageErrorCode, type StorageWatchEvent } from '../types.js';

/** Small assertion helpers for storage tests; plain functions, no jest globals. */

/** Await `p` and return its error, which must be a StorageError with `code`. */
export async function rejectsWith<T>(p: Promise<T>, code: StorageErrorCode): Promise<Error & { details?: { current?: KeyValue } }> {
  try {
    await p;
  } catch (err) {
    if (isStorageError(err, code)) return err;
    throw new Error(`expected StorageError ${code}, got ${String(err)}`);
  }
  throw new Error(`expected StorageError ${code}, but the call succeeded`);
}

/** The parts of an event a test compares, Buffers as strings. */
export function plainEvent(e: StorageWatchEvent): Record<string, unknown> {
  return {
    type: e.type,
    key: e.key,
    revision: e.revision,
    value: e.value.toString(),
    createRevision: e.createRevision,
    ...(e.prevValue !== undefined ? { prevValue: e.prevValue.toString(), prevModRevision: e.prevModRevision } : {}),
  };
}

/** `key=value` strings, for comparing range results. */
export function keyValues(kvs: KeyValue[]): string[] {
  return kvs.map((kv) => `${kv.key}=${kv.value.toString()}`);
}
