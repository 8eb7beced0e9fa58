/**
 * watch: a chunked stream of {type, object} events, JSON documents one per line, or
 * length-prefixed protobuf WatchEvents.
 */
import { encodeProtobuf, encodeWatchFrame, protobufMediaType, wrapProtobufMessage, type Status } from '@windlass/machinery';
import { protobufMessages } from '../cacher/protobufmessages.js';
import type { CachedObject } from '../cacher/cachedobject.js';
import { parseListOptions } from '../registry/listoptions.js';
import { startWatch, type ActiveWatch, type ClientWatchOutput } from '../registry/watch.js';
import { groupVersion } from '../registry/types.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../table.js';
import { watchContentType } from '../negotiation.js';
import { cborMediaType, cborReady, encodeCBOREvent } from '../cbor.js';
import type { RequestScope } from './scope.js';
import { OrderedWrites } from './orderedwrites.js';
import { writeChunk } from './chunkedwrite.js';
import { toStatusError } from '../respond.js';

/** kube's default: a random duration between the minimum request timeout and twice it. */
const minRequestTimeoutSeconds = 1800;

/**
 * A delay Node's timers keep: past 2^31-1 ms setTimeout fires at once, where kube's context
 * deadline that far out is, for a watch, as good as none; 24.8 days stands in for it.
 */
const timerDelay = (ms: number) => Math.min(ms, 2 ** 31 - 1);

export async function watchResource(s: RequestScope): Promise<void> {
  const opts = parseListOptions(s.query, true);
  // CBOR encodes []byte fields by the kinds' schemas: a server's first moments wait for them.
  if (s.negotiated.mediaType === cborMediaType) await cborReady();
  const include = parseIncludeObject(s.query.get('includeObject'));
  const { res, req } = s;
  const kind = JSON.stringify(s.def.kind);
  const apiVersion = JSON.stringify(groupVersion(s.def));

  let sentTableHeaders = false;
  const protobuf = s.negotiated.mediaType === protobufMediaType;
  // CBOR (CBORServingAndStorage): a CBOR sequence, each event one self-described WatchEvent item.
  const cbor = s.negotiated.mediaType === cborMediaType;
  const line = protobuf
    ? (type: string, object: unknown) => encodeWatchFrame(type, encodeProtobuf(object as Record<string, unknown>))
    : cbor
      ? encodeCBOREvent
      : (type: string, object: unknown) => Buffer.from(JSON.stringify({ type, object }) + '\n');
  const encodeServed = (type: string, stored: CachedObject): Buffer => {
    const obj = s.store.served(stored);
    switch (s.negotiated.as) {
      case 'Table': {
        // Column definitions go with the first event only, as kube sends them.
        const table = toTable(s.def, [obj.object], { resourceVersion: String(obj.revision) }, include, !sentTableHeaders);
        sentTableHeaders = true;
        return line(type, table);
      }
      case 'PartialObjectMetadata':
        return line(type, partialObjectMetadata(obj.object));
      default:
        // Shared by every watcher: the event is serialized once per encoding, not once per client.
        if (protobuf) return obj.sharedEvent(`protobuf:${type}`, () => protobufEvent(type, obj));
        if (cbor) return obj.sharedEvent(`cbor:${type}`, () => line(type, obj.object));
        return obj.eventBytes(type);
    }
  };
  const writeNow = (bytes: Buffer) => {
    if (ended) return;
    writeChunk(res, bytes);
    hooks?.events.sent(bytes.length);
  };
  // A version served by a conversion webhook: its events wait for their conversions, in order.
  // Other watches write straight through (this is the fan-out's per-watcher path).
  const ordered = s.store.convertsByWebhook ? new OrderedWrites(writeNow, (err) => {
    if (ended) return;
    writeChunk(res, line('ERROR', toStatusError(err).status));
    finish();
  }) : undefined;
  const encode = (type: string, stored: CachedObject): Buffer => {
    if (!ordered || !s.store.convertsOutside(stored)) return encodeServed(type, stored);
    return ordered.placeholder(async () => {
      await s.store.servedConverted(stored);
      return encodeServed(type, stored);
    });
  };
  const protobufEvent = (type: string, obj: CachedObject): Buffer => {
    const message = protobufMessages.get(obj);
    return message ? encodeWatchFrame(type, wrapProtobufMessage(groupVersion(s.def), s.def.kind, message)) : line(type, obj.object);
  };
  const bookmark = (revision: number, annotations?: Record<string, string>) => {
    const meta = annotations ? { resourceVersion: String(revision), annotations } : { resourceVersion: String(revision) };
    if (protobuf || cbor) return line('BOOKMARK', { kind: s.def.kind, apiVersion: groupVersion(s.def), metadata: meta });
    return Buffer.from(`{"type":"BOOKMARK","object":{"kind":${kind},"apiVersion":${apiVersion},"metadata":${JSON.stringify(meta)}}}\n`);
  };

  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let active: ActiveWatch | undefined;
  const hooks = s.watch;
  const finish = () => {
    if (ended) return;
    ended = true;
    hooks?.open.delete(finish);
    if (timer) clearTimeout(timer);
    if (bookmarkTimer) clearTimeout(bookmarkTimer);
    active?.stop();
    res.end();
  };
  const out: ClientWatchOutput = {
    encode,
    bookmark: (revision) => bookmark(revision),
    initialEventsEnd: (revision) => bookmark(revision, { 'k8s.io/initial-events-end': 'true' }),
    errorEvent: (status: Status) => line('ERROR', status),
    write: ordered ? (bytes) => ordered.write(bytes) : writeNow,
    buffered: () => res.writableLength,
    close: finish,
  };

  res.statusCode = 200;
  res.setHeader('Content-Type', watchContentType(s.negotiated.mediaType));
  res.setHeader('Cache-Control', 'no-cache, private');
  req.on('close', finish);
  res.on('close', finish);
  // timeoutSeconds=0 is no timeout of the client's own: the default, as kube's ListResource.
  const timeoutSeconds = opts.timeoutSeconds || Math.floor(minRequestTimeoutSeconds * (1 + Math.random()));
  timer = setTimeout(finish, timerDelay(timeoutSeconds * 1000));
  // kube sends a last bookmark 2 s before the timeout, so the client resumes from a fresh revision.
  if (opts.allowWatchBookmarks && timeoutSeconds > 2) bookmarkTimer = setTimeout(() => active?.bookmark(), timerDelay((timeoutSeconds - 2) * 1000));

  try {
    active = await startWatch(s.store, s.info.namespace, s.info.name, opts, out);
  } catch (err) {
    if (timer) clearTimeout(timer);
    if (!res.headersSent && !ended) {
      ended = true;
      throw err;
    }
    finish();
    return;
  }
  if (ended) active.stop();
  else {
    hooks?.open.add(finish);
    res.flushHeaders();
  }
}
