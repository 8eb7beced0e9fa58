/**
 * Service account keys as kube-apiserver reads them (client-go's keyutil): the signing key of
 * --service-account-signing-key-file (an RSA or ECDSA private key, PKCS#1, SEC1 or PKCS#8), and
 * the verification keys of --service-account-key-file (public keys, certificates, or a private
 * key whose public half is meant). `start` generates a signing key in its data directory when
 * none is given, as kubeadm writes pki/sa.key and pki/sa.pub.
 */
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { algorithmFor } from './jose.js';
import { ensurePrivateDir, readIfExists, writeFileAtomic } from './fsutil.js';
import { PKI_DIR } from './serving.js';

export const SA_KEY_FILE = 'sa.key';
export const SA_PUBLIC_KEY_FILE = 'sa.pub';

interface PEMBlock {
  type: string;
  text: string;
}

function pemBlocks(data: string): PEMBlock[] {
  const out: PEMBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
  for (let m = re.exec(data); m; m = re.exec(data)) out.push({ type: m[1]!, text: m[0] });
  return out;
}

const privateTypes = new Set(['RSA PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY']);
const publicTypes = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY', 'CERTIFICATE']);

/** Only the key types kube signs and verifies tokens with. */
function usable(key: KeyObject): boolean {
  try {
    algorithmFor(key);
    return true;
  } catch {
    return false;
  }
}

/** keyutil.ParsePrivateKeyPEM: the first RSA or ECDSA private key of the data. */
export function parsePrivateKeyPEM(data: string): KeyObject {
  for (const block of pemBlocks(data)) {
    if (!privateTypes.has(block.type)) continue;
    let key: KeyObject;
    try {
      key = createPrivateKey(block.text);
    } catch {
      continue;
    }
    if (usable(key)) return key;
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}

/**
 * keyutil.PublicKeysFromFile: every RSA or ECDSA public key (PKIX, PKCS#1 or a certificate's)
 * of the data, or else the public half of its private key.
 */
export function parsePublicKeysPEM(data: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const block of pemBlocks(data)) {
    if (!publicTypes.has(block.type)) continue;
    try {
      const key = createPublicKey(block.text);
      if (usable(key)) keys.push(key);
    } catch {
      // keyutil skips blocks it cannot parse as an RSA or ECDSA key.
    }
  }
  if (keys.length > 0) return keys;
  try {
    return [createPublicKey(parsePrivateKeyPEM(data))];
  } catch {
    throw new Error('data does not contain any valid RSA or ECDSA public keys');
  }
}

/**
 * The signing key `<dataDir>/pki/sa.key` (0600) and its public half `sa.pub`, generated on first
 * start as an ECDSA P-256 key (tokens are ES256, which kube signs and every JOSE library
 * verifies; generating one takes microseconds where RSA takes a noticeable part of a start).
 * A key edited into the file by hand is used as long as kube could sign with it.
 */
export async function ensureServiceAccountSigningKey(dataDir: string): Promise<{ keyFile: string; keyPem: string }> {
  const dir = join(dataDir, PKI_DIR);
  const keyFile = join(dir, SA_KEY_FILE);
  const stored = await readIfExists(keyFile);
  if (stored !== null) {
    try {
      parsePrivateKeyPEM(stored);
    } catch (err) {
      throw new Error(`${keyFile}: ${(err as Error).message}; delete it to generate a new service account signing key`);
    }
    return { keyFile, keyPem: stored };
  }
  await ensurePrivateDir(dir);
  const { privateKey, publicKey } = await promisify(generateKeyPair)('ec', { namedCurve: 'P-256' });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  // The public key first: a crash in between leaves no signing key, which the next start generates again.
  await writeFileAtomic(join(dir, SA_PUBLIC_KEY_FILE), publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
  await writeFileAtomic(keyFile, keyPem, 0o600);
  return { keyFile, keyPem };
}
