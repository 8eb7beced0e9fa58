import { StorageError, prefixEnd } from './types.js';

/**
 * A key range as etcd understands it: `end` undefined is the single key `start`;
 * `end` '\0' means "every key >= start" (what prefixEnd('') yields).
 */
export interface KeyRange {
  start: string;
  end?: string;
}

export const UNBOUNDED = '\0';

/** The range a `range()` call reads: one key, or everything under a prefix. */
export function readRange(key: string, prefix: boolean | undefined): KeyRange {
  return prefix ? { start: key, end: prefixEnd(key) } : { start: key };
}

/** The range a `watch()` call covers: a trailing '/' makes it a prefix watch (storage contract). */
export function watchRange(keyOrPrefix: string): KeyRange {
  return keyOrPrefix.endsWith('/') ? { start: keyOrPrefix, end: prefixEnd(keyOrPrefix) } : { start: keyOrPrefix };
}

/**
 * JS string comparison is by UTF-16 code unit, SQLite's and etcd's by UTF-8 byte; they
 * agree except between astral characters and U+E000..U+FFFF, which Kubernetes keys
 * (DNS names, ASCII) never contain.
 */
export function inRange(key: string, r: KeyRange): boolean {
  if (r.end === undefined) return key === r.start;
  return key >= r.start && (r.end === UNBOUNDED || key < r.end);
}

/** Narrow a read range to begin at `startKey`, which must lie inside it. */
export function withStartKey(r: KeyRange, startKey: string | undefined): KeyRange {
  if (startKey === undefined || startKey === r.start) return r;
  if (r.end === undefined || !inRange(startKey, r)) {
    throw new StorageError('InvalidArgument', `startKey ${JSON.stringify(startKey)} is outside the range`, { key: startKey });
  }
  return { start: startKey, end: r.end };
}
