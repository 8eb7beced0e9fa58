/**
 * The front-proxy PKI kubeadm writes for the aggregation layer: a CA of its own
 * (`pki/front-proxy-ca.crt`, kube's --requestheader-client-ca-file) and the client certificate
 * the server presents to aggregated API servers (`pki/front-proxy-client.crt`, CN
 * `front-proxy-client`, kube's --proxy-client-cert-file). Generated on first start; the client
 * certificate is issued again when it nears its end or the CA changed.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { join } from 'node:path';
import { generateCa, type KeyPairPem } from './certgen.js';
import { issueClientCert } from './clientcert.js';
import { ensurePrivateDir, readIfExists, writeFileAtomic } from './fsutil.js';
import { PKI_DIR } from './serving.js';

export const FRONT_PROXY_CA_CERT_FILE = 'front-proxy-ca.crt';
export const FRONT_PROXY_CA_KEY_FILE = 'front-proxy-ca.key';
export const FRONT_PROXY_CLIENT_CERT_FILE = 'front-proxy-client.crt';
export const FRONT_PROXY_CLIENT_KEY_FILE = 'front-proxy-client.key';
/** kubeadm's --requestheader-allowed-names: the client certificate's common name. */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

const RENEW_BEFORE_MS = 30 * 24 * 3600_000;

export interface FrontProxyCredentials {
  caCertPem: string;
  client: KeyPairPem;
}

function pairUsable(certPem: string | null, keyPem: string | null, issuer: X509Certificate | undefined, now: Date): boolean {
  if (certPem === null || keyPem === null) return false;
  try {
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem)) || new Date(cert.validTo).getTime() <= now.getTime() + RENEW_BEFORE_MS) return false;
    return issuer ? cert.checkIssued(issuer) && cert.verify(issuer.publicKey) : cert.ca;
  } catch {
    return false;
  }
}

export async function ensureFrontProxyCredentials(dataDir: string, now = new Date()): Promise<FrontProxyCredentials> {
  const dir = join(dataDir, PKI_DIR);
  await ensurePrivateDir(dir);
  const read = (f: string) => readIfExists(join(dir, f));
  let [caCert, caKey] = await Promise.all([read(FRONT_PROXY_CA_CERT_FILE), read(FRONT_PROXY_CA_KEY_FILE)]);
  if (!pairUsable(caCert, caKey, undefined, now)) {
    const ca = await generateCa(now, 'windlass-front-proxy-ca');
    await writeFileAtomic(join(dir, FRONT_PROXY_CA_KEY_FILE), ca.keyPem, 0o600);
    await writeFileAtomic(join(dir, FRONT_PROXY_CA_CERT_FILE), ca.certPem, 0o644);
    [caCert, caKey] = [ca.certPem, ca.keyPem];
  }
  const [certPem, keyPem] = await Promise.all([read(FRONT_PROXY_CLIENT_CERT_FILE), read(FRONT_PROXY_CLIENT_KEY_FILE)]);
  if (pairUsable(certPem, keyPem, new X509Certificate(caCert!), now)) return { caCertPem: caCert!, client: { certPem: certPem!, keyPem: keyPem! } };
  const client = await issueClientCert({ certPem: caCert!, keyPem: caKey! }, { commonName: FRONT_PROXY_CLIENT_NAME }, now);
  await writeFileAtomic(join(dir, FRONT_PROXY_CLIENT_KEY_FILE), client.keyPem, 0o600);
  await writeFileAtomic(join(dir, FRONT_PROXY_CLIENT_CERT_FILE), client.certPem, 0o644);
  return { caCertPem: caCert!, client };
}
