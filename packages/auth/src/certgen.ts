import { createPrivateKey, webcrypto } from 'node:crypto';
import type { AltName } from './hosts.js';

/** A certificate and its private key, both PEM (the key as PKCS#8). */
export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const HOUR = 3600_000;
const DAY = 24 * HOUR;
export const CA_VALIDITY_DAYS = 3650;
export const SERVING_VALIDITY_DAYS = 365;
// Backdated like client-go's self-signed certificates, so that a client whose clock
// runs a little behind ours does not reject a certificate issued a moment ago.
export const BACKDATE = HOUR;

type X509 = typeof import('@peculiar/x509');
let x509Module: Promise<X509> | undefined;

/**
 * Loaded on first use only: the library costs ~150 ms to import, which a server that
 * reuses stored credentials (every start but the first) should not pay.
 */
export function loadX509(): Promise<X509> {
  x509Module ??= (async () => {
    // @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API.
    await import('reflect-metadata');
    const loaded = await import('@peculiar/x509');
    // A CommonJS package: Node also offers its exports as named ones, a bundle's chunk only as the default.
    const x509 = ((loaded as { default?: X509 }).default ?? loaded) as X509;
    x509.cryptoProvider.set(webcrypto);
    return x509;
  })();
  return x509Module;
}

export function toPem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

export async function newKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  // ECDSA P-256: key generation takes well under a millisecond, where RSA-2048 takes tens to hundreds.
  return (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

export async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return toPem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', key));
}

/** A self-signed CA for this data directory only; the timestamp tells regenerated CAs apart in trust stores. */
export async function generateCa(now = new Date(), commonName = 'windlass-ca'): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const keys = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${commonName}@${Math.floor(now.getTime() / 1000)}`,
    notBefore: new Date(now.getTime() - BACKDATE),
    notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY),
    signingAlgorithm: EC_P256,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await privateKeyPem(keys.privateKey) };
}

/** A serverAuth certificate for `names`, signed by `ca`. */
export async function issueServingCert(ca: KeyPairPem, names: readonly AltName[], now = new Date()): Promise<KeyPairPem> {
  if (names.length === 0) throw new TypeError('a serving certificate needs at least one host');
  const x509 = await loadX509();
  return issueLeafCert(ca, {
    subject: 'CN=windlass-apiserver', usage: x509.ExtendedKeyUsage.serverAuth, validityDays: SERVING_VALIDITY_DAYS,
    extensions: [new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: n.type, value: n.value })))],
  }, now);
}

export interface LeafCertSpec {
  /** The subject DN, e.g. `CN=windlass-apiserver`. */
  subject: string;
  /** The extended key usage (serverAuth, clientAuth). */
  usage: string;
  validityDays: number;
  /** Further extensions (subject alternative names). */
  extensions?: unknown[];
}

/** A certificate for a fresh ECDSA P-256 key, signed by `ca` (as generateCa makes it). */
export async function issueLeafCert(ca: KeyPairPem, spec: LeafCertSpec, now = new Date()): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' }), EC_P256, false, ['sign']);
  const keys = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.create({
    subject: spec.subject,
    // The CA's own encoded name, so issuer and CA subject compare byte for byte as chain builders require.
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE),
    // Never past the CA's own end, after which clients would reject the chain anyway.
    notAfter: new Date(Math.min(now.getTime() + spec.validityDays * DAY, caCert.notAfter.getTime())),
    signingAlgorithm: EC_P256,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // ECDSA keys only sign during the handshake; keyEncipherment is an RSA-only usage.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([spec.usage]),
      ...((spec.extensions ?? []) as InstanceType<X509['Extension']>[]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await privateKeyPem(keys.privateKey) };
}

/** The DNS and IP SANs of a certificate, as stored (unknown SAN types are dropped). */
export async function readAltNames(certPem: string): Promise<AltName[]> {
  const x509 = await loadX509();
  const san = new x509.X509Certificate(certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const out: AltName[] = [];
  for (const item of san?.names.items ?? []) {
    if (item.type === 'dns' || item.type === 'ip') out.push({ type: item.type, value: item.value });
  }
  return out;
}
