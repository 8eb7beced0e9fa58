import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** Credentials from --tls-cert-file / --tls-private-key-file. */
export interface FileServingCredentials {
  /** The file as given: the serving certificate, optionally followed by its chain. */
  certPem: string;
  keyPem: string;
  /**
   * The self-signed root the file's chain ends in (or the certificate itself when it is
   * self-signed), for a kubeconfig's certificate-authority-data; undefined when the chain
   * stops below its root, in which case clients must already trust the issuer.
   */
  caCertPem?: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

async function readNamed(kind: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`unable to read ${kind} "${path}": ${(err as Error).message}`);
  }
}

function isSelfSigned(cert: X509Certificate): boolean {
  return cert.checkIssued(cert) && cert.verify(cert.publicKey);
}

/** Reads and validates a certificate (chain) and its private key, so a bad file fails at startup, not at the first handshake. */
export async function loadServingCredentialsFromFiles(certFile: string, keyFile: string): Promise<FileServingCredentials> {
  const [certPem, keyPem] = await Promise.all([readNamed('TLS certificate file', certFile), readNamed('TLS private key file', keyFile)]);

  const blocks = certPem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new Error(`TLS certificate file "${certFile}" contains no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const chain = blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new Error(`TLS certificate file "${certFile}": certificate ${i + 1} does not parse: ${(err as Error).message}`);
    }
  });

  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    throw new Error(`TLS private key file "${keyFile}" does not hold a usable unencrypted PEM private key: ${(err as Error).message}`);
  }
  if (!chain[0]!.checkPrivateKey(key)) {
    throw new Error(`TLS private key file "${keyFile}" does not match the certificate in "${certFile}"`);
  }

  const root = chain[chain.length - 1]!;
  return isSelfSigned(root) ? { certPem, keyPem, caCertPem: root.toString() } : { certPem, keyPem };
}
