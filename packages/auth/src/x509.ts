/**
 * Client certificate authentication (k8s.io/apiserver authentication/request/x509): a TLS client
 * certificate that chains to --client-ca-file and allows client authentication names the user
 * by its subject — CommonName the user name, Organizations the groups, the Kubernetes UID
 * attribute (1.3.6.1.4.1.57683.2, kube 1.33+'s AllowParsingUserUIDFromCertAuth, on by default)
 * the uid — with the certificate's SHA-256 as the credential id.
 *
 * The chain is verified by the TLS layer (OpenSSL, against the client CAs, with the ssl_client
 * purpose that plays the part of Go's ExtKeyUsageClientAuth); this reads its verdict.
 */
import { createHash } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { CREDENTIAL_ID_KEY } from './serviceaccount.js';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

export const X509_UID_OID = '1.3.6.1.4.1.57683.2';

/** A user, an error (a certificate was presented and refused: 401 unless a token succeeds), or null (none, or no CommonName). */
export type CertificateAnswer = { user: UserInfo } | { error: string } | null;

/** What OpenSSL reports about the chain, in Go's crypto/x509 words (kube logs them). */
function verifyError(code: string): string {
  switch (code) {
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'x509: certificate has expired or is not yet valid';
    case 'INVALID_PURPOSE':
      return 'x509: certificate specifies an incompatible key usage';
    default:
      return 'x509: certificate signed by unknown authority';
  }
}

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The user of a verified certificate (kube's CommonNameUserConversion); an error for an ambiguous uid. */
export function certificateUser(cert: Pick<DetailedPeerCertificate, 'subject' | 'raw'>): CertificateAnswer {
  const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
  const cn = values(subject.CN)[0] ?? '';
  if (cn === '') return null;
  const uids = values(subject[X509_UID_OID]);
  if (uids.length > 1) return { error: `expected 1 UID, but found multiple: [${uids.join(' ')}]` };
  if (uids.length === 1 && uids[0] === '') return { error: 'UID cannot be an empty string' };
  const id = `X509SHA256=${createHash('sha256').update(cert.raw).digest('hex')}`;
  return { user: withAuthenticatedGroup({ name: cn, uid: uids[0] ?? '', groups: values(subject.O), extra: { [CREDENTIAL_ID_KEY]: [id] } }) };
}

const perConnection = new WeakMap<object, CertificateAnswer>();

/** The answer for a connection's client certificate, worked out once per connection (the certificate cannot change). */
export function authenticateClientCertificate(socket: object): CertificateAnswer {
  const cached = perConnection.get(socket);
  if (cached !== undefined) return cached;
  const tls = socket as Partial<TLSSocket>;
  let answer: CertificateAnswer = null;
  if (typeof tls.getPeerCertificate === 'function') {
    const cert = tls.getPeerCertificate(false);
    if (cert && cert.raw) answer = tls.authorized ? certificateUser(cert) : { error: verifyError(String(tls.authorizationError ?? '')) };
  }
  perConnection.set(socket, answer);
  return answer;
}
