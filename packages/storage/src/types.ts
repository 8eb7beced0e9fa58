/**
 * The storage contract (DESIGN.md, "Storage contract"): a key/value store with etcd's
 * MVCC semantics. Both backends implement it and pass the same contract suite.
 *
 * Keys are strings (UTF-8, compared bytewise like etcd); values are opaque bytes.
 * Revisions are the store's global, strictly increasing write counter: every
 * successful create/update/delete gets a new revision. A key's `modRevision` is
 * the revision of its last write, `createRevision` the revision that created it.
 */

export interface KeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}

export interface RangeOptions {
  /** Read the state as of this revision (0 or unset: current). Below the compacted revision: StorageError Compacted; above the current revision: FutureRevision. */
  revision?: number;
  /** At most this many items (0 or unset: no limit). */
  limit?: number;
  /** Start at this key (inclusive) instead of the beginning of the range; must lie within the range. */
  startKey?: string;
  /** Only count, return no items. */
  countOnly?: boolean;
}

export interface RangeResult {
  /** Items in key order. */
  items: KeyValue[];
  /** The store revision the read was served at (the requested one, or the current one). */
  revision: number;
  /** Number of keys in [startKey ?? rangeStart, rangeEnd) at that revision, ignoring limit. */
  count: number;
  /** True when `limit` cut the result short. */
  more: boolean;
}

export type WatchEventType = 'PUT' | 'DELETE';

export interface StorageWatchEvent {
  type: WatchEventType;
  key: string;
  /** The revision of this change. */
  revision: number;
  /** New value (PUT); for DELETE the value is empty. */
  value: Buffer;
  /** The key's create revision (PUT); 0 for DELETE, as in etcd's delete events. */
  createRevision: number;
  /** The previous value, when the key existed before this change and prevKv was requested. */
  prevValue?: Buffer;
  prevModRevision?: number;
}

export interface WatchListener {
  /** Events of one or more revisions, in revision order; never reordered, never repeated. */
  events(events: StorageWatchEvent[]): void;
  /** The store has advanced to `revision`: every event with revision <= it has been delivered. */
  progress?(revision: number): void;
  /** The watch ended with an error (Compacted when fromRevision is below the compacted revision). No more calls follow. */
  error(err: Error): void;
}

export interface WatchOptions {
  /** Deliver previous values with events. */
  prevKv?: boolean;
  /** Deliver progress notifications (periodically, and on requestProgress). */
  progressNotify?: boolean;
}

export interface WatchHandle {
  /** Ask the store to send a progress notification soon (etcd: progress_request). */
  requestProgress(): void;
  close(): void;
}

export interface Storage {
  /** Which backend this is ('etcd' | 'embedded'), for logs and metrics. */
  readonly name: string;
  /**
   * Whether a progress notification proves that every earlier event was delivered, so a
   * watch cache may serve consistent reads after one. false for etcd older than
   * 3.4.31 / 3.5.13 (etcd issue 15220): read from the store instead. Unset means true.
   */
  readonly supportsProgressRequests?: boolean;
  /**
   * Read one key (`prefix: false`) or every key starting with `key` (`prefix: true`).
   */
  range(key: string, opts?: RangeOptions & { prefix?: boolean }): Promise<RangeResult>;
  /** Read one key at the current (or given) revision; null when absent. */
  get(key: string, revision?: number): Promise<KeyValue | null>;
  /** Create the key; StorageError KeyExists if it exists. Returns the stored KeyValue. */
  create(key: string, value: Buffer): Promise<KeyValue>;
  /**
   * Compare-and-swap: write only if the key's modRevision equals `expectedModRevision`.
   * Mismatch: StorageError Conflict carrying the current KeyValue (or NotFound when absent).
   */
  update(key: string, value: Buffer, expectedModRevision: number): Promise<KeyValue>;
  /**
   * Compare-and-delete. Returns the deleted KeyValue (its last value and modRevision) and the
   * revision of the deletion. Mismatch: Conflict with the current KeyValue; absent: NotFound.
   */
  delete(key: string, expectedModRevision: number): Promise<{ deleted: KeyValue; revision: number }>;
  /**
   * Watch the key (or every key under `prefix` when it ends with '/') from `fromRevision`
   * (inclusive, as etcd's start_revision). fromRevision 0 means "from the next revision".
   * Below the compacted revision the listener's error() gets StorageError Compacted.
   */
  watch(prefix: string, fromRevision: number, listener: WatchListener, opts?: WatchOptions): Promise<WatchHandle>;
  /**
   * The current store revision, read linearizably. `waitMs` bounds how long the read waits for a
   * store it cannot reach (a health check's timeout); the store's own default otherwise.
   */
  currentRevision(opts?: { waitMs?: number }): Promise<number>;
  /**
   * The current revision without a round trip, where the store lives in this process: every
   * write acknowledged so far is at or below it. Absent where it takes a read (etcd).
   */
  currentRevisionNow?(): number;
  /** Drop history below `revision`. Reads/watches below it then fail with Compacted. */
  compact(revision: number): Promise<void>;
  /** The revision the store was last compacted at (0 if never). */
  compactedRevision(): Promise<number>;
  close(): Promise<void>;
}

export type StorageErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Unavailable' | 'InvalidArgument';

/** An Error without a stack trace unless asked: see StorageError. */
class OptionalStackError extends Error {
  constructor(message: string, captureStack: boolean) {
    const limit = Error.stackTraceLimit;
    if (!captureStack) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/**
 * Only Unavailable is a fault worth a stack trace; the other codes are a store's ordinary
 * answers (a lost compare-and-swap, a missing key), made often, and recording a stack costs
 * V8 ~10 µs per error.
 */
export class StorageError extends OptionalStackError {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly details: { key?: string; current?: KeyValue; compactedRevision?: number; currentRevision?: number } = {},
  ) {
    super(message, code === 'Unavailable');
    this.name = 'StorageError';
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

/** The end of a prefix range, as etcd computes it: the prefix with its last character incremented. */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\0';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
