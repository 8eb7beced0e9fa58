import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { generateCa, issueServingCert, readAltNames, type KeyPairPem } from './certgen.js';
import { ensurePrivateDir, readIfExists, writeFileAtomic } from './fsutil.js';
import { certificateCovers, toAltNames, type AltName } from './hosts.js';

export interface ServingCredentials {
  /** PEM of the CA that signed `certPem`: what clients must trust (kubeconfig certificate-authority-data). */
  caCertPem: string;
  certPem: string;
  keyPem: string;
}

export interface ServingCredentialsOptions {
  /** DNS names and IP addresses clients will use to reach the server; each becomes a SAN. */
  hosts: string[];
  /** For tests of expiry handling. */
  now?: Date;
}

export const PKI_DIR = 'pki';
export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const SERVING_CERT_FILE = 'apiserver.crt';
export const SERVING_KEY_FILE = 'apiserver.key';

const DAY = 24 * 3600_000;
// Renewed well before expiry so that a server left running for weeks does not hit the date.
const RENEW_BEFORE = 30 * DAY;

interface LoadedPair {
  pem: KeyPairPem;
  cert: X509Certificate;
  key: KeyObject;
}

function parsePair(certPem: string, keyPem: string): LoadedPair | null {
  try {
    const cert = new X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    return cert.checkPrivateKey(key) ? { pem: { certPem, keyPem }, cert, key } : null;
  } catch {
    return null;
  }
}

/**
 * The stored CA, or null when there is none yet (or only a key left by an interrupted
 * first start, since the certificate is written last). A CA that exists but is unusable
 * is an error rather than silently replaced: clients may already trust it.
 */
async function loadCa(dir: string, now: Date): Promise<LoadedPair | null> {
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  const [certPem, keyPem] = await Promise.all([readIfExists(certPath), readIfExists(keyPath)]);
  if (certPem === null) return null;
  if (keyPem === null) {
    throw new Error(`CA certificate ${certPath} exists but its key ${keyPath} is missing; remove ${dir} to generate a new CA`);
  }
  const ca = parsePair(certPem, keyPem);
  if (!ca || !ca.cert.ca) {
    throw new Error(`${certPath} and ${keyPath} are not a matching CA certificate and key; remove ${dir} to generate a new CA`);
  }
  // A CA at the end of its ten years is replaced rather than refused: certificates it
  // signs now would outlive it, and a client trusting it is about to fail anyway.
  if (new Date(ca.cert.validTo).getTime() <= now.getTime() + RENEW_BEFORE) return null;
  return ca;
}

function servingCertUsable(serving: LoadedPair, ca: LoadedPair, names: readonly AltName[], now: Date): boolean {
  const { cert } = serving;
  return (
    cert.checkIssued(ca.cert) &&
    cert.verify(ca.cert.publicKey) &&
    new Date(cert.validFrom).getTime() <= now.getTime() &&
    new Date(cert.validTo).getTime() > now.getTime() + RENEW_BEFORE &&
    certificateCovers(cert, names)
  );
}

async function writePair(dir: string, certFile: string, keyFile: string, pair: KeyPairPem): Promise<void> {
  // Key first: a crash in between leaves an old certificate with a new key, which the
  // next start detects as a mismatch and repairs, never a certificate without its key.
  await writeFileAtomic(join(dir, keyFile), pair.keyPem, 0o600);
  await writeFileAtomic(join(dir, certFile), pair.certPem, 0o644);
}

/**
 * The CA and serving certificate under `<dataDir>/pki/`, created on first start and
 * reused afterwards. A serving certificate that misses a requested host (or is expiring,
 * or was signed by another CA) is reissued from the stored CA, keeping its old hosts so
 * that alternating between bind addresses does not reissue on every start.
 */
export async function ensureServingCredentials(dataDir: string, opts: ServingCredentialsOptions): Promise<ServingCredentials> {
  const names = toAltNames(opts.hosts);
  if (names.length === 0) throw new TypeError('ensureServingCredentials: at least one host is required');
  const now = opts.now ?? new Date();
  const dir = join(dataDir, PKI_DIR);
  await ensurePrivateDir(dir);

  let ca = await loadCa(dir, now);
  let servingNames = names;
  if (ca) {
    const [certPem, keyPem] = await Promise.all([readIfExists(join(dir, SERVING_CERT_FILE)), readIfExists(join(dir, SERVING_KEY_FILE))]);
    const serving = certPem !== null && keyPem !== null ? parsePair(certPem, keyPem) : null;
    if (serving && servingCertUsable(serving, ca, names, now)) {
      return { caCertPem: ca.pem.certPem, certPem: serving.pem.certPem, keyPem: serving.pem.keyPem };
    }
    if (serving && serving.cert.checkIssued(ca.cert)) {
      const previous = await readAltNames(serving.pem.certPem);
      servingNames = toAltNames([...names, ...previous].map((n) => n.value));
    }
  } else {
    const pem = await generateCa(now);
    await writePair(dir, CA_CERT_FILE, CA_KEY_FILE, pem);
    ca = parsePair(pem.certPem, pem.keyPem)!;
  }

  const serving = await issueServingCert(ca.pem, servingNames, now);
  await writePair(dir, SERVING_CERT_FILE, SERVING_KEY_FILE, serving);
  return { caCertPem: ca.pem.certPem, ...serving };
}
