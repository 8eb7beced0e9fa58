/**
 * A client's watch, served by the resource's Cacher (spec 4.5 and 6): the initial state when
 * asked for, then the cache's events from the requested revision. Too old a revision is an
 * ERROR event carrying a 410 Expired Status, as kube sends it.
 */
import { failure, isStatusError, newBadRequest, type Status } from '@windlass/machinery';
import { CachedObject } from '../cacher/cachedobject.js';
import type { WatchFilter, WatchOutput } from '../cacher/cachewatcher.js';
import { parseResourceVersion, type ListOptions } from './listoptions.js';
import type { Store } from './store.js';

export interface ClientWatchOutput extends WatchOutput {
  /** A BOOKMARK marking the end of the initial events (sendInitialEvents). */
  initialEventsEnd(revision: number): Buffer;
  errorEvent(status: Status): Buffer;
}

export interface ActiveWatch {
  stop(): void;
  /** Sends a BOOKMARK at the cache's current revision now (if the client asked for bookmarks). */
  bookmark(): void;
}

export async function startWatch(store: Store, namespace: string, name: string, opts: ListOptions, out: ClientWatchOutput): Promise<ActiveWatch> {
  const cacher = store.cacher!;
  await cacher.whenReady();
  const match = store.matcher(opts);
  // A watch of one object (the /watch/ path) takes only a field selector naming that object,
  // checked after the field labels' conversion, as kube's ListResource does.
  if (name && !opts.fieldSelector.empty && opts.fieldSelector.requiresExactMatch('metadata.name') !== name) {
    throw newBadRequest("fieldSelector metadata.name doesn't match requested name");
  }
  const filter: WatchFilter = {
    prefix: name ? store.objectKey(namespace, name) : store.collectionPrefix(namespace),
    exactKey: !!name,
    matches: (attrs) => match.matches(attrs),
  };
  const bookmarks = opts.allowWatchBookmarks;
  const markEnd = (revision: number) => {
    if (opts.sendInitialEvents && bookmarks) out.write(out.initialEventsEnd(revision));
  };
  const rv = opts.resourceVersion;
  const sendInitial = opts.sendInitialEvents ?? (rv === '' || rv === '0');

  let watcher;
  if (!sendInitial) {
    // sendInitialEvents=false from "" or "0" starts from now, as kube's Cacher.Watch: "" from
    // the store's current revision (getWatchCacheResourceVersion), "0" from the cache's
    // (getAllEventsSinceLocked), read here with no wait before the watcher registers.
    const from = rv === '' ? await store.storage.currentRevision() : rv === '0' ? cacher.cache.resourceVersion : parseResourceVersion(rv);
    watcher = cacher.watch(filter, out, { initial: false, fromRevision: from }, bookmarks);
    if (!watcher) {
      out.write(out.errorEvent(failure(410, 'Expired', `too old resource version: ${from} (${cacher.cache.oldestRevision})`).status));
      out.close();
      return ended;
    }
  } else if (rv === '') {
    // Most Recent: a consistent start. Without on-demand progress from the store, the
    // initial state is read from the store and the cache supplies what follows it.
    const consistent = await cacher.consistentRevision();
    if (consistent === null) {
      const res = await store.storage.range(filter.prefix, { prefix: !name });
      for (const kv of res.items) {
        const obj = CachedObject.fromStored(kv.key, kv.modRevision, kv.value, store.attrsOf);
        if (filter.matches(obj.attrs)) out.write(out.encode('ADDED', obj));
      }
      markEnd(res.revision);
      watcher = cacher.watch(filter, out, { initial: false, fromRevision: res.revision }, bookmarks)!;
    } else {
      watcher = cacher.watch(filter, out, { initial: true, afterInitial: markEnd }, bookmarks)!;
    }
  } else {
    if (rv !== '0') {
      // The initial state must be at least as new as the request's: wait for the cache; if it
      // does not get there, kube reports the 504 as an ERROR event of the watch.
      try {
        await cacher.waitUntilFresh(parseResourceVersion(rv));
      } catch (err) {
        if (!isStatusError(err)) throw err;
        out.write(out.errorEvent(err.status));
        out.close();
        return ended;
      }
    }
    watcher = cacher.watch(filter, out, { initial: true, afterInitial: markEnd }, bookmarks)!;
  }
  const w = watcher;
  return {
    stop() {
      cacher.unregister(w);
      w.close();
    },
    bookmark() {
      if (bookmarks) w.sendBookmark(cacher.cache.resourceVersion, Date.now());
    },
  };
}

/** A watch that ended before it started (an ERROR event was its only event). */
const ended: ActiveWatch = { stop: () => undefined, bookmark: () => undefined };
