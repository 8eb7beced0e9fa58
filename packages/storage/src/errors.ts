import { StorageError } from './types.js';

/** Error constructors shared by both backends, so their messages and details agree. */

export function futureRevision(revision: number, current?: number): StorageError {
  const suffix = current === undefined ? '' : ` (current ${current})`;
  return new StorageError('FutureRevision', `required revision ${revision} is a future revision${suffix}`, current === undefined ? {} : { currentRevision: current });
}

export function compactedError(revision: number, compacted?: number): StorageError {
  const suffix = compacted === undefined ? '' : ` (compacted revision ${compacted})`;
  return new StorageError('Compacted', `required revision ${revision} has been compacted${suffix}`, compacted === undefined ? {} : { compactedRevision: compacted });
}

export function checkKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new StorageError('InvalidArgument', 'key must be a non-empty string');
  return key;
}

export function checkValue(value: Buffer): Buffer {
  if (!Buffer.isBuffer(value)) throw new StorageError('InvalidArgument', 'value must be a Buffer');
  return value;
}

/** 0 would make etcd's "mod_revision == 0" compare succeed on an absent key: an update would create it. */
export function checkModRevision(expected: number): number {
  if (!Number.isSafeInteger(expected) || expected <= 0) throw new StorageError('InvalidArgument', `expected mod revision must be a positive integer, got ${expected}`);
  return expected;
}

export function checkWatchRevision(fromRevision: number): number {
  if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) throw new StorageError('InvalidArgument', `invalid watch revision ${fromRevision}`);
  return fromRevision;
}
