import { createHash } from 'node:crypto';
import { newUnauthorized } from '@windlass/machinery';
import { parseBearerToken } from './bearer.js';
import type { TokenEntry } from './tokenfile.js';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

function freezeUser(user: UserInfo): Readonly<UserInfo> {
  Object.freeze(user.groups);
  return Object.freeze(user);
}

// Tokens are looked up by digest so that comparison timing says nothing about how much
// of a guessed token matched, and the process keeps no plaintext copy of them.
const digest = (token: string): string => createHash('sha256').update(token).digest('base64');

/**
 * Static bearer tokens (the generated admin token and --token-auth-file entries). When a
 * token appears more than once the last entry wins, as within kube's token file.
 */
export class TokenAuthenticator {
  private readonly users = new Map<string, Readonly<UserInfo>>();
  /** The tokens are fixed at start (kube reads its token file once): answers never change. */
  readonly stable = true;

  constructor(entries: Iterable<TokenEntry>) {
    for (const { token, user } of entries) {
      // An empty token could only ever match a malformed header; kube skips such records too.
      if (token === '') continue;
      this.users.set(digest(token), freezeUser(withAuthenticatedGroup(user)));
    }
  }

  get size(): number {
    return this.users.size;
  }

  /** The user a token belongs to, with system:authenticated added as kube does; null if unknown. */
  authenticateToken(token: string): Readonly<UserInfo> | null {
    if (token === '') return null;
    return this.users.get(digest(token)) ?? null;
  }

  /** The user an `Authorization: Bearer …` header authenticates; null for no, a malformed or an unknown token. */
  authenticate(authorizationHeader?: string): Readonly<UserInfo> | null {
    const { token } = parseBearerToken(authorizationHeader);
    return token === null ? null : this.authenticateToken(token);
  }

  /**
   * Like authenticate, but a request without a valid token is a 401 Unauthorized Status,
   * for servers that (like kube with --anonymous-auth=false) admit no anonymous requests.
   */
  require(authorizationHeader?: string): Readonly<UserInfo> {
    const user = this.authenticate(authorizationHeader);
    if (!user) throw newUnauthorized();
    return user;
  }
}
