import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensurePrivateDir, readIfExists, writeFileAtomic } from './fsutil.js';
import type { TokenEntry } from './tokenfile.js';
import { ALL_AUTHENTICATED } from './user.js';

export const ADMIN_TOKEN_FILE = 'admin-token';
export const ADMIN_USER_NAME = 'windlass-admin';
// system:masters is what kube's cluster-admin binding and its authorizer short-circuit key on.
export const ADMIN_GROUPS: readonly string[] = Object.freeze(['system:masters', ALL_AUTHENTICATED]);

// What may stand after `Bearer ` in a header: visible ASCII without spaces (kube splits on ' ').
const USABLE_TOKEN = /^[\x21-\x7e]+$/;

/**
 * The admin bearer token stored in `<dataDir>/admin-token` (0600), created on first start
 * as 32 random bytes in base64url. A token edited into the file by hand is kept as long
 * as a client could send it.
 */
export async function ensureAdminToken(dataDir: string): Promise<string> {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  const stored = (await readIfExists(path))?.trim();
  if (stored) {
    if (!USABLE_TOKEN.test(stored)) {
      throw new Error(`${path} must hold a single token of visible ASCII characters without spaces; delete it to generate a new one`);
    }
    return stored;
  }
  await ensurePrivateDir(dataDir);
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, token + '\n', 0o600);
  return token;
}

/** The admin token's entry for a TokenAuthenticator. */
export function adminTokenEntry(token: string): TokenEntry {
  return { token, user: { name: ADMIN_USER_NAME, uid: '', groups: [...ADMIN_GROUPS] } };
}
