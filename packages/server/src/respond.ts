/** Writing responses: objects in the negotiated encoding, and every error as a Status. */
import type { Response } from 'express';
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

export function writeBytes(res: Response, code: number, body: string | Buffer, mediaType: string): void {
  res.status(code).setHeader('Content-Type', mediaType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.end(body);
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
