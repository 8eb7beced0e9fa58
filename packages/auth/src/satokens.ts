/**
 * Service account tokens on the server side (kube's pkg/serviceaccount jwt.go and
 * openidmetadata.go): signing with --service-account-signing-key-file under the first
 * --service-account-issuer, authenticating bound tokens of any configured issuer and the token
 * controller's legacy tokens against the --service-account-key-file keys, and the OIDC
 * discovery documents that publish those keys.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { parseJWS, publicJWK, algorithmFor, keyIDFor, signJWT, verifyJWS, type ParsedJWS } from './jose.js';
import { parsePrivateKeyPEM, parsePublicKeysPEM } from './sakeys.js';
import {
  LEGACY_ISSUER, TokenError, serviceAccountUser, validateBoundToken, validateLegacyToken, type ServiceAccountTokenGetter,
} from './serviceaccount.js';
import type { UserInfo } from './user.js';

/** Plain data (a worker receives it over IPC): kube's ServiceAccountAuthenticationOptions. */
export interface ServiceAccountTokenConfig {
  /** --service-account-issuer: the first signs new tokens, all are accepted. */
  issuers: string[];
  /** PEM of --service-account-signing-key-file; without one, tokens are verified but not issued. */
  signingKeyPem?: string;
  /** PEMs of --service-account-key-file; none: the signing key's public half. */
  publicKeyPems: string[];
  /** --api-audiences; none: the issuers. */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0: no limit. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
  /** --service-account-jwks-uri; unset: https://<external address>/openid/v1/jwks. */
  jwksURI?: string;
  /** PEM the token controller writes as token Secrets' ca.crt (kube-controller-manager's --root-ca-file). */
  rootCA?: string;
}

export type TokenAnswer = { user: UserInfo; audiences: string[] } | { error: string };

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** claims.go's ExpirationExtensionSeconds: how long an extended pod-bound token really lasts. */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;
/** claims.go's WarnOnlyBoundTokenExpirationSeconds: the expiry the kubelet asks for when extension applies. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;

interface PublicKey {
  kid: string;
  key: KeyObject;
}

/** Go's %q of a string slice: `["a" "b"]`. */
const goQuoteList = (list: readonly string[]) => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

const verifiedCacheSize = 4096;

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly issuers: ReadonlySet<string>;
  readonly apiAudiences: readonly string[];
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  /** The longest a token may really last (extended pod-bound tokens). */
  readonly maxExtendedExpirationSeconds: number;
  private readonly signingKey?: KeyObject;
  private readonly keys: PublicKey[];
  private readonly jwksURI?: string;
  readonly rootCA?: string;
  /** Tokens whose signature was checked, with their claims: a signature never stops verifying, only the claims' validity changes. */
  private readonly verified = new Map<string, Record<string, unknown>>();

  constructor(config: ServiceAccountTokenConfig) {
    if (config.issuers.length === 0) throw new Error('service-account-issuer is a required flag');
    this.issuer = config.issuers[0]!;
    this.issuers = new Set(config.issuers);
    this.apiAudiences = config.apiAudiences.length > 0 ? [...config.apiAudiences] : [...config.issuers];
    this.maxExpirationSeconds = config.maxExpirationSeconds;
    this.extendExpiration = config.extendExpiration;
    this.maxExtendedExpirationSeconds = Math.max(EXPIRATION_EXTENSION_SECONDS, config.maxExpirationSeconds);
    this.jwksURI = config.jwksURI;
    this.rootCA = config.rootCA;
    if (config.signingKeyPem !== undefined) {
      this.signingKey = parsePrivateKeyPEM(config.signingKeyPem);
      algorithmFor(this.signingKey);
    }
    const publicKeys = config.publicKeyPems.flatMap((pem) => parsePublicKeysPEM(pem));
    if (publicKeys.length === 0 && this.signingKey) publicKeys.push(createPublicKey(this.signingKey));
    this.keys = publicKeys.map((key) => ({ kid: keyIDFor(key), key }));
  }

  /** Whether tokens can be issued (TokenRequest, the token controller). */
  get canSign(): boolean {
    return this.signingKey !== undefined;
  }

  /** Signs claims with the signing key (the caller sets iss). */
  sign(claims: Record<string, unknown>): string {
    if (!this.signingKey) throw new Error('no service account signing key is configured');
    return signJWT(claims, this.signingKey);
  }

  /**
   * kube's two JWT authenticators (legacy tokens, then bound tokens): null when the token is not
   * a JWT of one of our issuers (another authenticator may know it), else a Promise of the user
   * and the audiences it was accepted for, or of kube's reason for refusing it. `audiences` are
   * the ones the caller asks for (TokenReview); unset, the API audiences.
   */
  authenticateToken(token: string, getter: ServiceAccountTokenGetter, audiences?: readonly string[]): Promise<TokenAnswer> | null {
    let claims = this.verified.get(token);
    let jws: ParsedJWS | null = null;
    if (!claims) {
      jws = parseJWS(token);
      const iss = jws?.claims.iss;
      if (!jws || typeof iss !== 'string' || !(iss === LEGACY_ISSUER || this.issuers.has(iss))) return null;
    }
    return this.authenticateParsed(token, jws, claims, getter, audiences).catch((err: unknown) => {
      if (err instanceof TokenError) return { error: err.message };
      throw err;
    });
  }

  private async authenticateParsed(token: string, jws: ParsedJWS | null, cached: Record<string, unknown> | undefined, getter: ServiceAccountTokenGetter, requested?: readonly string[]): Promise<TokenAnswer> {
    const claims = cached ?? this.verify(token, jws!);
    const legacy = claims.iss === LEGACY_ISSUER;
    let tokenAudiences = audiencesOf(claims.aud);
    // Legacy tokens have no audience: they are good for the API server's own.
    if (tokenAudiences.length === 0) tokenAudiences = [...this.apiAudiences];
    const wanted = requested ?? this.apiAudiences;
    const accepted = tokenAudiences.filter((a) => wanted.includes(a));
    if (accepted.length === 0 && this.apiAudiences.length > 0) {
      throw new TokenError(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(wanted)}`);
    }
    const info = legacy ? await validateLegacyToken(token, claims, getter) : await validateBoundToken(claims, getter);
    return { user: serviceAccountUser(info), audiences: accepted };
  }

  /** The signature by a key of the token's kid (or any key without one), then the issuer; the claims when both hold. */
  private verify(token: string, jws: ParsedJWS): Record<string, unknown> {
    const kid = typeof jws.header.kid === 'string' ? jws.header.kid : '';
    const keys = kid ? this.keys.filter((k) => k.kid === kid) : this.keys;
    if (keys.length === 0) throw new TokenError('invalid signature, no keys found');
    if (!keys.some((k) => verifyJWS(jws, k.key))) {
      const primitive = 'go-jose/go-jose: error in cryptographic primitive';
      throw new TokenError(keys.length === 1 ? primitive : `[${keys.map(() => primitive).join(', ')}]`);
    }
    const iss = jws.claims.iss as string;
    if (!(iss === LEGACY_ISSUER || this.issuers.has(iss))) throw new TokenError(`token issuer "${iss}" is invalid`);
    if (this.verified.size >= verifiedCacheSize) this.verified.clear();
    this.verified.set(token, jws.claims);
    return jws.claims;
  }

  /** The JWKS document: every verification key, as kube publishes them at /openid/v1/jwks. */
  jwks(): string {
    return JSON.stringify({ keys: this.keys.map((k) => publicJWK(k.key)) });
  }

  /**
   * The OpenID provider configuration of the first issuer, or the reason kube serves none: the
   * issuer must be an https URL without query or fragment, as must --service-account-jwks-uri.
   */
  openIDConfiguration(externalAddress: string): { document: string } | { error: string } {
    let iss: URL;
    try {
      iss = new URL(this.issuer);
    } catch (err) {
      return { error: `issuer URL must be a valid URL: ${(err as Error).message}` };
    }
    if (iss.protocol !== 'https:') return { error: `issuer URL must use https scheme, got: ${this.issuer}` };
    if (iss.search !== '') return { error: `issuer URL may not include a query, got: ${this.issuer}` };
    if (iss.hash !== '') return { error: `issuer URL may not include a fragment, got: ${this.issuer}` };
    let jwksURI: string;
    if (this.jwksURI) {
      let u: URL;
      try {
        u = new URL(this.jwksURI);
      } catch (err) {
        return { error: `could not parse JWKS URI ${JSON.stringify(this.jwksURI)}: ${(err as Error).message}` };
      }
      if (u.protocol !== 'https:') return { error: `jwks_uri requires https scheme, parsed as: ${this.jwksURI}` };
      // As given: WHATWG URLs would add a slash to a bare host, Go's keep the text.
      jwksURI = this.jwksURI;
    } else {
      jwksURI = `https://${externalAddress}${JWKS_PATH}`;
    }
    const algs = [...new Set(this.keys.map((k) => algorithmFor(k.key)))].sort();
    return {
      document: JSON.stringify({
        issuer: this.issuer, jwks_uri: jwksURI, response_types_supported: ['id_token'], subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: algs,
      }),
    };
  }
}
