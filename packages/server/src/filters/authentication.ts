/**
 * Request authentication: the authenticator the server is given, who each request is, a
 * connection's last answer kept for its next request, and what service account tokens need
 * from the server (they look up the objects they name through the watch caches, the store on a
 * miss, as kube's token getter falls back to a live lookup; legacy token use is recorded on the
 * token's Secret).
 */
import type { IncomingMessage } from 'node:http';
import type { BoundResource, ObjectRef, ServiceAccountTokenGetter, ServiceAccountTokens } from '@windlass/auth';
import { LEGACY_TOKEN_LAST_USED_LABEL } from '@windlass/auth';
import type { StoreContext, UserInfo } from '../registry/types.js';

/** Who sent each resource request, as authentication found it. */
export const requestUsers = new WeakMap<IncomingMessage, UserInfo>();

export interface Authenticator {
  authenticate(authorizationHeader?: string): UserInfo | null;
  /** Its answer for a header never changes (static tokens), so a connection may reuse its last one. */
  readonly stable?: boolean;
  /**
   * The whole request (client certificate, then bearer tokens), replacing `authenticate`: a user,
   * null for credentials that fail (401), undefined for none; a Promise when a token needs lookups.
   */
  authenticateRequest?(req: IncomingMessage): UserInfo | null | undefined | Promise<UserInfo | null | undefined>;
  /** TokenReview's answer for a token and the audiences asked. */
  reviewToken?(token: string, audiences: readonly string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }>;
  /** Where service account tokens find the objects they name, given once the stores exist. */
  useObjects?(getter: ServiceAccountTokenGetter): void;
  /** Service account tokens: TokenRequest, the token controller and issuer discovery use them. */
  readonly serviceAccounts?: ServiceAccountTokens;
  /** PEM of --client-ca-file: the TLS listener then asks clients for certificates. */
  readonly clientCA?: string;
  /** Every CA the TLS listener verifies client certificates against (the client CA's and the front proxy's), when more than clientCA. */
  readonly tlsClientCAs?: string;
}

/** Each connection's last Authorization header and who it authenticated. */
const connectionUsers = new WeakMap<object, { header: string; user: UserInfo }>();

/**
 * A keep-alive connection sends the same header with every request: a stable authenticator's
 * answer to it is kept on the connection, so only a changed header is looked up again (a
 * token's digest costs ~2 µs of a GET's budget). The cached header is compared only with what
 * the same connection sends, so no other client learns anything from the comparison's timing.
 */
export function authenticateRequest(authenticator: Authenticator, req: IncomingMessage): UserInfo | null {
  const header = req.headers.authorization;
  if (!authenticator.stable || header === undefined) return authenticator.authenticate(header);
  const last = connectionUsers.get(req.socket);
  if (last !== undefined && last.header === header) return last.user;
  const user = authenticator.authenticate(header);
  if (user) connectionUsers.set(req.socket, { header, user });
  return user;
}

export function serviceAccountTokenGetter(lookup: StoreContext['lookup']): ServiceAccountTokenGetter {
  return {
    get: async (resource: BoundResource, namespace: string, name: string) => (await lookup('', resource)?.get(namespace, name)) as ObjectRef | undefined,
    markLegacyTokenUsed: async (namespace, name, date) => {
      const secrets = lookup('', 'secrets');
      const secret = await secrets?.get(namespace, name);
      if (!secrets?.update || !secret || secret.metadata.labels?.[LEGACY_TOKEN_LAST_USED_LABEL] === date) return;
      secret.metadata.labels = { ...(secret.metadata.labels ?? {}), [LEGACY_TOKEN_LAST_USED_LABEL]: date };
      // Conditional on the version read: a concurrent writer wins, and the next use tries again.
      await secrets.update(namespace, secret);
    },
  };
}
