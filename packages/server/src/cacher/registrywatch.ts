/**
 * One storage watch per replica over the whole registry prefix, feeding every resource
 * type's Cacher. Because every key Windlass writes lies under the prefix (objects and the
 * compactor's compact_rev_key), every store revision shows up on this one stream, so the
 * revision dispatched so far is the store's revision as far as this replica has seen it —
 * not only its own type's. That makes consistent reads cheap on every etcd version: read the
 * store's current revision (one coalesced round trip, RevisionReader), wait until the stream
 * has dispatched it, serve from the cache. No reliance on progress requests, which etcd
 * before 3.4.31/3.5.13 does not answer reliably (etcd issue 15220).
 */
import { isStorageError, type Storage, type StorageWatchEvent, type WatchHandle } from '@windlass/storage';
import { RevisionReader } from './revisionreader.js';

/** What the registry watch needs of a resource type's cache. */
export interface RegistryWatchTarget {
  /** The resource's key prefix, ending with '/'. */
  readonly prefix: string;
  /** A change of one of its keys, in revision order. */
  receive(ev: StorageWatchEvent, now: number): void;
  /** Every change up to `revision` has been dispatched. */
  progress(revision: number): void;
  /** The stream broke: drop watchers and list again. */
  restart(): void;
}

export interface RegistryWatchOptions {
  /**
   * How long a consistent read waits for the stream to reach the store's revision before
   * the caller reads the store instead. Only a write outside the prefix (another program
   * sharing etcd) or a lagging stream makes it wait at all.
   */
  consistencyWaitMs: number;
}

interface Waiter {
  revision: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

export class RegistryWatch {
  readonly revisions: RevisionReader;
  /** Every change under the prefix with a revision up to this one has been dispatched. */
  revision = 0;
  private readonly targets = new Map<string, RegistryWatchTarget>();
  private handle?: WatchHandle;
  private started?: Promise<void>;
  /** Bumped on every (re)start, so a broken stream's late callbacks are ignored. */
  private generation = 0;
  private waiters: Waiter[] = [];
  private stopped = false;

  constructor(readonly storage: Storage, readonly prefix: string, readonly opts: RegistryWatchOptions = { consistencyWaitMs: 1000 }) {
    if (!prefix.endsWith('/')) throw new Error(`registry watch prefix must end with '/': ${prefix}`);
    this.revisions = new RevisionReader(storage);
  }

  /** Stops feeding a target (the watch cache of a custom resource whose CRD went away). */
  remove(prefix: string): void {
    this.targets.delete(prefix);
  }

  add(target: RegistryWatchTarget): void {
    if (!target.prefix.startsWith(this.prefix)) throw new Error(`${target.prefix} is outside the registry prefix ${this.prefix}`);
    this.targets.set(target.prefix, target);
  }

  /** Opens the storage watch once (again after a break); every Cacher's list waits for it. */
  whenStarted(): Promise<void> {
    if (!this.started) {
      const started = this.start();
      this.started = started;
      started.catch(() => { if (this.started === started) this.started = undefined; });
    }
    return this.started;
  }

  private async start(): Promise<void> {
    if (this.stopped) throw new Error('registry watch stopped');
    const gen = ++this.generation;
    const rev = await this.storage.currentRevision();
    if (gen !== this.generation) throw new Error('registry watch restarted');
    await this.open(gen, rev + 1);
    // Dispatch only moves forward; a restart re-lists every type at the new revision.
    this.revision = Math.max(this.revision, rev);
  }

  private async open(gen: number, from: number): Promise<void> {
    // No prevKv: the cache holds every key's previous state itself, and old values would
    // double what an update's event costs to receive and decode. Progress notifications
    // only where they are exact: etcd before 3.4.31/3.5.13 may send one ahead of events.
    const handle = await this.storage.watch(this.prefix, from, {
      events: (evs) => { if (gen === this.generation) this.dispatch(evs); },
      progress: (r) => { if (gen === this.generation) this.advance(r); },
      error: (err) => { if (gen === this.generation) this.broken(err); },
    }, { progressNotify: this.storage.supportsProgressRequests !== false });
    if (gen !== this.generation) {
      handle.close();
      throw new Error('registry watch restarted');
    }
    this.handle = handle;
  }

  /** The Cacher whose prefix holds `key`: `<prefix><resource>/…` or `<prefix><group>/<resource>/…` (or a Cacher watching alone). */
  private route(key: string): RegistryWatchTarget | undefined {
    const whole = this.targets.get(this.prefix);
    if (whole) return whole;
    const first = key.indexOf('/', this.prefix.length);
    if (first < 0) return undefined;
    const one = this.targets.get(key.slice(0, first + 1));
    if (one) return one;
    const second = key.indexOf('/', first + 1);
    return second < 0 ? undefined : this.targets.get(key.slice(0, second + 1));
  }

  private dispatch(evs: StorageWatchEvent[]): void {
    const now = Date.now();
    for (const ev of evs) this.route(ev.key)?.receive(ev, now);
    this.advance(evs[evs.length - 1].revision);
  }

  private advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    for (const t of this.targets.values()) t.progress(revision);
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= revision) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else {
        still.push(w);
      }
    }
    this.waiters = still;
  }

  /**
   * A lost connection is resumed from the next revision on another stream, caches and
   * client watches untouched (etcd still has that history); only when the history is gone
   * (compacted) does every type list again, and its watchers re-watch.
   */
  private broken(err: Error): void {
    if (!isStorageError(err, 'Compacted') && !isStorageError(err, 'Unavailable')) console.error(`registry watch ${this.prefix}: failed:`, err);
    const gen = ++this.generation;
    this.handle?.close();
    this.handle = undefined;
    if (isStorageError(err, 'Unavailable') && !this.stopped) {
      this.started = this.resume(gen, this.revision + 1);
      this.started.catch(() => undefined);
      return;
    }
    this.relistAll();
  }

  private relistAll(): void {
    this.started = undefined;
    for (const t of this.targets.values()) t.restart();
  }

  private async resume(gen: number, from: number): Promise<void> {
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      await new Promise((r) => setTimeout(r, delay));
      if (this.stopped || gen !== this.generation) throw new Error('registry watch restarted');
      try {
        return await this.open(gen, from);
      } catch (err) {
        if (gen !== this.generation) throw err;
        if (isStorageError(err, 'Compacted')) {
          this.generation++;
          this.relistAll();
          throw err;
        }
      }
    }
  }

  /** Asks the store for a progress notification (where its answer is exact). */
  requestProgress(): void {
    if (this.storage.supportsProgressRequests !== false) this.handle?.requestProgress();
  }

  /** Resolves true once `revision` is dispatched, false after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision) return Promise.resolve(true);
    this.requestProgress();
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        revision, resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * For a consistent read: a revision at least as new as every write acknowledged before the
   * call, once every Cacher has applied it; null when the stream did not get there in time
   * (the caller then reads the store, which is always right).
   */
  async consistentRevision(): Promise<number | null> {
    await this.whenStarted();
    const rev = await this.revisions.read();
    return (await this.waitFor(rev, this.opts.consistencyWaitMs)) ? rev : null;
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.handle?.close();
    this.handle = undefined;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters = [];
  }
}
