import type { IEvent, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';
import { compactedError } from '../errors.js';
import type { KeyRange } from '../keys.js';
import { StorageError, type StorageWatchEvent, type WatchHandle, type WatchListener, type WatchOptions } from '../types.js';
import { etcdCall, mapEtcdError } from './errors.js';

const EMPTY = Buffer.alloc(0);

export interface EtcdWatchOptions extends WatchOptions {
  /** With progressNotify: send a progress request this often (ms); 0 leaves it to the server. */
  progressIntervalMs: number;
}

/**
 * One watch on its own gRPC watch stream (streams share the HTTP/2 connection), so a
 * stream-wide progress response (watch_id -1) can only be about this watch. etcd3's
 * high-level Watcher hides progress notifications, hence the generated client.
 * Resolves once etcd confirms the watch, so writes made after that are seen.
 */
export async function openEtcdWatch(
  client: WatchClient,
  range: KeyRange,
  fromRevision: number,
  listener: WatchListener,
  opts: EtcdWatchOptions,
  onEnd: () => void,
): Promise<WatchHandle> {
  const stream = await etcdCall(() => client.watch());
  let created = false;
  let done = false;
  /** A compaction was reported; only the deferred finish() is still to come. */
  let ending = false;
  let timer: NodeJS.Timeout | undefined;
  let settle!: { resolve: () => void; reject: (e: unknown) => void };
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));

  const finish = (err?: unknown): void => {
    if (done) return;
    done = true;
    if (timer) clearInterval(timer);
    onEnd();
    // Half-close first: etcd3 marks the host failed (resetting its channels and feeding
    // its circuit breaker) on any error of a still-writable watch stream, and cancel()
    // alone would raise a CANCELLED error on one.
    stream.end();
    stream.cancel();
    if (!err) return;
    if (!created) {
      settle.reject(err);
      return;
    }
    try {
      listener.error(err instanceof Error ? err : new Error(String(err)));
    } catch {
      // The watch is over either way.
    }
  };

  const deliver = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      finish(err);
    }
  };

  stream.on('data', (res: IWatchResponse) => {
    if (done || ending) return;
    if (Number(res.compact_revision) > 0) {
      const err = compactedError(fromRevision, Number(res.compact_revision));
      if (created) {
        finish(err);
        return;
      }
      // etcd normally confirms the watch before reporting the compaction; if not, still
      // let watch() resolve first, so the listener hears about it as the contract says.
      created = true;
      ending = true;
      settle.resolve();
      setImmediate(() => finish(err));
      return;
    }
    if (res.canceled) {
      finish(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created && !created) {
      created = true;
      settle.resolve();
    }
    if (res.events.length > 0) {
      const events = res.events.map((e) => toEvent(e, !!opts.prevKv));
      deliver(() => listener.events(events));
    } else if (!res.created && listener.progress) {
      const revision = Number(res.header.revision);
      deliver(() => listener.progress!(revision));
    }
  });
  stream.on('error', (err: Error) => finish(mapEtcdError(err)));
  stream.on('end', () => finish(new StorageError('Unavailable', 'etcd watch stream ended')));

  const request: IWatchRequest = {
    create_request: {
      key: Buffer.from(range.start),
      range_end: range.end === undefined ? undefined : Buffer.from(range.end),
      start_revision: fromRevision > 0 ? fromRevision : undefined,
      prev_kv: !!opts.prevKv,
      progress_notify: !!opts.progressNotify,
    },
  };
  stream.write(request);
  await ready;

  const requestProgress = (): void => {
    if (!done) stream.write({ progress_request: {} });
  };
  if (opts.progressNotify && opts.progressIntervalMs > 0) {
    timer = setInterval(requestProgress, opts.progressIntervalMs);
    timer.unref();
  }
  return { requestProgress, close: () => finish() };
}

function toEvent(e: IEvent, prevKv: boolean): StorageWatchEvent {
  const deleted = String(e.type).toUpperCase() === 'DELETE';
  const ev: StorageWatchEvent = {
    type: deleted ? 'DELETE' : 'PUT',
    key: e.kv.key.toString(),
    revision: Number(e.kv.mod_revision),
    value: deleted ? EMPTY : e.kv.value,
    createRevision: deleted ? 0 : Number(e.kv.create_revision),
  };
  if (prevKv && e.prev_kv && e.prev_kv.key && e.prev_kv.key.length > 0) {
    ev.prevValue = e.prev_kv.value;
    ev.prevModRevision = Number(e.prev_kv.mod_revision);
  }
  return ev;
}
