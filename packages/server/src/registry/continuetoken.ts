/**
 * Continue tokens in kube's format, so clients that peek (they should not) see what they
 * expect: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the prefix>\u0000"}.
 * rv -1 marks an inconsistent continuation (after compaction): read at the latest revision.
 */
import { newBadRequest } from '@windlass/machinery';

export interface ContinueToken {
  rv: number;
  /** The full storage key to start from (inclusive). */
  startKey: string;
}

export function encodeContinue(lastKey: string, keyPrefix: string, rv: number): string {
  const start = lastKey.slice(keyPrefix.length) + '\u0000';
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string, keyPrefix: string): ContinueToken {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw newBadRequest('invalid continue token: continue key is not valid: illegal base64 data or JSON');
  }
  if (parsed.v !== 'meta.k8s.io/v1') {
    throw newBadRequest('invalid continue token: continue key is not valid: server does not recognize this encoded key');
  }
  if (typeof parsed.start !== 'string' || parsed.start === '' || typeof parsed.rv !== 'number' || parsed.rv === 0 || !Number.isInteger(parsed.rv)) {
    throw newBadRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  // A key that escapes the listed prefix would read another resource's data.
  const start = parsed.start.replace(/^\/+/, '');
  if (start.split('/').includes('..') || start.split('/').includes('.')) {
    throw newBadRequest('invalid continue token: continue key is not valid: path traversal attempt detected');
  }
  return { rv: parsed.rv, startKey: keyPrefix + start };
}
