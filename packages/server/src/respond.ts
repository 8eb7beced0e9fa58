/** Writing responses: objects in the negotiated encoding, and every error as a Status. */
import type { ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import { encodeProtobuf, isStatusError, newInternalError, protobufMediaType, type StatusError } from '@windlass/machinery';
import type { Negotiated } from './negotiation.js';
import { marshalYAML } from './goyaml.js';
import { cborMediaType, cborReady, encodeCBORBody } from './cbor.js';

export type Encoding = Pick<Negotiated, 'mediaType' | 'pretty'>;

export function encodeBody(obj: unknown, n: Encoding): string | Buffer {
  // As kube: the JSON form, written by go-yaml (the round trip drops what JSON would).
  if (n.mediaType === 'application/yaml') return marshalYAML(JSON.parse(JSON.stringify(obj)));
  // `pretty` has no protobuf form.
  if (n.mediaType === protobufMediaType) return encodeProtobuf(obj as Record<string, unknown>);
  if (n.mediaType === cborMediaType) return encodeCBORBody(obj);
  return n.pretty ? JSON.stringify(obj, null, 2) + '\n' : JSON.stringify(obj);
}

/** `gzip`: the server compresses (APIResponseCompression) and the client accepts it. */
export function writeObject(res: ServerResponse, code: number, obj: unknown, n: Encoding, gzip = false): void {
  // CBOR needs the kinds' schemas (for []byte fields); only a server's first moments wait for them.
  const waiting = n.mediaType === cborMediaType ? cborReady() : undefined;
  if (waiting) {
    waiting.then(() => writeObject(res, code, obj, n, gzip), (err) => writeBytes(res, 500, String(err), 'text/plain'));
    return;
  }
  writeBytes(res, code, encodeBody(obj, n), n.mediaType, gzip);
}

/** kube compresses only bodies over 128 KiB, and only for clients that accept gzip (APIResponseCompression). */
export const compressionThreshold = 128 * 1024;

export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return acceptEncoding !== undefined && /\bgzip\b/.test(acceptEncoding);
}

export function writeBytes(res: ServerResponse, code: number, body: string | Buffer, mediaType: string, compress = false): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (compress && bytes.length > compressionThreshold) {
    gzip(bytes, (err, zipped) => {
      if (err) return send(res, code, mediaType, bytes);
      res.setHeader('Content-Encoding', 'gzip');
      send(res, code, mediaType, zipped);
    });
    return;
  }
  send(res, code, mediaType, bytes);
}

/** The body size of the last answer written through send(), for apiserver_response_sizes. */
const kBodyLength = Symbol('windlass.bodyLength');

export function bodyLength(res: ServerResponse): number {
  return (res as ServerResponse & { [kBodyLength]?: number })[kBodyLength] ?? 0;
}

function send(res: ServerResponse, code: number, mediaType: string, bytes: Buffer): void {
  // A request answered 504 by the request timeout: its handler's late answer is dropped.
  if (res.headersSent) return;
  (res as ServerResponse & { [kBodyLength]?: number })[kBodyLength] = bytes.length;
  // One writeHead with every header: the cheapest way through Node's header bookkeeping.
  res.writeHead(code, { 'Content-Type': mediaType, 'Cache-Control': 'no-cache, private', 'Content-Length': bytes.length });
  res.end(bytes);
}

export function toStatusError(err: unknown): StatusError {
  if (isStatusError(err)) return err;
  return newInternalError(err);
}

const jsonEncoding: Encoding = Object.freeze({ mediaType: 'application/json', pretty: false });
/** Responses whose errors go in another negotiated encoding than JSON (kube's ErrorNegotiated). */
const errorEncodings = new WeakMap<ServerResponse, Encoding>();

/** Errors of this request, wherever they are written, use the request's negotiated encoding. */
export function negotiatedErrors(res: ServerResponse, n: Encoding): void {
  if (n.mediaType !== 'application/json') errorEncodings.set(res, n);
}

export function writeError(res: ServerResponse, err: unknown, n: Encoding = errorEncodings.get(res) ?? jsonEncoding): void {
  const se = toStatusError(err);
  if (se.code >= 500 && !isStatusError(err)) console.error('internal error:', err);
  if (res.headersSent) {
    res.end();
    return;
  }
  // A handler that failed before its answer started (a watch) may have set headers for a stream.
  res.removeHeader('Transfer-Encoding');
  for (const [k, v] of Object.entries(se.headers)) res.setHeader(k, v);
  writeObject(res, se.code, se.status, n);
}

export function notFoundPage(res: ServerResponse): void {
  res.writeHead(404, { 'Cache-Control': 'no-cache, private', 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('404 page not found\n');
}
