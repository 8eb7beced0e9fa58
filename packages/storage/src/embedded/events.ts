import type { StorageWatchEvent } from '../types.js';
import type { LogRow, NewRow } from './log.js';

const EMPTY = Buffer.alloc(0);

/**
 * The watch event a log row stands for. DELETE events carry createRevision 0 and an
 * empty value, as etcd's do; prevKv exists only when the key existed before the write
 * (a create after a delete has none, as in etcd).
 */
export function rowToEvent(id: number, row: NewRow | LogRow, prevKv: boolean): StorageWatchEvent {
  const deleted = row.deleted === 1;
  const ev: StorageWatchEvent = {
    type: deleted ? 'DELETE' : 'PUT',
    key: row.name,
    revision: id,
    value: deleted ? EMPTY : row.value,
    createRevision: deleted ? 0 : row.create_revision,
  };
  if (prevKv && row.created === 0 && row.old_value) {
    ev.prevValue = row.old_value;
    ev.prevModRevision = row.prev_revision;
  }
  return ev;
}
