import type Database from 'better-sqlite3';
import { checkKey, checkModRevision, checkValue, checkWatchRevision, compactedError, futureRevision } from './errors.js';
import { readRange, watchRange, withStartKey } from './keys.js';
import { GroupCommit, type Committed } from './embedded/group-commit.js';
import { RevisionLog } from './embedded/log.js';
import { toKeyValue, type WriteOp } from './embedded/rows.js';
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

/**
 * The single-process backend: an MVCC revision log in SQLite (see embedded/schema.ts).
 * better-sqlite3 is synchronous, so each read runs to completion before any other JS
 * runs. Writes are queued and committed in groups, one IMMEDIATE transaction and one
 * fsync per turn of the event loop (embedded/group-commit.ts); reads and watches see a
 * write only once its batch has committed.
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
  private readonly writer: GroupCommit;
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
    this.writer = new GroupCommit(this.db, this.log, {
      revision: () => this.rev,
      committed: (rows) => {
        // Reads and new watches see the batch from here on, and every row is queued for
        // the watchers before any writer is answered.
        this.rev = rows[rows.length - 1].id;
        for (const { id, row } of rows) this.hub.publish(id, row);
      },
    });
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
    const { id, row } = await this.write({ kind: 'create', key: checkKey(key), value: copyValue(value) });
    return { key, value: row.value, createRevision: row.create_revision, modRevision: id };
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<KeyValue> {
    const op = { kind: 'update', key: checkKey(key), value: copyValue(value), expected: checkModRevision(expectedModRevision) } as const;
    const { id, row } = await this.write(op);
    return { key, value: row.value, createRevision: row.create_revision, modRevision: id };
  }

  async delete(key: string, expectedModRevision: number): Promise<{ deleted: KeyValue; revision: number }> {
    const { id, row } = await this.write({ kind: 'delete', key: checkKey(key), expected: checkModRevision(expectedModRevision) });
    // A delete's row keeps the key's last state: its value, create revision and predecessor.
    return { deleted: { key, value: row.old_value!, createRevision: row.create_revision, modRevision: row.prev_revision }, revision: id };
  }

  async watch(prefix: string, fromRevision: number, listener: WatchListener, opts: WatchOptions = {}): Promise<WatchHandle> {
    this.checkOpen();
    return this.hub.add(watchRange(checkKey(prefix)), checkWatchRevision(fromRevision), listener, !!opts.prevKv, !!opts.progressNotify);
  }

  async currentRevision(): Promise<number> {
    return this.currentRevisionNow();
  }

  /** Writes are acknowledged only after their batch's COMMIT set this.rev (group-commit.ts). */
  currentRevisionNow(): number {
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

  /**
   * Writes already submitted are committed first (their promises settle as usual): a
   * caller holding a promise for a write it was allowed to make gets its real outcome.
   * Writes submitted after close() are refused with Unavailable.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writer.drain();
    this.hub.closeAll();
    this.db.close();
  }

  /** Queue a write for the next group commit (embedded/group-commit.ts). */
  private write(op: WriteOp): Promise<Committed> {
    this.checkOpen();
    return this.writer.submit(op);
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

/** Events share the stored buffer with every watcher, so it must not alias the caller's. */
function copyValue(value: Buffer): Buffer {
  return Buffer.from(checkValue(value));
}
