/**
 * The part of JOSE service account tokens need: JWS compact serialization signed with the
 * algorithms kube-apiserver signs and accepts (RS256 for RSA keys, ES256/384/512 by the ECDSA
 * key's curve), key IDs derived as kube's keyIDFromPublicKey, and JWKs as go-jose writes them.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** The algorithms kube's JWT authenticator lets a token name (go-jose ParseSigned's allow list). */
export const ACCEPTED_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'ES256', 'ES384', 'ES512'];

const hashOf: Record<SigningAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
const curveAlgorithms: Record<string, SigningAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/**
 * The algorithm kube signs with for a key: RS256 for any RSA key (signerFromRSAPrivateKey), the
 * curve's ES algorithm for ECDSA; other keys (Ed25519, DSA) and curves are refused as kube does.
 */
export function algorithmFor(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const alg = curveAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!alg) throw new Error('unknown private key curve, must be 256, 384, or 521');
    return alg;
  }
  throw new Error(`unknown key type ${key.asymmetricKeyType}, must be RSA or ECDSA`);
}

/** kube's keyIDFromPublicKey: the unpadded base64url SHA-256 of the key's PKIX (SPKI) DER. */
export function keyIDFor(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return base64url(createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest());
}

/** A JSON Web Key of a public key, with go-jose's field order (use, kty, kid, crv, alg, x, y, n, e). */
export function publicJWK(key: KeyObject): Record<string, string> {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const jwk = pub.export({ format: 'jwk' }) as Record<string, string>;
  const out: Record<string, string> = { use: 'sig', kty: jwk.kty!, kid: keyIDFor(pub) };
  if (jwk.crv) out.crv = jwk.crv;
  out.alg = algorithmFor(pub);
  for (const field of ['x', 'y', 'n', 'e']) if (jwk[field] !== undefined) out[field] = jwk[field]!;
  return out;
}

/** JSON with object keys sorted at every level, as go-jose marshals a JWT's merged claim map. */
export function sortedJSON(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** A JWS in compact serialization: header `{"alg":…,"kid":…}` and the claims, both with sorted keys. */
export function signJWT(claims: Record<string, unknown>, privateKey: KeyObject): string {
  const alg = algorithmFor(privateKey);
  const header = base64url(sortedJSON({ alg, kid: keyIDFor(privateKey) }));
  const input = `${header}.${base64url(sortedJSON(claims))}`;
  // JWS carries ECDSA signatures as r||s, not DER.
  const signature = sign(hashOf[alg], Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}

export interface ParsedJWS {
  header: { alg?: unknown; kid?: unknown };
  /** The payload's claims, not yet verified. */
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function decodeJSONPart(part: string): Record<string, unknown> | null {
  if (!B64URL.test(part)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A compact JWS's parts, or null for anything else (kube passes such tokens on to the next authenticator). */
export function parseJWS(token: string): ParsedJWS | null {
  if (token.trimStart().startsWith('{')) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || !B64URL.test(parts[2]!)) return null;
  const header = decodeJSONPart(parts[0]!);
  const claims = decodeJSONPart(parts[1]!);
  if (!header || !claims) return null;
  return { header, claims, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
}

/** Whether the JWS is signed by `publicKey` with the algorithm its header names (which must suit the key). */
export function verifyJWS(jws: ParsedJWS, publicKey: KeyObject): boolean {
  const alg = jws.header.alg as SigningAlgorithm;
  if (!ACCEPTED_ALGORITHMS.includes(alg)) return false;
  let keyAlg: SigningAlgorithm;
  try {
    keyAlg = algorithmFor(publicKey);
  } catch {
    return false;
  }
  // An RSA key verifies only RS256 here, an ECDSA key only its own curve's algorithm.
  if (keyAlg !== alg) return false;
  try {
    return verify(hashOf[alg], Buffer.from(jws.signingInput), { key: publicKey, dsaEncoding: 'ieee-p1363' }, jws.signature);
  } catch {
    return false;
  }
}
