/**
 * Continue tokens in kube's format, so clients that peek (they should not) see what they
 * expect: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the prefix>\u0000"}.
 * rv -1 marks an inconsistent continuation (after compaction): read at the latest revision.
 * A bad token is refused with the error k8s.io/apiserver/pkg/storage/continue.go gives.
 */
import { goBase64Decode, goJSONSyntaxError, goJSONType, newBadRequest } from '@windlass/machinery';
import { goPathClean } from '../gopath.js';

export interface ContinueToken {
  rv: number;
  /** The full storage key to start from (inclusive). */
  startKey: string;
}

export function encodeContinue(lastKey: string, keyPrefix: string, rv: number): string {
  const start = lastKey.slice(keyPrefix.length) + '\u0000';
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

const invalid = (reason: string) => newBadRequest(`invalid continue token: ${reason}`);
const genericInvalid = (detail: string) => invalid(`continue key is not valid: ${detail}`);


const fields: Record<string, { name: 'v' | 'rv' | 'start'; type: 'string' | 'int64' }> = {
  v: { name: 'v', type: 'string' },
  rv: { name: 'rv', type: 'int64' },
  start: { name: 'start', type: 'string' },
};

/** json.Unmarshal into continueToken: its fields (matched as Go does, case-insensitively) or the first error. */
function unmarshalToken(data: Buffer): { v: string; rv: number; start: string } | string {
  let doc: unknown;
  try {
    doc = JSON.parse(data.toString('utf8'));
  } catch {
    return goJSONSyntaxError(data) ?? 'unexpected end of JSON input';
  }
  const token = { v: '', rv: 0, start: '' };
  if (doc === null) return token;
  if (typeof doc !== 'object' || Array.isArray(doc)) return `json: cannot unmarshal ${goJSONType(doc)} into Go value of type storage.continueToken`;
  let firstError: string | undefined;
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    const f = fields[key] ?? fields[key.toLowerCase()];
    if (!f || value === null) continue;
    const fail = (what: string) => (firstError ??= `json: cannot unmarshal ${what} into Go struct field continueToken.${f.name} of type ${f.type}`);
    if (f.type === 'string') {
      if (typeof value === 'string') (token as Record<string, unknown>)[f.name] = value;
      else fail(goJSONType(value));
    } else if (typeof value !== 'number') fail(goJSONType(value));
    else if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 63) fail(`number ${value}`);
    else token.rv = value;
  }
  return firstError ?? token;
}

export function decodeContinue(token: string, keyPrefix: string): ContinueToken {
  const data = goBase64Decode(Buffer.from(token, 'utf8'), { url: true, padded: false });
  if (!Buffer.isBuffer(data)) throw genericInvalid(data.error);
  const c = unmarshalToken(data);
  if (typeof c === 'string') throw genericInvalid(c);
  if (c.v !== 'meta.k8s.io/v1') throw invalid(`continue key is not valid: server does not recognize this encoded version ${c.v}`);
  if (c.rv === 0) throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (c.start === '') throw invalid('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // path.Clean keeps a token from reaching above the listed prefix.
  const key = c.start.startsWith('/') ? c.start : `/${c.start}`;
  const cleaned = goPathClean(key);
  if (cleaned !== key) throw genericInvalid(c.start);
  return { rv: c.rv, startKey: keyPrefix + cleaned.slice(1) };
}
