/**
 * The request authenticator kube-apiserver assembles (pkg/kubeapiserver/authenticator): the
 * request-header (front proxy) authenticator first, then client certificates, then the bearer
 * token — static tokens, then service account tokens (legacy, then bound). The first to name a
 * user wins; credentials that fail make the request 401 rather than anonymous
 * (union.NewFailOnError around the anonymous authenticator).
 */
import type { IncomingMessage } from 'node:http';
import { TokenAuthenticator } from './authenticator.js';
import { parseBearerToken } from './bearer.js';
import { ServiceAccountTokens, type ServiceAccountTokenConfig, type TokenAnswer } from './satokens.js';
import type { ServiceAccountTokenGetter } from './serviceaccount.js';
import type { TokenEntry } from './tokenfile.js';
import type { UserInfo } from './user.js';
import { chainsTo, parseCertificates, RequestHeaderAuthenticator, type RequestHeaderConfig } from './requestheader.js';
import { authenticateClientCertificate, type CertificateAnswer } from './x509.js';

/** kubeadm's issuer, the API audience when no service account issuer names one. */
export const DEFAULT_API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

/** Plain data, so that a `--workers` primary can hand it to its workers. */
export interface AuthenticationConfig {
  /** --token-auth-file entries (or the generated admin token). */
  tokens: TokenEntry[];
  /** PEM of --client-ca-file: client certificates chaining to it authenticate. */
  clientCA?: string;
  serviceAccounts?: ServiceAccountTokenConfig;
  /** --requestheader-client-ca-file and the rest: requests from an authenticating front proxy. */
  requestHeader?: RequestHeaderConfig;
}

/**
 * A request's user; null when it presented credentials that failed (401); undefined when it
 * presented none (anonymous, where --anonymous-auth allows).
 */
export type RequestAuthentication = UserInfo | null | undefined;

/** TokenReview's answer: the user and the audiences the token was accepted for, or why not. */
export type TokenReviewAnswer = { user: UserInfo; audiences: string[] } | { error: string };

/** What the bearer token authenticator says of a token no authenticator knows. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

export class Authentication {
  /** The static tokens' answers never change, so a connection may reuse its last one. */
  readonly stable = true;
  readonly clientCA?: string;
  /** Every CA the TLS listener verifies client certificates against: the client CA's and the front proxy's. */
  readonly tlsClientCAs?: string;
  readonly serviceAccounts?: ServiceAccountTokens;
  readonly apiAudiences: readonly string[];
  private readonly tokens: TokenAuthenticator;
  private getter?: ServiceAccountTokenGetter;
  /** Each connection's last static-token header and its user (a token's digest costs ~2 µs of a GET). */
  private readonly lastStatic = new WeakMap<object, { header: string; user: UserInfo }>();
  private readonly requestHeader?: RequestHeaderAuthenticator;
  /** With a front-proxy CA on the listener too: the client CA's certificates, which alone vouch for x509 users. */
  private readonly clientCAs?: ReturnType<typeof parseCertificates>;
  private readonly clientAnswers = new WeakMap<object, CertificateAnswer>();

  constructor(config: AuthenticationConfig) {
    this.tokens = new TokenAuthenticator(config.tokens);
    this.clientCA = config.clientCA;
    if (config.requestHeader) {
      this.requestHeader = new RequestHeaderAuthenticator(config.requestHeader);
      this.clientCAs = parseCertificates(config.clientCA ?? '');
    }
    this.tlsClientCAs = [config.clientCA, config.requestHeader?.clientCA].filter((c): c is string => !!c).join('\n') || undefined;
    this.serviceAccounts = config.serviceAccounts ? new ServiceAccountTokens(config.serviceAccounts) : undefined;
    this.apiAudiences = this.serviceAccounts?.apiAudiences ?? [DEFAULT_API_AUDIENCE];
  }

  /** Where service account tokens look up the objects they name; set by the server once its stores exist. */
  useObjects(getter: ServiceAccountTokenGetter): void {
    this.getter = getter;
  }

  /** Static bearer tokens only (callers that have a header and no request). */
  authenticate(authorizationHeader?: string): UserInfo | null {
    return this.tokens.authenticate(authorizationHeader);
  }

  /** The whole request: a Promise only when a service account token needs its objects looked up. */
  authenticateRequest(req: IncomingMessage): RequestAuthentication | Promise<RequestAuthentication> {
    const proxied = this.requestHeader?.authenticate(req);
    if (proxied && 'user' in proxied) return proxied.user;
    const cert = this.clientCA !== undefined ? this.clientCertificate(req.socket) : null;
    if (cert && 'user' in cert) return cert.user;
    const header = req.headers.authorization;
    const last = header === undefined ? undefined : this.lastStatic.get(req.socket);
    if (last !== undefined && last.header === header) return last.user;
    const { token } = parseBearerToken(header);
    if (token === null) return cert || proxied ? null : undefined;
    const user = this.tokens.authenticateToken(token);
    if (user) {
      this.lastStatic.set(req.socket, { header: header!, user });
      return user;
    }
    const answer = this.serviceAccountToken(token);
    return answer === null ? null : answer.then((a) => ('user' in a ? a.user : null));
  }

  /**
   * The x509 authenticator's answer. The listener trusts the front proxy's CA too; only the
   * client CA names users by certificate (kube verifies each against its own pool).
   */
  private clientCertificate(socket: object): CertificateAnswer {
    const answer = authenticateClientCertificate(socket);
    if (!this.clientCAs || !answer || !('user' in answer)) return answer;
    let checked = this.clientAnswers.get(socket);
    if (checked === undefined) {
      checked = chainsTo(socket, this.clientCAs) ? answer : { error: 'x509: certificate signed by unknown authority' };
      this.clientAnswers.set(socket, checked);
    }
    return checked;
  }

  private serviceAccountToken(token: string, audiences?: readonly string[]): Promise<TokenAnswer> | null {
    if (!this.serviceAccounts || !this.getter) return null;
    return this.serviceAccounts.authenticateToken(token, this.getter, audiences);
  }

  /**
   * TokenReview: the token authenticated as a request bearing it would be, for the audiences
   * asked (the API audiences when none). Static tokens know no audience, so, as kube wraps
   * them, they only vouch for the API audiences.
   */
  async reviewToken(token: string, audiences: readonly string[]): Promise<TokenReviewAnswer> {
    const wanted = audiences.length > 0 ? audiences : this.apiAudiences;
    const { token: parsed } = parseBearerToken(`Bearer ${token}`);
    if (parsed === null) return { error: INVALID_BEARER_TOKEN };
    const implicit = wanted.filter((a) => this.apiAudiences.includes(a));
    const user = implicit.length > 0 ? this.tokens.authenticateToken(parsed) : null;
    if (user) return { user, audiences: implicit };
    const answer = await this.serviceAccountToken(parsed, wanted);
    return answer ?? { error: INVALID_BEARER_TOKEN };
  }
}
