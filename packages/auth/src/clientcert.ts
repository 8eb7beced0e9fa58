/**
 * Client certificates signed by the data directory's CA: what `start` puts in its
 * certificate kubeconfig (admin.conf, as kubeadm writes one for system:masters), and what
 * tests authenticate with.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { join } from 'node:path';
import { issueLeafCert, loadX509, type KeyPairPem } from './certgen.js';
import { readIfExists, writeFileAtomic } from './fsutil.js';
import { ADMIN_USER_NAME } from './admintoken.js';
import { CA_CERT_FILE, CA_KEY_FILE, PKI_DIR } from './serving.js';

export const ADMIN_CERT_FILE = 'admin.crt';
export const ADMIN_KEY_FILE = 'admin.key';
export const ADMIN_CERT_ORGANIZATION = 'system:masters';

const DAY = 24 * 3600_000;
/** kubeadm's client certificates last a year. */
export const CLIENT_CERT_VALIDITY_DAYS = 365;
const RENEW_BEFORE = 30 * DAY;

// RFC 4514: the characters a DN attribute value must escape.
const escapeDN = (v: string) => v.replace(/([,+"\\<>;=#])/g, '\\$1');

export interface ClientCertSubject {
  commonName: string;
  organizations?: string[];
}

/** A clientAuth certificate for the subject, signed by `ca` (an ECDSA P-256 CA, as generateCa makes). */
export async function issueClientCert(ca: KeyPairPem, subject: ClientCertSubject, now = new Date(), validityDays = CLIENT_CERT_VALIDITY_DAYS): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const name = [`CN=${escapeDN(subject.commonName)}`, ...(subject.organizations ?? []).map((o) => `O=${escapeDN(o)}`)].join(', ');
  return issueLeafCert(ca, { subject: name, usage: x509.ExtendedKeyUsage.clientAuth, validityDays }, now);
}

function usable(certPem: string | null, keyPem: string | null, ca: X509Certificate, now: Date): boolean {
  if (certPem === null || keyPem === null) return false;
  try {
    const cert = new X509Certificate(certPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey) && cert.checkPrivateKey(createPrivateKey(keyPem))
      && new Date(cert.validTo).getTime() > now.getTime() + RENEW_BEFORE
      && cert.subject.split('\n').includes(`O=${ADMIN_CERT_ORGANIZATION}`);
  } catch {
    return false;
  }
}

/**
 * The admin client certificate `<dataDir>/pki/admin.crt` (CN windlass-admin, O system:masters,
 * the admin token's user), issued by the data directory's CA on first start and again when
 * it nears its end or the CA changed.
 */
export async function ensureAdminClientCert(dataDir: string, ca: KeyPairPem, now = new Date()): Promise<KeyPairPem> {
  const dir = join(dataDir, PKI_DIR);
  const [certPem, keyPem] = await Promise.all([readIfExists(join(dir, ADMIN_CERT_FILE)), readIfExists(join(dir, ADMIN_KEY_FILE))]);
  if (usable(certPem, keyPem, new X509Certificate(ca.certPem), now)) return { certPem: certPem!, keyPem: keyPem! };
  const pair = await issueClientCert(ca, { commonName: ADMIN_USER_NAME, organizations: [ADMIN_CERT_ORGANIZATION] }, now);
  await writeFileAtomic(join(dir, ADMIN_KEY_FILE), pair.keyPem, 0o600);
  await writeFileAtomic(join(dir, ADMIN_CERT_FILE), pair.certPem, 0o644);
  return pair;
}

/** The data directory's CA with its key (written by ensureServingCredentials), or null when there is none. */
export async function readDataDirCA(dataDir: string): Promise<KeyPairPem | null> {
  const dir = join(dataDir, PKI_DIR);
  const [certPem, keyPem] = await Promise.all([readIfExists(join(dir, CA_CERT_FILE)), readIfExists(join(dir, CA_KEY_FILE))]);
  return certPem !== null && keyPem !== null ? { certPem, keyPem } : null;
}
