/**
 * Go's tls.X509KeyPair as kube's secret strategy runs it on kubernetes.io/tls Secrets
 * (warningsForSecret): the error it returns for a certificate and key that do not form a pair,
 * which kube sends back as a warning. PEM blocks are read as pem.Decode reads them, the
 * certificate and key with Node's crypto; the x509 message for an unparsable certificate is
 * the one Go gives for DER that is not a certificate at all.
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { decodePEM, type PEMBlock } from '../certificates/pkcs10.js';

function blocks(data: Buffer): PEMBlock[] {
  const out: PEMBlock[] = [];
  let rest = data.toString('latin1');
  for (let next = decodePEM(rest); next; next = decodePEM(rest)) {
    out.push(next.block);
    rest = next.rest;
  }
  return out;
}

const goTypes = (types: string[]): string => `[${types.join(' ')}]`;

/** The curves Go's x509 parses private keys of (P-224, P-256, P-384, P-521). */
const goCurves = new Set(['P-224', 'P-256', 'P-384', 'P-521', 'secp224r1', 'prime256v1', 'secp384r1', 'secp521r1']);

function tryKey(der: Buffer, type: 'pkcs1' | 'pkcs8' | 'sec1'): KeyObject | undefined {
  try {
    return createPrivateKey({ key: der, format: 'der', type });
  } catch {
    return undefined;
  }
}

/** tls.parsePrivateKey: PKCS#1, then PKCS#8 (RSA, ECDSA, Ed25519 only), then SEC 1. */
function parsePrivateKey(der: Buffer): KeyObject | string {
  const pkcs1 = tryKey(der, 'pkcs1');
  if (pkcs1) return pkcs1;
  const pkcs8 = tryKey(der, 'pkcs8');
  if (pkcs8) {
    const t = pkcs8.asymmetricKeyType;
    if (t === 'rsa' || t === 'ed25519') return pkcs8;
    if (t === 'ec' && goCurves.has(String(pkcs8.asymmetricKeyDetails?.namedCurve))) return pkcs8;
    // Go's PKCS#8 parser knows X25519 (an ECDH key) but tls cannot use it; other kinds fail to parse.
    if (t === 'x25519') return 'tls: found unknown private key type in PKCS#8 wrapping';
  }
  const sec1 = tryKey(der, 'sec1');
  if (sec1 && goCurves.has(String(sec1.asymmetricKeyDetails?.namedCurve))) return sec1;
  return 'tls: failed to parse private key';
}

/** The public numbers Go compares (N for RSA, X and Y for ECDSA, the key for Ed25519). */
function publicNumbers(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  return key.asymmetricKeyType === 'rsa' ? String(jwk.n) : `${String(jwk.x)}/${String(jwk.y ?? '')}`;
}

/** tls.X509KeyPair's error for these certificate and key bytes, or undefined for a pair. */
export function x509KeyPairError(certPEM: Buffer, keyPEM: Buffer): string | undefined {
  const certBlocks = blocks(certPEM);
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0].endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goTypes(skipped)}`;
  }

  const skipped: string[] = [];
  let keyBlock: PEMBlock | undefined;
  for (const b of blocks(keyPEM)) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) {
      keyBlock = b;
      break;
    }
    skipped.push(b.type);
  }
  if (!keyBlock) {
    if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goTypes(skipped)}`;
  }

  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs[0].bytes);
  } catch {
    return 'x509: malformed certificate';
  }
  const priv = parsePrivateKey(keyBlock.bytes);
  if (typeof priv === 'string') return priv;

  const pubType = leaf.publicKey.asymmetricKeyType;
  if (pubType !== 'rsa' && pubType !== 'ec' && pubType !== 'ed25519') return 'tls: unknown public key algorithm';
  if (priv.asymmetricKeyType !== pubType) return 'tls: private key type does not match public key type';
  if (publicNumbers(leaf.publicKey) !== publicNumbers(priv)) return 'tls: private key does not match public key';
  return undefined;
}
