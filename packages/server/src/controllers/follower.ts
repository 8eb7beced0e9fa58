/**
 * A controller's view of some stores' changes, from their watch caches (kube's informer event
 * handlers): `event` gets each change, `attached` runs whenever a watcher was (re)attached. A
 * cache that restarts closes its watchers; every `intervalMs` a store without a live watcher
 * gets a new one, and `attached` runs, for what changed while none followed.
 */
import type { CachedObject } from '../cacher/cachedobject.js';
import type { CacheEventType } from '../cacher/watchcache.js';
import type { CacheWatcher } from '../cacher/cachewatcher.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';

export interface FollowOptions {
  event?: (store: Store, type: CacheEventType, o: CachedObject) => void;
  attached?: () => void;
  /** Start from the initial state (every object as ADDED) rather than from the cache's revision. */
  initial?: boolean;
  /** Default 1 s. */
  intervalMs?: number;
}

const noBytes = Buffer.alloc(0);

/** The objects of a store's watch cache under `prefix` (default: all of the store's), in key order. */
export function* cachedObjects(store: Store | undefined, prefix = store?.resourcePrefix ?? ''): Generator<KubeObject> {
  const cacher = store?.cacher;
  if (!cacher) return;
  for (const [key, v] of cacher.cache.tree.entries(prefix)) {
    if (!key.startsWith(prefix)) break;
    yield v.object;
  }
}

export class StoreFollower {
  private readonly watchers = new Map<Store, CacheWatcher | null>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly stores: () => (Store | undefined)[], private readonly o: FollowOptions) {}

  start(): void {
    this.attach();
    this.timer = setInterval(() => this.attach(), this.o.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const [store, w] of this.watchers) {
      if (!w) continue;
      w.close();
      store.cacher?.unregister(w);
    }
    this.watchers.clear();
  }

  private attach(): void {
    if (this.stopped) return;
    let attached = false;
    for (const store of this.stores()) {
      const cacher = store?.cacher;
      const current = store && this.watchers.get(store);
      if (!store || !cacher?.live || (current && !current.closed)) continue;
      const out = {
        encode: (type: CacheEventType, o: CachedObject) => {
          this.o.event?.(store, type, o);
          return noBytes;
        },
        bookmark: () => noBytes, write: () => undefined, buffered: () => 0, close: () => undefined,
      };
      const start = this.o.initial ? { initial: true as const } : { initial: false as const, fromRevision: cacher.cache.resourceVersion };
      this.watchers.set(store, cacher.watch({ prefix: store.resourcePrefix, exactKey: false, matches: () => true }, out, start, false));
      attached = true;
    }
    if (attached) this.o.attached?.();
  }
}
