import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureServingCredentials } from './serving.js';
import { loadServingCredentialsFromFiles } from './tlsfiles.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function files(cert: string, key: string): Promise<[string, string]> {
  const dir = await dirs.make();
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, cert);
  await writeFile(keyFile, key);
  return [certFile, keyFile];
}

describe('loadServingCredentialsFromFiles', () => {
  let generated: Awaited<ReturnType<typeof ensureServingCredentials>>;
  beforeAll(async () => {
    generated = await ensureServingCredentials(await dirs.make(), { hosts: ['localhost'] });
  });

  it('loads a certificate and matching key; a chain ending in its root yields that root as CA', async () => {
    const chain = generated.certPem + generated.caCertPem;
    const creds = await loadServingCredentialsFromFiles(...(await files(chain, generated.keyPem)));
    expect(creds.certPem).toBe(chain);
    expect(creds.keyPem).toBe(generated.keyPem);
    expect(new X509Certificate(creds.caCertPem!).fingerprint256).toBe(new X509Certificate(generated.caCertPem).fingerprint256);
  });

  it('gives no CA for a leaf whose issuer is not in the file', async () => {
    const creds = await loadServingCredentialsFromFiles(...(await files(generated.certPem, generated.keyPem)));
    expect(creds.caCertPem).toBeUndefined();
  });

  it('reports a missing file by name', async () => {
    const [certFile, keyFile] = await files(generated.certPem, generated.keyPem);
    await expect(loadServingCredentialsFromFiles(certFile + '.nope', keyFile)).rejects.toThrow(`unable to read TLS certificate file "${certFile}.nope"`);
    await expect(loadServingCredentialsFromFiles(certFile, keyFile + '.nope')).rejects.toThrow(`unable to read TLS private key file "${keyFile}.nope"`);
  });

  it('rejects a certificate file without a certificate', async () => {
    const [certFile, keyFile] = await files('hello', generated.keyPem);
    await expect(loadServingCredentialsFromFiles(certFile, keyFile)).rejects.toThrow(/contains no PEM certificate/);
  });

  it('rejects a certificate that does not parse', async () => {
    const [certFile, keyFile] = await files('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', generated.keyPem);
    await expect(loadServingCredentialsFromFiles(certFile, keyFile)).rejects.toThrow(/certificate 1 does not parse/);
  });

  it('rejects a key file that is not a key', async () => {
    const [certFile, keyFile] = await files(generated.certPem, generated.certPem);
    await expect(loadServingCredentialsFromFiles(certFile, keyFile)).rejects.toThrow(/does not hold a usable unencrypted PEM private key/);
  });

  it('rejects an encrypted key', async () => {
    const encrypted = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'pw',
    }) as string;
    const [certFile, keyFile] = await files(generated.certPem, encrypted);
    await expect(loadServingCredentialsFromFiles(certFile, keyFile)).rejects.toThrow(/does not hold a usable unencrypted PEM private key/);
  });

  it('rejects a key that belongs to another certificate', async () => {
    const [certFile, keyFile] = await files(generated.certPem, await otherKey());
    await expect(loadServingCredentialsFromFiles(certFile, keyFile)).rejects.toThrow(`does not match the certificate in "${certFile}"`);
  });
});

async function otherKey(): Promise<string> {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}
