import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The revision log, after kine: every write appends one row whose id is the store
 * revision it created. The newest row of a key with id <= R is the key's state at R;
 * `deleted` rows are tombstones. `old_value` keeps the previous value on the row so a
 * watch replay can deliver prevKv even after compaction removed the older row.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB NOT NULL,
  old_value BLOB
);
-- (name, id) serves "newest row per key at R in key order"; deleted makes it covering for counts.
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id, deleted);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
`;

export function openDatabase(path: string): Database.Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(inMemory ? ':memory:' : path);
  if (!inMemory) {
    db.pragma('journal_mode = WAL');
    // FULL fsyncs the WAL on every commit: an acknowledged write survives a crash.
    db.pragma('synchronous = FULL');
  }
  // better-sqlite3 builds SQLite with a 16 MB page cache. The watch cache above serves the
  // reads, so those pages would only hold a second copy of the objects: up to 16 MB of RSS.
  // SQLite's own default (2 MB) keeps the pages a write touches (the kv tail, the key index).
  db.pragma('cache_size = -2000');
  db.transaction(() => {
    db.exec(SCHEMA);
    // A fresh etcd cluster is at revision 1 with no keys; AUTOINCREMENT continues from
    // sqlite_sequence, so seeding it with 1 makes the first write revision 2, as in etcd.
    db.prepare(`INSERT INTO sqlite_sequence (name, seq) SELECT 'kv', 1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'kv')`).run();
    db.prepare(`INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0)`).run();
  }).immediate();
  return db;
}
