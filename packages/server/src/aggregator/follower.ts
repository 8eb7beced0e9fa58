/**
 * Calls `changed` whenever an object of the given stores changes, from their watch caches
 * (controllers that look at the whole cache again on any change, as kube's do on informer
 * events). A cache that restarts closes its watchers: every second, a store without a live
 * watcher gets a new one, and `changed` runs, for what changed while none followed.
 */
import type { CacheWatcher } from '../cacher/cachewatcher.js';
import type { Store } from '../registry/store.js';

export class StoreFollower {
  private readonly watchers = new Map<Store, CacheWatcher | null>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly stores: () => (Store | undefined)[], private readonly changed: () => void) {}

  start(): void {
    this.attach();
    this.timer = setInterval(() => this.attach(), 1000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const w of this.watchers.values()) w?.close();
    this.watchers.clear();
  }

  private attach(): void {
    if (this.stopped) return;
    let attached = false;
    for (const store of this.stores()) {
      const cacher = store?.cacher;
      const current = store && this.watchers.get(store);
      if (!store || !cacher?.live || (current && !current.closed)) continue;
      const noBytes = Buffer.alloc(0);
      const out = {
        encode: () => { this.changed(); return noBytes; },
        bookmark: () => noBytes, write: () => undefined, buffered: () => 0, close: () => undefined,
      };
      this.watchers.set(store, cacher.watch({ prefix: store.resourcePrefix, exactKey: false, matches: () => true }, out, { initial: false, fromRevision: cacher.cache.resourceVersion }, false));
      attached = true;
    }
    if (attached) this.changed();
  }
}
