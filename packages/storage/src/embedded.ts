import type Database from 'better-sqlite3';
import { checkKey, checkModRevision, checkValue, checkWatchRevision, compactedError, futureRevision } from './errors.js';
import { readRange, watchRange, withStartKey } from './keys.js';
import { RevisionLog, type LogRow, type NewRow, type StateRow } from './embedded/log.js';
import { openDatabase } from './embedded/schema.js';
import { WatchHub } from './embedded/watch-hub.js';
import {
  StorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchHandle,
  type WatchListener,
  type WatchOptions,
} from './types.js';

export interface EmbeddedStorageOptions {
  /** A SQLite file (its directory is created) or ':memory:'. */
  path: string;
  /** How often watches with progressNotify get a progress notification; 0 disables. Default 5000 ms. */
  progressIntervalMs?: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * The single-process backend: an MVCC revision log in SQLite (see embedded/schema.ts).
 * better-sqlite3 is synchronous, so each operation runs to completion before any other
 * JS runs; the IMMEDIATE transactions still make every compare-and-swap atomic on disk.
 *
 * Like etcd, an empty store is at revision 1 and the first write gets revision 2.
 */
export class EmbeddedStorage implements Storage {
  readonly name = 'embedded';
  /** Progress notifications are exact here: they are sent only after every earlier event. */
  readonly supportsProgressRequests = true;

  private readonly db: Database.Database;
  private readonly log: RevisionLog;
  private readonly hub: WatchHub;
  private rev: number;
  private compacted: number;
  private closed = false;
  private readonly writeTx: (key: string, build: (cur: LogRow | undefined, id: number) => NewRow) => { id: number; row: NewRow };
  private readonly compactTx: (revision: number) => void;

  constructor(opts: EmbeddedStorageOptions | string) {
    const { path, progressIntervalMs = 5000 } = typeof opts === 'string' ? { path: opts } : opts;
    this.db = openDatabase(path);
    this.log = new RevisionLog(this.db);
    this.rev = this.log.currentRevision();
    this.compacted = this.log.compactedRevision();
    this.hub = new WatchHub(
      {
        history: (from, to, limit) => this.log.history(from, to, limit),
        currentRevision: () => this.rev,
        compactedRevision: () => this.compacted,
      },
      progressIntervalMs,
    );
    const write = this.db.transaction((key: string, build: (cur: LogRow | undefined, id: number) => NewRow) => {
      const id = this.rev + 1;
      const row = build(this.log.latest(key, this.rev), id);
      this.log.append(id, row);
      return { id, row };
    });
    this.writeTx = (key, build) => write.immediate(key, build);
    const compact = this.db.transaction((revision: number) => this.log.compact(revision));
    this.compactTx = (revision) => compact.immediate(revision);
  }

  async range(key: string, opts: RangeOptions & { prefix?: boolean } = {}): Promise<RangeResult> {
    this.checkOpen();
    const revision = this.readRevision(opts.revision);
    const r = withStartKey(readRange(key, opts.prefix), opts.startKey);
    const count = this.log.count(r, revision);
    if (opts.countOnly) return { items: [], revision, count, more: false };
    const items = this.log.range(r, revision, opts.limit ?? 0).map(toKeyValue);
    return { items, revision, count, more: items.length < count };
  }

  async get(key: string, revision?: number): Promise<KeyValue | null> {
    this.checkOpen();
    const row = this.log.latest(key, this.readRevision(revision));
    return row && !row.deleted ? toKeyValue(row) : null;
  }

  async create(key: string, value: Buffer): Promise<KeyValue> {
    const v = copyValue(value);
    const { id, row } = this.write(checkKey(key), (cur, id) => {
      if (cur && !cur.deleted) throw new StorageError('KeyExists', `key ${key} already exists`, { key, current: toKeyValue(cur) });
      return { name: key, created: 1, deleted: 0, create_revision: id, prev_revision: cur?.id ?? 0, value: v, old_value: null };
    });
    return { key, value: row.value, createRevision: row.create_revision, modRevision: id };
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<KeyValue> {
    const v = copyValue(value);
    const { id, row } = this.write(checkKey(key), (cur) => {
      const live = expectLive(key, cur, checkModRevision(expectedModRevision));
      return { name: key, created: 0, deleted: 0, create_revision: live.create_revision, prev_revision: live.id, value: v, old_value: live.value };
    });
    return { key, value: row.value, createRevision: row.create_revision, modRevision: id };
  }

  async delete(key: string, expectedModRevision: number): Promise<{ deleted: KeyValue; revision: number }> {
    let deleted: KeyValue | undefined;
    const { id } = this.write(checkKey(key), (cur) => {
      const live = expectLive(key, cur, checkModRevision(expectedModRevision));
      deleted = toKeyValue(live);
      return { name: key, created: 0, deleted: 1, create_revision: live.create_revision, prev_revision: live.id, value: EMPTY, old_value: live.value };
    });
    return { deleted: deleted!, revision: id };
  }

  async watch(prefix: string, fromRevision: number, listener: WatchListener, opts: WatchOptions = {}): Promise<WatchHandle> {
    this.checkOpen();
    return this.hub.add(watchRange(checkKey(prefix)), checkWatchRevision(fromRevision), listener, !!opts.prevKv, !!opts.progressNotify);
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.rev;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.rev) throw futureRevision(revision, this.rev);
    if (revision <= this.compacted) throw compactedError(revision, this.compacted);
    this.compactTx(revision);
    this.compacted = revision;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.closeAll();
    this.db.close();
  }

  /** Commit one row, then (outside the transaction) advance the revision and tell the watchers. */
  private write(key: string, build: (cur: LogRow | undefined, id: number) => NewRow): { id: number; row: NewRow } {
    this.checkOpen();
    const result = this.writeTx(key, build);
    this.rev = result.id;
    this.hub.publish(result.id, result.row);
    return result;
  }

  private readRevision(revision: number | undefined): number {
    if (!revision || revision <= 0) return this.rev;
    if (revision > this.rev) throw futureRevision(revision, this.rev);
    if (revision < this.compacted) throw compactedError(revision, this.compacted);
    return revision;
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'embedded storage is closed');
  }
}

function toKeyValue(row: StateRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

function expectLive(key: string, cur: LogRow | undefined, expectedModRevision: number): LogRow {
  if (!cur || cur.deleted) throw new StorageError('NotFound', `key ${key} not found`, { key });
  if (cur.id !== expectedModRevision) {
    throw new StorageError('Conflict', `key ${key} was modified at revision ${cur.id}, expected ${expectedModRevision}`, { key, current: toKeyValue(cur) });
  }
  return cur;
}

/** Events share the stored buffer with every watcher, so it must not alias the caller's. */
function copyValue(value: Buffer): Buffer {
  return Buffer.from(checkValue(value));
}
