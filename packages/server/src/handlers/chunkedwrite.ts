/**
 * One chunk of a streamed (watch) response, written as one socket write.
 *
 * Node's `res.write` frames each chunk of a chunked HTTP/1.1 body itself: a corked socket
 * write of the size line, one of CRLF, one of the data and one of CRLF, then a `writev`
 * request and a `nextTick` to uncork — per call, so per watcher per event. During fan-out to
 * 1000 watchers, whose sockets drain slowly, those objects outlived the young generation and
 * were most of what each scavenge promoted. Here a shared payload is framed once (the watchers
 * of one event are written one after another, so a one-entry memo serves all but the first)
 * and each watcher's socket gets one write of the framed bytes.
 *
 * Only where the bytes on the wire are exactly what `res.write` would send: the response's
 * headers went out, it is chunked, it owns its socket (not a pipelined response waiting for
 * an earlier one), and nothing of it is still queued in the response. Otherwise `res.write`.
 * `res.end()` later writes the last chunk behind these on the same socket, and
 * `res.writableLength` still counts the socket's backlog (slow-watcher detection relies on it).
 */
import type { ServerResponse } from 'node:http';

const crlf = Buffer.from('\r\n', 'latin1');

let memoPayload: Buffer | undefined;
let memoFramed: Buffer | undefined;
// One event's watchers are written in one synchronous loop: the memo is dropped after it, so a
// large object's event is not kept alive until the next event.
const forget = () => {
  memoPayload = undefined;
  memoFramed = undefined;
};

/** `payload` as one chunk of a chunked body: size in hex, CRLF, the bytes, CRLF. */
export function chunkFrame(payload: Buffer): Buffer {
  if (payload === memoPayload) return memoFramed!;
  const head = payload.length.toString(16) + '\r\n';
  const framed = Buffer.allocUnsafe(head.length + payload.length + 2);
  framed.write(head, 0, 'latin1');
  payload.copy(framed, head.length);
  crlf.copy(framed, head.length + payload.length);
  if (memoPayload === undefined) queueMicrotask(forget);
  memoPayload = payload;
  memoFramed = framed;
  return framed;
}

/** Writes one chunk of a streamed response; false when the client is not keeping up. */
export function writeChunk(res: ServerResponse, payload: Buffer): boolean {
  const socket = res.socket as (ServerResponse['socket'] & { _httpMessage?: unknown }) | null;
  // An empty chunk would read as the body's end: res.write leaves it out.
  if (
    payload.length > 0 && socket !== null && res.headersSent && res.chunkedEncoding && !res.writableEnded &&
    socket._httpMessage === res && socket.writable && res.writableLength === socket.writableLength
  ) {
    return socket.write(chunkFrame(payload));
  }
  return res.write(payload);
}
