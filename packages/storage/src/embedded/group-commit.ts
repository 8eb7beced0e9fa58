import type Database from 'better-sqlite3';
import { StorageError } from '../types.js';
import type { NewRow, RevisionLog } from './log.js';
import { rowFor, type WriteOp } from './rows.js';

/** A write that got its revision. */
export interface Committed {
  id: number;
  row: NewRow;
}

/** What the committer needs from the store around each batch. */
export interface CommitTarget {
  /** The newest committed revision; a batch's revisions follow it. */
  revision(): number;
  /** Called once per batch after COMMIT, with its rows in revision order, before any write's promise settles. */
  committed(rows: Committed[]): void;
}

/**
 * Bounds on one transaction, so one batch neither holds the event loop for long nor
 * writes an unbounded WAL frame run; what is left waits for the next turn.
 */
export const MAX_BATCH_OPS = 1000;
export const MAX_BATCH_BYTES = 8 << 20;

interface Pending {
  op: WriteOp;
  size: number;
  resolve(c: Committed): void;
  reject(err: unknown): void;
}

/**
 * Group commit: better-sqlite3 runs synchronously in the event loop and synchronous=FULL
 * fsyncs every COMMIT, so one transaction per write caps the store at one fsync per write.
 * Writes submitted in the same turn of the event loop (say, the requests parsed from one
 * read of many sockets) instead share one IMMEDIATE transaction and one fsync. Each is
 * checked in arrival order against the state including the batch's earlier writes; a
 * failed compare fails alone and takes no revision. Nothing is acknowledged or published
 * before the COMMIT returns, so an acknowledged write survives kill -9 as before.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly tx: (batch: Pending[], first: number) => (Committed | StorageError)[];

  constructor(db: Database.Database, log: RevisionLog, private readonly target: CommitTarget) {
    const run = db.transaction((batch: Pending[], first: number) => {
      let id = first;
      const outcomes: (Committed | StorageError)[] = [];
      for (const { op } of batch) {
        const row = rowFor(op, log.latest(op.key, id - 1), id);
        if (row instanceof StorageError) {
          outcomes.push(row);
          continue;
        }
        // A throw here (disk full, I/O error) rolls the whole batch back.
        log.append(id, row);
        outcomes.push({ id, row });
        id++;
      }
      return outcomes;
    });
    this.tx = (batch, first) => run.immediate(batch, first);
  }

  submit(op: WriteOp): Promise<Committed> {
    const size = op.key.length + (op.kind === 'delete' ? 0 : op.value.length);
    return new Promise((resolve, reject) => {
      this.queue.push({ op, size, resolve, reject });
      this.schedule();
    });
  }

  /** Commit everything queued, now (before closing the database). */
  drain(): void {
    while (this.queue.length > 0) this.commit(this.take());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    this.commit(this.take());
    // The rest waits a turn, so reads and responses are served between batches.
    if (this.queue.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: it runs after the poll phase, so every write that the
    // I/O callbacks of this turn submit joins the batch.
    setImmediate(() => this.flush());
  }

  private take(): Pending[] {
    const q = this.queue;
    let n = 0;
    let bytes = 0;
    while (n < q.length && n < MAX_BATCH_OPS && (n === 0 || bytes + q[n].size <= MAX_BATCH_BYTES)) bytes += q[n++].size;
    if (n === q.length) {
      this.queue = [];
      return q;
    }
    return q.splice(0, n);
  }

  private commit(batch: Pending[]): void {
    let outcomes: (Committed | StorageError)[];
    try {
      outcomes = this.tx(batch, this.target.revision() + 1);
    } catch (err) {
      // Rolled back: no write of the batch happened, so none is published or acknowledged.
      for (const p of batch) p.reject(err);
      return;
    }
    const rows = outcomes.filter((o): o is Committed => !(o instanceof StorageError));
    if (rows.length > 0) this.target.committed(rows);
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i];
      if (o instanceof StorageError) batch[i].reject(o);
      else batch[i].resolve(o);
    }
  }
}
