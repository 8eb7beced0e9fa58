/** Writing responses: objects in the negotiated encoding, and every error as a Status. */
import type { Response } from 'express';
import { gzip } from 'node:zlib';
import yaml from 'js-yaml';
import { isStatusError, newInternalError, type StatusError } from '@windlass/machinery';
import type { Negotiated } from './negotiation.js';

export function encodeBody(obj: unknown, n: Pick<Negotiated, 'mediaType' | 'pretty'>): string {
  if (n.mediaType === 'application/yaml') return yaml.dump(obj, { noRefs: true, lineWidth: -1 });
  return n.pretty ? JSON.stringify(obj, null, 2) + '\n' : JSON.stringify(obj);
}

export function writeObject(res: Response, code: number, obj: unknown, n: Pick<Negotiated, 'mediaType' | 'pretty'>): void {
  writeBytes(res, code, encodeBody(obj, n), n.mediaType);
}

/** kube compresses only bodies over 128 KiB, and only for clients that accept gzip (APIResponseCompression). */
export const compressionThreshold = 128 * 1024;

export function writeBytes(res: Response, code: number, body: string | Buffer, mediaType: string): void {
  res.status(code).setHeader('Content-Type', mediaType);
  res.setHeader('Cache-Control', 'no-cache, private');
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (bytes.length > compressionThreshold && res.app?.locals.compression !== false && /\bgzip\b/.test(String(res.req?.headers['accept-encoding'] ?? ''))) {
    gzip(bytes, (err, zipped) => {
      if (err) return res.end(bytes);
      res.setHeader('Content-Encoding', 'gzip');
      res.end(zipped);
    });
    return;
  }
  res.end(bytes);
}

export function toStatusError(err: unknown): StatusError {
  if (isStatusError(err)) return err;
  return newInternalError(err);
}

export function writeError(res: Response, err: unknown, n: Pick<Negotiated, 'mediaType' | 'pretty'> = { mediaType: 'application/json', pretty: false }): void {
  const se = toStatusError(err);
  if (se.code >= 500 && !isStatusError(err)) console.error('internal error:', err);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(se.headers)) res.setHeader(k, v);
  writeObject(res, se.code, se.status, n);
}
