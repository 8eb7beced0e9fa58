/**
 * A watch on one resource: the initial state when asked for (spec 4.5), then storage events
 * turned into ADDED/MODIFIED/DELETED for the watcher's selectors. An object that stops
 * matching is reported DELETED, one that starts matching ADDED (as kube's cacher does).
 */
import { failure, type Status } from '@windlass/machinery';
import { isStorageError, type StorageWatchEvent, type WatchHandle } from '@windlass/storage';
import { decodeFromStorage, decodeKeyValue } from './codec.js';
import { parseResourceVersion, type ListOptions } from './listoptions.js';
import type { Store } from './store.js';
import type { KubeObject } from './types.js';
import { groupVersion } from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

export interface WatchSink {
  send(event: WatchEvent): void;
  /** The watch ended on its own (storage failure); the stream should be closed. */
  end(): void;
}

export interface ActiveWatch {
  stop(): void;
}

export async function startWatch(store: Store, namespace: string, name: string, opts: ListOptions, sink: WatchSink): Promise<ActiveWatch> {
  const match = store.matcher(opts);
  const matches = (obj: KubeObject) => (!name || obj.metadata.name === name) && match.matches(obj);
  const key = name ? store.objectKey(namespace, name) : store.collectionPrefix(namespace);
  const gv = groupVersion(store.def);
  let lastRevision = 0;
  let stopped = false;
  let handle: WatchHandle | undefined;

  const bookmark = (revision: number, initialEventsEnd = false): WatchEvent => {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return { type: 'BOOKMARK', object: { kind: store.def.kind, apiVersion: gv, metadata } };
  };

  const sendInitial = opts.sendInitialEvents ?? (opts.resourceVersion === '' || opts.resourceVersion === '0');
  let fromRevision: number;
  if (sendInitial) {
    const res = await store.storage.range(key, { prefix: !name });
    for (const kv of res.items) {
      const obj = decodeKeyValue(kv);
      if (matches(obj)) sink.send({ type: 'ADDED', object: obj });
    }
    lastRevision = res.revision;
    if (opts.sendInitialEvents && opts.allowWatchBookmarks) sink.send(bookmark(res.revision, true));
    fromRevision = res.revision + 1;
  } else {
    lastRevision = parseResourceVersion(opts.resourceVersion);
    fromRevision = lastRevision + 1;
  }

  const onEvents = (events: StorageWatchEvent[]) => {
    if (stopped) return;
    for (const ev of events) {
      lastRevision = ev.revision;
      const cur = ev.type === 'PUT' ? decodeFromStorage(ev.value, ev.revision) : undefined;
      const prev = ev.prevValue ? decodeFromStorage(ev.prevValue, ev.revision) : undefined;
      const curMatches = cur !== undefined && matches(cur);
      const prevMatches = prev !== undefined && matches(prev);
      if (curMatches) sink.send({ type: prevMatches ? 'MODIFIED' : 'ADDED', object: cur! });
      else if (prevMatches) sink.send({ type: 'DELETED', object: prev! });
    }
  };

  try {
    handle = await store.storage.watch(key, fromRevision, {
      events: onEvents,
      progress: (revision) => {
        if (stopped || !opts.allowWatchBookmarks || revision <= lastRevision) return;
        lastRevision = revision;
        sink.send(bookmark(revision));
      },
      error: (err) => {
        if (stopped) return;
        stopped = true;
        if (isStorageError(err, 'Compacted')) sink.send({ type: 'ERROR', object: tooOldResourceVersion(fromRevision - 1, err.details.compactedRevision ?? 0) });
        sink.end();
      },
    }, { prevKv: true, progressNotify: opts.allowWatchBookmarks });
    if (stopped) handle.close();
  } catch (err) {
    if (!isStorageError(err, 'Compacted')) throw err;
    sink.send({ type: 'ERROR', object: tooOldResourceVersion(fromRevision - 1, err.details.compactedRevision ?? 0) });
    sink.end();
    stopped = true;
  }

  return {
    stop() {
      stopped = true;
      handle?.close();
    },
  };
}

function tooOldResourceVersion(requested: number, compacted: number): Status {
  return failure(410, 'Expired', `too old resource version: ${requested} (${compacted})`).status;
}
