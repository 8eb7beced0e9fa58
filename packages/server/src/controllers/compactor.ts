/**
 * Keeps the store compacted, as kube-apiserver's etcd3 compactor does
 * (k8s.io/apiserver/pkg/storage/etcd3/compact.go): every interval, compact up to the
 * revision observed at the previous tick, so the last interval's history stays readable.
 *
 * Replicas on one store take turns through one key, `<registry prefix>/compact_rev_key`:
 * its value is the revision last compacted to (decimal), its modRevision the "compact
 * time" (kube compares the key's version; a modRevision changes on exactly the same
 * writes). A tick writes the key only if the compact time is still the one this replica
 * saw last; the replica whose write succeeds compacts, the others adopt the new compact
 * time and try again next interval. After a failover the interval is at most doubled.
 *
 * Kube's key is `compact_rev_key` at the root of etcd, outside --etcd-prefix; ours lives
 * under the registry prefix so deployments (and tests) sharing an etcd under different
 * prefixes keep separate turns, and so the etcd backend's revision probe, which reads
 * the root key, keeps reading a key nobody writes. A compaction is still etcd-wide:
 * another deployment's compactions only ever fail here with Compacted, which is ignored.
 *
 * Every replica also watches the key (kube's runWatchLoop), so it learns of compactions
 * made anywhere and can tell its caches to drop older history.
 */
import { isStorageError, type KeyValue, type Storage, type WatchHandle } from '@windlass/storage';

export const compactRevKey = 'compact_rev_key';

/** kube-apiserver's --etcd-compaction-interval default. */
export const defaultCompactionIntervalMs = 5 * 60 * 1000;

const watchRetryMs = 1000;

export function compactKey(registryPrefix: string): string {
  return `${registryPrefix}/${compactRevKey}`;
}

export interface CompactorOptions {
  storage: Storage;
  /** The coordination key, compactKey(prefix). */
  key: string;
  /** 0 disables periodic compaction; compactTo() and the watch of the key still work. */
  intervalMs: number;
  /**
   * The store is compacted, or a replica has committed to compacting it, up to this
   * revision. Called with increasing revisions only.
   */
  onCompacted?: (revision: number) => void;
}

export class Compactor {
  /** The key's modRevision when this replica last saw it; 0 while the key is absent. */
  private compactTime = 0;
  /** The store revision at the previous tick: what the next winning tick compacts to. */
  private previousRevision = 0;
  private reported = 0;
  private timer?: NodeJS.Timeout;
  private watchRetry?: NodeJS.Timeout;
  private watchHandle?: WatchHandle;
  private stopped = false;

  constructor(private opts: CompactorOptions) {}

  /** Starts the periodic loop and, before resolving, the watch of the key. */
  async start(): Promise<void> {
    this.schedule();
    await this.watchKey();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchRetry);
    this.watchHandle?.close();
    this.watchHandle = undefined;
  }

  get storage(): Storage {
    return this.opts.storage;
  }

  /** The highest compacted revision this replica knows of (0: none). */
  get compactedRevision(): number {
    return this.reported;
  }

  /**
   * One turn of the periodic loop. Returns the revision compacted to, or 0 when this
   * replica did not compact (first turn, another replica's turn, or already compacted).
   */
  async tick(): Promise<number> {
    const { storage, key } = this.opts;
    const target = this.previousRevision;
    const value = Buffer.from(String(target));
    let written: KeyValue;
    try {
      written = this.compactTime === 0 ? await storage.create(key, value) : await storage.update(key, value, this.compactTime);
    } catch (err) {
      if (!isStorageError(err, 'KeyExists') && !isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
      const now = await storage.range(key);
      this.compactTime = now.items[0]?.modRevision ?? 0;
      this.previousRevision = now.revision;
      return 0;
    }
    this.compactTime = written.modRevision;
    this.previousRevision = written.modRevision;
    // The first turn only records a starting point, as kube does not compact on bootstrap.
    if (target === 0) return 0;
    try {
      await storage.compact(target);
    } catch (err) {
      if (isStorageError(err, 'Compacted')) return 0;
      throw err;
    }
    this.report(target);
    return target;
  }

  /**
   * Compacts up to `revision` now. Throws the storage's Compacted or FutureRevision error
   * when it is at or below the compacted revision, or above the current one.
   */
  async compactTo(revision: number): Promise<void> {
    await this.opts.storage.compact(revision);
    await this.record(revision);
    this.report(revision);
  }

  /**
   * Writes an on-demand compaction into the key so other replicas hear of it; it also
   * moves the compact time, which postpones every replica's next periodic compaction by
   * one interval, keeping at least an interval of history after this one.
   */
  private async record(revision: number): Promise<void> {
    const { storage, key } = this.opts;
    const value = Buffer.from(String(revision));
    for (;;) {
      const kv = await storage.get(key);
      if (kv && parseRevision(kv.value) >= revision) return;
      try {
        if (kv) await storage.update(key, value, kv.modRevision);
        else await storage.create(key, value);
        return;
      } catch (err) {
        if (!isStorageError(err, 'KeyExists') && !isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
      }
    }
  }

  private schedule(): void {
    if (this.stopped || this.opts.intervalMs <= 0) return;
    this.timer = setTimeout(() => {
      this.tick().catch((err) => {
        if (!this.stopped) console.error(`compaction of ${this.opts.storage.name} storage failed, will retry next interval:`, err);
      }).finally(() => this.schedule());
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  private async watchKey(): Promise<void> {
    const { storage, key } = this.opts;
    try {
      const now = await storage.range(key);
      if (now.items[0]) this.report(parseRevision(now.items[0].value));
      const handle = await storage.watch(key, now.revision + 1, {
        events: (events) => {
          for (const ev of events) if (ev.type === 'PUT') this.report(parseRevision(ev.value));
        },
        error: (err) => {
          this.watchHandle = undefined;
          this.retryWatch(err);
        },
      });
      if (this.stopped) handle.close();
      else this.watchHandle = handle;
    } catch (err) {
      this.retryWatch(err);
    }
  }

  private retryWatch(err: unknown): void {
    if (this.stopped) return;
    console.error(`watch of ${this.opts.key} failed, will retry:`, err);
    this.watchRetry = setTimeout(() => void this.watchKey(), watchRetryMs);
    this.watchRetry.unref();
  }

  private report(revision: number): void {
    if (!(revision > this.reported)) return;
    this.reported = revision;
    this.opts.onCompacted?.(revision);
  }
}

/** The key's value; 0 (ignored) for the bootstrap turn's "0" or anything unreadable. */
function parseRevision(value: Buffer): number {
  const n = Number(value.toString('utf8'));
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
