import { StorageError, type KeyValue } from '../types.js';
import type { LogRow, NewRow, StateRow } from './log.js';

const EMPTY = Buffer.alloc(0);

/** A write waiting for its batch; its arguments are already validated. */
export type WriteOp =
  | { kind: 'create'; key: string; value: Buffer }
  | { kind: 'update'; key: string; value: Buffer; expected: number }
  | { kind: 'delete'; key: string; expected: number };

export function toKeyValue(row: StateRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

/**
 * The row `op` appends as revision `id`, given the key's newest row (which may have been
 * written earlier in the same batch), or the StorageError of its failed compare. Failures
 * are returned, not thrown, so only an unexpected error (from SQLite) aborts a batch.
 */
export function rowFor(op: WriteOp, cur: LogRow | undefined, id: number): NewRow | StorageError {
  const { key } = op;
  if (op.kind === 'create') {
    if (cur && !cur.deleted) return new StorageError('KeyExists', `key ${key} already exists`, { key, current: toKeyValue(cur) });
    return { name: key, created: 1, deleted: 0, create_revision: id, prev_revision: cur?.id ?? 0, value: op.value, old_value: null };
  }
  if (!cur || cur.deleted) return new StorageError('NotFound', `key ${key} not found`, { key });
  if (cur.id !== op.expected) {
    return new StorageError('Conflict', `key ${key} was modified at revision ${cur.id}, expected ${op.expected}`, { key, current: toKeyValue(cur) });
  }
  const value = op.kind === 'update' ? op.value : EMPTY;
  return { name: key, created: 0, deleted: op.kind === 'delete' ? 1 : 0, create_revision: cur.create_revision, prev_revision: cur.id, value, old_value: cur.value };
}
