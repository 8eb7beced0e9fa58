import type Database from 'better-sqlite3';
import { UNBOUNDED, type KeyRange } from '../keys.js';

/** One row of the revision log: the write that created revision `id`. */
export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: Buffer;
  old_value: Buffer | null;
}

export type NewRow = Omit<LogRow, 'id'>;

/** A row that is the state of its key at the read revision (from `range`). */
export type StateRow = Pick<LogRow, 'id' | 'name' | 'create_revision' | 'value'>;

/**
 * The SQL of the revision log, one prepared statement per question. It knows nothing
 * about compare-and-swap or revisions' validity: EmbeddedStorage decides, the log answers.
 */
export class RevisionLog {
  private readonly stmts = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** AUTOINCREMENT's high-water mark survives compaction deleting the newest tombstones. */
  currentRevision(): number {
    const row = this.stmt(`SELECT seq FROM sqlite_sequence WHERE name = 'kv'`).get() as { seq: number } | undefined;
    return row?.seq ?? 1;
  }

  compactedRevision(): number {
    const row = this.stmt(`SELECT value FROM meta WHERE name = 'compact_revision'`).get() as { value: number } | undefined;
    return row?.value ?? 0;
  }

  /** The newest row of `key` at or below `revision` (a tombstone when the key was deleted). */
  latest(key: string, revision: number): LogRow | undefined {
    return this.stmt(`SELECT * FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`).get(key, revision) as LogRow | undefined;
  }

  append(id: number, row: NewRow): void {
    this.stmt(
      `INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value, old_value)
       VALUES (@id, @name, @created, @deleted, @create_revision, @prev_revision, @value, @old_value)`,
    ).run({ id, ...row });
  }

  /**
   * Live keys in `r` at `revision`, in key order. Walking the (name, id) index in key
   * order and checking each row against its key's newest row at `revision` lets SQLite
   * stop after `limit` rows instead of grouping the whole range first.
   */
  range(r: KeyRange, revision: number, limit: number): StateRow[] {
    const sql = `SELECT id, name, create_revision, value FROM kv
      WHERE ${where(r)} AND id <= @rev AND deleted = 0
        AND id = (SELECT MAX(k2.id) FROM kv AS k2 WHERE k2.name = kv.name AND k2.id <= @rev)
      ORDER BY name LIMIT @limit`;
    return this.stmt(sql).all({ ...params(r), rev: revision, limit: limit > 0 ? limit : -1 }) as StateRow[];
  }

  /** How many keys in `r` are live at `revision` (index-only: the index covers `deleted`). */
  count(r: KeyRange, revision: number): number {
    const sql = `SELECT COUNT(*) AS n FROM (
        SELECT MAX(id) AS id, deleted FROM kv WHERE ${where(r)} AND id <= @rev GROUP BY name
      ) WHERE deleted = 0`;
    return (this.stmt(sql).get({ ...params(r), rev: revision }) as { n: number }).n;
  }

  /** Rows with from <= id <= to, in revision order, at most `limit`. */
  history(from: number, to: number, limit: number): LogRow[] {
    return this.stmt(`SELECT * FROM kv WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?`).all(from, to, limit) as LogRow[];
  }

  /**
   * Drop what no read at or above `revision` can see: rows superseded by a newer row at
   * or below it, and tombstones below it. Every row's predecessor is `prev_revision`, so
   * only rows written since the previous compaction need looking at.
   */
  compact(revision: number): void {
    const previous = this.compactedRevision();
    this.stmt(`DELETE FROM kv WHERE id IN (SELECT prev_revision FROM kv WHERE id > ? AND id <= ? AND prev_revision > 0)`).run(previous, revision);
    this.stmt(`DELETE FROM kv WHERE deleted = 1 AND id >= ? AND id < ?`).run(previous, revision);
    this.stmt(`UPDATE meta SET value = ? WHERE name = 'compact_revision'`).run(revision);
  }
}

function where(r: KeyRange): string {
  if (r.end === undefined) return 'name = @start';
  return r.end === UNBOUNDED ? 'name >= @start' : 'name >= @start AND name < @end';
}

function params(r: KeyRange): Record<string, string> {
  return r.end === undefined || r.end === UNBOUNDED ? { start: r.start } : { start: r.start, end: r.end };
}
