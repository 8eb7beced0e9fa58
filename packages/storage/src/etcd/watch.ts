import { compactedError } from '../errors.js';
import type { KeyRange } from '../keys.js';
import { StorageError, type StorageWatchEvent, type WatchHandle, type WatchListener, type WatchOptions } from '../types.js';
import { mapEtcdError } from './errors.js';
import type { EtcdGrpcClient, GrpcStream } from './grpc.js';
import { decodeWatchResponse, encodeProgressRequest, encodeWatchCreate, type WatchEvent, type WatchResponse } from './watchmessages.js';

const EMPTY = Buffer.alloc(0);

export interface EtcdWatchOptions extends WatchOptions {
  /** With progressNotify: send a progress request this often (ms); 0 leaves it to the server. */
  progressIntervalMs: number;
}

/**
 * One watch on its own gRPC watch stream (streams share the member's HTTP/2 connection), so a
 * stream-wide progress response (watch_id -1) can only be about this watch.
 * Resolves once etcd confirms the watch, so writes made after that are seen.
 */
export async function openEtcdWatch(
  client: EtcdGrpcClient,
  range: KeyRange,
  fromRevision: number,
  listener: WatchListener,
  opts: EtcdWatchOptions,
  onEnd: () => void,
): Promise<WatchHandle> {
  let stream: GrpcStream | undefined;
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
    stream?.cancel();
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

  const onResponse = (res: WatchResponse): void => {
    if (done || ending) return;
    if (res.compactRevision > 0) {
      const err = compactedError(fromRevision, res.compactRevision);
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
      finish(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancelReason || 'no reason given'}`));
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
      const revision = res.revision;
      deliver(() => listener.progress!(revision));
    }
  };

  try {
    stream = client.stream(
      '/etcdserverpb.Watch/Watch',
      (r) => {
        let res: WatchResponse;
        try {
          res = decodeWatchResponse(r);
        } catch (err) {
          finish(err);
          return;
        }
        onResponse(res);
      },
      (err) => finish(err ? mapEtcdError(err) : new StorageError('Unavailable', 'etcd watch stream ended')),
    );
  } catch (err) {
    throw mapEtcdError(err);
  }
  stream.write(encodeWatchCreate({
    key: Buffer.from(range.start),
    rangeEnd: range.end === undefined ? undefined : Buffer.from(range.end),
    startRevision: fromRevision > 0 ? fromRevision : undefined,
    prevKv: !!opts.prevKv,
    progressNotify: !!opts.progressNotify,
  }));
  await ready;

  const requestProgress = (): void => {
    if (!done) stream?.write(encodeProgressRequest());
  };
  if (opts.progressNotify && opts.progressIntervalMs > 0) {
    timer = setInterval(requestProgress, opts.progressIntervalMs);
    timer.unref();
  }
  return { requestProgress, close: () => finish() };
}

function toEvent(e: WatchEvent, prevKv: boolean): StorageWatchEvent {
  const deleted = e.type === 'DELETE';
  const ev: StorageWatchEvent = {
    type: e.type,
    key: e.kv.key.toString(),
    revision: e.kv.modRevision,
    value: deleted ? EMPTY : e.kv.value,
    createRevision: deleted ? 0 : e.kv.createRevision,
  };
  if (prevKv && e.prevKv && e.prevKv.key.length > 0) {
    ev.prevValue = e.prevKv.value;
    ev.prevModRevision = e.prevKv.modRevision;
  }
  return ev;
}
