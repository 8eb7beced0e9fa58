/**
 * Reading a request body, only for the verbs that have one (GET, LIST and WATCH never touch
 * it), bounded by kube-apiserver's limit: over it is 413 RequestEntityTooLarge.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestEntityTooLarge } from '@windlass/machinery';

/** kube-apiserver's request body limit (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

const empty = Buffer.alloc(0);

export function readBody(req: IncomingMessage, res: ServerResponse, limit = maxRequestBodyBytes): Promise<Buffer> {
  const tooLarge = () => {
    // The rest of the body is not read: the connection cannot be reused after the answer.
    res.shouldKeepAlive = false;
    req.resume();
    return newRequestEntityTooLarge(`limit is ${limit}`);
  };
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge());
  if (declared === 0 || (req.complete && req.readableLength === 0)) return Promise.resolve(empty);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}
