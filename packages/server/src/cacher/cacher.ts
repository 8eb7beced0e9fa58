/**
 * The Cacher of one resource type in one replica: lists the store once, then follows one
 * storage watch, keeping the WatchCache current and fanning events out to every client
 * watcher. Reads that allow it are served from here (kube's pkg/storage/cacher).
 */
import { isStorageError, type Storage, type StorageWatchEvent, type WatchHandle } from '@windlass/storage';
import { decodeFromStorage, decodeKeyValue } from '../registry/codec.js';
import { tooLargeResourceVersion } from '../registry/freshness.js';
import { CachedObject } from './cachedobject.js';
import { CacheWatcher, type WatchFilter, type WatchOutput } from './cachewatcher.js';
import { CacheEvent, WatchCache, type Tree, type WatchCacheOptions } from './watchcache.js';

export interface CacherOptions extends WatchCacheOptions {
  bookmarkIntervalMs: number;
  /** How long a read waits for the cache to reach a requested revision before 504. */
  freshnessTimeoutMs: number;
  maxWatcherBufferedBytes: number;
  restartDelayMs: number;
}

export const defaultCacherOptions: CacherOptions = {
  historyWindowMs: 5 * 60_000,
  snapshotWindowMs: 75_000,
  maxEvents: 100_000,
  maxSnapshots: 100_000,
  bookmarkIntervalMs: 60_000,
  freshnessTimeoutMs: 3_000,
  maxWatcherBufferedBytes: 16 * 1024 * 1024,
  restartDelayMs: 200,
};

const initialListPageSize = 1000;

interface FreshWaiter {
  revision: number;
  resolve: () => void;
}

export class Cacher {
  readonly cache: WatchCache;
  private watchers = new Set<CacheWatcher>();
  private waiters: FreshWaiter[] = [];
  private handle?: WatchHandle;
  private ready?: Promise<void>;
  private stopped = false;
  private bookmarkTimer?: NodeJS.Timeout;
  /** Bumped on every (re)initialisation, so a stale storage watch's callbacks are ignored. */
  private generation = 0;

  constructor(readonly prefix: string, readonly storage: Storage, readonly opts: CacherOptions = defaultCacherOptions) {
    this.cache = new WatchCache(opts);
  }

  /** Waits until the cache holds the store's state (the first time, and after a restart). */
  async whenReady(): Promise<void> {
    if (!this.ready) {
      const ready = this.init();
      this.ready = ready;
      // A failed first list (store unreachable) is retried by the next request.
      ready.catch(() => { if (this.ready === ready) this.ready = undefined; });
    }
    return this.ready;
  }

  private async init(): Promise<void> {
    const gen = ++this.generation;
    // The initial list is read in pages at one revision, so no single response grows with the data.
    const items: CachedObject[] = [];
    let revision = 0;
    let startKey: string | undefined;
    for (;;) {
      const res = await this.storage.range(this.prefix, { prefix: true, revision: revision || undefined, limit: initialListPageSize, startKey });
      revision = res.revision;
      for (const kv of res.items) items.push(new CachedObject(kv.key, kv.modRevision, decodeKeyValue(kv)));
      if (!res.more || res.items.length === 0) break;
      startKey = res.items[res.items.length - 1].key + '\u0000';
    }
    if (gen !== this.generation) return;
    this.cache.reset(items, revision);
    this.handle = await this.storage.watch(this.prefix, revision + 1, {
      events: (evs) => gen === this.generation && this.onEvents(evs),
      progress: (rev) => gen === this.generation && this.onProgress(rev),
      error: (err) => gen === this.generation && this.onError(err),
    }, { prevKv: true, progressNotify: true });
    if (!this.bookmarkTimer) {
      this.bookmarkTimer = setInterval(() => this.sendBookmarks(), Math.min(1000, this.opts.bookmarkIntervalMs));
      this.bookmarkTimer.unref();
    }
  }

  private onEvents(evs: StorageWatchEvent[]): void {
    const now = Date.now();
    for (const sev of evs) {
      const prev = this.cache.tree.get(sev.key) ?? (sev.prevValue ? new CachedObject(sev.key, sev.prevModRevision ?? 0, decodeFromStorage(sev.prevValue, sev.prevModRevision ?? 0)) : undefined);
      let ev: CacheEvent;
      if (sev.type === 'DELETE') {
        if (!prev) continue;
        ev = new CacheEvent('DELETED', sev.revision, sev.key, prev.atRevision(sev.revision), prev, now);
      } else {
        const obj = new CachedObject(sev.key, sev.revision, decodeFromStorage(sev.value, sev.revision));
        ev = new CacheEvent(prev ? 'MODIFIED' : 'ADDED', sev.revision, sev.key, obj, prev, now);
      }
      this.cache.apply(ev);
      for (const w of this.watchers) {
        w.process(ev);
        if (w.closed) this.watchers.delete(w);
      }
    }
    this.wakeWaiters();
  }

  private onProgress(revision: number): void {
    this.cache.progress(revision);
    this.wakeWaiters();
  }

  /** A broken storage watch (compaction, lost connection): drop every watcher and start over. */
  private onError(err: Error): void {
    if (!isStorageError(err, 'Compacted') && !isStorageError(err, 'Unavailable')) console.error(`cacher ${this.prefix}: watch failed:`, err);
    this.restart();
  }

  private restart(): void {
    this.generation++;
    this.handle?.close();
    this.handle = undefined;
    for (const w of this.watchers) w.close();
    this.watchers.clear();
    if (this.stopped) return;
    this.ready = this.initWithRetry();
    this.ready.catch(() => undefined);
  }

  private async initWithRetry(): Promise<void> {
    for (;;) {
      await new Promise((r) => setTimeout(r, this.opts.restartDelayMs));
      if (this.stopped) throw new Error('cacher stopped');
      try {
        return await this.init();
      } catch (err) {
        if (this.stopped) throw err;
      }
    }
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const rv = this.cache.resourceVersion;
    const remaining: FreshWaiter[] = [];
    for (const w of this.waiters) (w.revision <= rv ? w.resolve() : remaining.push(w));
    this.waiters = remaining;
  }

  /** Waits until the cache has seen `revision`; 504 "Too large resource version" after the timeout. */
  async waitUntilFresh(revision: number): Promise<void> {
    await this.whenReady();
    if (this.cache.resourceVersion >= revision) return;
    this.handle?.requestProgress();
    const fresh = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, this.opts.freshnessTimeoutMs);
      const waiter: FreshWaiter = { revision, resolve: () => { clearTimeout(timer); resolve(true); } };
      this.waiters.push(waiter);
    });
    if (!fresh) throw tooLargeResourceVersion(revision, this.cache.resourceVersion);
  }

  /**
   * For a consistent ("Most Recent") read: the store's current revision, once the cache has
   * caught up with it. Null when the store cannot report progress on demand (etcd before
   * 3.4.31/3.5.13): such reads must go to the store, as kube-apiserver does.
   */
  async consistentRevision(): Promise<number | null> {
    if (this.storage.supportsProgressRequests === false) return null;
    const rev = await this.storage.currentRevision();
    await this.waitUntilFresh(rev);
    return rev;
  }

  /** The current state and the revision it is at, as a snapshot no later event changes. */
  current(): { tree: Tree; revision: number } {
    return { tree: this.cache.tree.clone(), revision: this.cache.resourceVersion };
  }

  /**
   * Registers a watcher. Either it starts with the current state (`initial: true`, ADDED
   * events, then changes after the cache's revision) or with the events after `fromRevision`
   * (null when the history no longer reaches back: the caller answers 410).
   * Registration is synchronous, so no event falls between the start and the live stream.
   */
  watch(filter: WatchFilter, out: WatchOutput, start: { initial: true; afterInitial?: (revision: number) => void } | { initial: false; fromRevision: number }, bookmarks: boolean): CacheWatcher | null {
    let watcher: CacheWatcher;
    if (start.initial) {
      const revision = this.cache.resourceVersion;
      watcher = new CacheWatcher(filter, out, revision, bookmarks, this.opts.bookmarkIntervalMs, this.opts.maxWatcherBufferedBytes);
      const tree = this.cache.tree;
      const from = filter.prefix;
      const objects = filter.exactKey ? [tree.get(from)].filter((o): o is CachedObject => !!o) : rangeValues(tree, from);
      watcher.sendInitial(objects);
      start.afterInitial?.(revision);
    } else {
      const events = this.cache.eventsSince(start.fromRevision);
      if (events === null) return null;
      watcher = new CacheWatcher(filter, out, start.fromRevision, bookmarks, this.opts.bookmarkIntervalMs, this.opts.maxWatcherBufferedBytes);
      for (const ev of events) watcher.process(ev);
    }
    if (!watcher.closed) this.watchers.add(watcher);
    return watcher;
  }

  unregister(w: CacheWatcher): void {
    this.watchers.delete(w);
  }

  private sendBookmarks(): void {
    const now = Date.now();
    const rv = this.cache.resourceVersion;
    for (const w of this.watchers) {
      if (w.closed) this.watchers.delete(w);
      else if (w.bookmarks && now >= w.nextBookmarkAt) w.sendBookmark(rv, now);
    }
  }

  /** Called after the store was compacted: older history and snapshots are no longer served. */
  compacted(revision: number): void {
    this.cache.compacted(revision);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    if (this.bookmarkTimer) clearInterval(this.bookmarkTimer);
    this.handle?.close();
    for (const w of this.watchers) w.close();
    this.watchers.clear();
  }
}

/** Values of every key under `prefix`, in key order. */
export function* rangeValues(tree: Tree, prefix: string, startKey?: string): Generator<CachedObject> {
  for (const [key, value] of tree.entries(startKey ?? prefix)) {
    if (!key.startsWith(prefix)) return;
    yield value;
  }
}
