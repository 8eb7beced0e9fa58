/**
 * The Cacher of one resource type in one replica: lists the store once, then follows the
 * replica's registry watch (RegistryWatch), keeping the WatchCache current and fanning
 * events out to every client watcher. Reads that allow it are served from here (kube's
 * pkg/storage/cacher).
 */
import type { Storage, StorageWatchEvent } from '@windlass/storage';
import { tooLargeResourceVersion } from '../registry/freshness.js';
import { CachedObject, defaultAttrs, type AttrsFunc } from './cachedobject.js';
import { CacheWatcher, type WatchFilter, type WatchOutput } from './cachewatcher.js';
import { CacheEvent, WatchCache, type Tree, type WatchCacheOptions } from './watchcache.js';
import { RegistryWatch, type RegistryWatchTarget } from './registrywatch.js';

export interface CacherOptions extends WatchCacheOptions {
  bookmarkIntervalMs: number;
  /** How long a read waits for the cache to reach a requested revision before 504. */
  freshnessTimeoutMs: number;
  /** How long a consistent read waits for the cache before reading the store instead. */
  consistencyWaitMs: number;
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
  consistencyWaitMs: 1_000,
  maxWatcherBufferedBytes: 16 * 1024 * 1024,
  restartDelayMs: 200,
};

const initialListPageSize = 1000;
/** Writes whose events are still on their way; far more than a replica has in flight. */
const maxRecentWrites = 10_000;

interface FreshWaiter {
  revision: number;
  resolve: () => void;
}

export class Cacher implements RegistryWatchTarget {
  readonly cache: WatchCache;
  /** The replica's one storage watch; a Cacher made alone gets one of its own over its prefix. */
  readonly registry: RegistryWatch;
  private watchers = new Set<CacheWatcher>();
  private waiters: FreshWaiter[] = [];
  private ready?: Promise<void>;
  /** Objects this replica wrote, by key, until their event arrives: decoded and encoded once for both. */
  private recent = new Map<string, CachedObject>();
  /** Events that arrive while the initial list is read; applied once it is in. */
  private pending?: StorageWatchEvent[];
  /** The cache holds the store's state and follows the registry watch. */
  private isLive = false;
  private stopped = false;
  private bookmarkTimer?: NodeJS.Timeout;
  /** Bumped on every (re)initialisation, so a superseded list is dropped. */
  private generation = 0;
  /** Counts kube's watch-cache metrics report (read at scrape time). */
  readonly stats = { initializations: 0, initEvents: 0, eventsReceived: 0, eventsDispatched: 0 };

  constructor(
    readonly prefix: string,
    readonly storage: Storage,
    readonly opts: CacherOptions = defaultCacherOptions,
    registry?: RegistryWatch,
    /** The labels and fields selectors of this kind look at. */
    readonly attrsOf: AttrsFunc = defaultAttrs,
  ) {
    this.cache = new WatchCache(opts);
    this.registry = registry ?? new RegistryWatch(storage, prefix, { consistencyWaitMs: opts.consistencyWaitMs });
    this.registry.add(this);
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

  /**
   * Lists the prefix at the revision the registry watch has dispatched up to, buffering this
   * type's events that arrive meanwhile: every later change then comes from the stream, so
   * a type can join a running registry watch at any time (as custom resources will).
   */
  private async init(): Promise<void> {
    const gen = ++this.generation;
    this.isLive = false;
    await this.registry.whenStarted();
    if (gen !== this.generation) return;
    const at = this.registry.revision;
    const pending: StorageWatchEvent[] = [];
    this.pending = pending;
    // The initial list is read in pages at one revision, so no single response grows with the data.
    const items: CachedObject[] = [];
    let startKey: string | undefined;
    try {
      for (;;) {
        const res = await this.storage.range(this.prefix, { prefix: true, revision: at, limit: initialListPageSize, startKey });
        for (const kv of res.items) items.push(CachedObject.fromStored(kv.key, kv.modRevision, kv.value, this.attrsOf));
        if (!res.more || res.items.length === 0) break;
        startKey = res.items[res.items.length - 1].key + '\u0000';
      }
    } finally {
      if (this.pending === pending) this.pending = undefined;
    }
    if (gen !== this.generation) return;
    this.cache.reset(items, at);
    this.stats.initializations++;
    this.stats.initEvents += items.length;
    this.isLive = true;
    const now = Date.now();
    for (const ev of pending) this.apply(ev, now);
    this.progress(this.registry.revision);
    if (!this.bookmarkTimer) {
      this.bookmarkTimer = setInterval(() => this.sendBookmarks(), Math.min(1000, this.opts.bookmarkIntervalMs));
      this.bookmarkTimer.unref();
    }
  }

  /** The cache holds the store's state and follows the registry watch. */
  get live(): boolean {
    return this.isLive;
  }

  receive(ev: StorageWatchEvent, now: number): void {
    if (this.pending) this.pending.push(ev);
    else if (this.isLive) this.apply(ev, now);
  }

  /**
   * The cache's object for `key` when it is the one stored at `revision`: on etcd a write's
   * own event often arrives before the write's answer, and the write then answers with the
   * object its event made rather than encoding a second copy.
   */
  appliedWrite(key: string, revision: number): CachedObject | undefined {
    if (!this.isLive) return undefined;
    const obj = this.cache.tree.get(key);
    return obj?.revision === revision ? obj : undefined;
  }

  /**
   * The object a write of this replica stored at `cached.revision`: its event then reuses it
   * instead of decoding the stored bytes. Bounded, since an event may never come (a restart).
   * Not kept once the cache is past that revision: its event came first and will not come
   * again, and the entry would pin a second copy of the object until the map is cleared.
   */
  wrote(cached: CachedObject): void {
    if (!this.isLive || this.cache.resourceVersion >= cached.revision) return;
    if (this.recent.size >= maxRecentWrites) this.recent.clear();
    this.recent.set(cached.key, cached);
  }

  private apply(sev: StorageWatchEvent, now: number): void {
    const prev = this.cache.tree.get(sev.key) ?? (sev.prevValue ? CachedObject.fromStored(sev.key, sev.prevModRevision ?? 0, sev.prevValue, this.attrsOf) : undefined);
    let ev: CacheEvent;
    const recent = this.recent.get(sev.key);
    if (recent && recent.revision <= sev.revision) this.recent.delete(sev.key);
    if (sev.type === 'DELETE') {
      if (!prev) return;
      ev = new CacheEvent('DELETED', sev.revision, sev.key, prev.atRevision(sev.revision), prev, now);
    } else {
      const obj = recent?.revision === sev.revision ? recent : CachedObject.fromStored(sev.key, sev.revision, sev.value, this.attrsOf);
      ev = new CacheEvent(prev ? 'MODIFIED' : 'ADDED', sev.revision, sev.key, obj, prev, now);
    }
    this.cache.apply(ev);
    this.stats.eventsReceived++;
    if (this.watchers.size === 0) return;
    this.stats.eventsDispatched++;
    ev.holdEventLines();
    for (const w of this.watchers) {
      w.process(ev);
      if (w.closed) this.watchers.delete(w);
    }
    ev.dropEventLines();
  }

  progress(revision: number): void {
    if (!this.isLive) return;
    this.cache.progress(revision);
    this.wakeWaiters();
  }

  /** The registry watch broke (compaction, lost connection): drop every watcher and list again. */
  restart(): void {
    this.generation++;
    this.isLive = false;
    this.pending = undefined;
    this.recent.clear();
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
    this.registry.requestProgress();
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
   * For a consistent ("Most Recent") read: a revision at least as new as every write
   * acknowledged before the call, once this cache has applied it (RegistryWatch); null when
   * the cache did not get there in time: such reads go to the store.
   */
  async consistentRevision(): Promise<number | null> {
    await this.whenReady();
    const rev = await this.registry.consistentRevision();
    return rev !== null && this.isLive ? rev : null;
  }

  /**
   * The current state and the revision it is at. `paged`: the state is recorded as a snapshot,
   * so the list's continuations (at this revision) find it; otherwise the live tree, which
   * serving a page reads synchronously, before any event can change it.
   */
  current(paged: boolean): { tree: Tree; revision: number } {
    return { tree: paged ? this.cache.snapshot() : this.cache.tree, revision: this.cache.resourceVersion };
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
    // A registry watch of its own ends with it; a shared one ends with the server.
    if (this.registry.prefix === this.prefix) this.registry.stop();
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
