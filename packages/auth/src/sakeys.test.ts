import { generateKeyPairSync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCa } from './certgen.js';
import { keyIDFor } from './jose.js';
import { ensureServiceAccountSigningKey, parsePrivateKeyPEM, parsePublicKeysPEM } from './sakeys.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('key files as keyutil reads them', () => {
  it.each<[string, string]>([
    ['PKCS#1 RSA', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string],
    ['PKCS#8 RSA', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
    ['SEC1 EC', ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string],
    ['PKCS#8 EC', ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
  ])('a signing key in %s', (_name, pem) => {
    expect(parsePrivateKeyPEM(`# comment\n${pem}`).type).toBe('private');
  });

  it('refuses a signing key file without an RSA or ECDSA private key', () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(() => parsePrivateKeyPEM(ed)).toThrow('data does not contain a valid RSA or ECDSA private key');
    expect(() => parsePrivateKeyPEM(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string)).toThrow('valid RSA or ECDSA private key');
  });

  it('reads every public key of a file: PKIX, PKCS#1 and certificates', async () => {
    const ca = await generateCa();
    const pem = [
      rsa.publicKey.export({ type: 'spki', format: 'pem' }),
      ec.publicKey.export({ type: 'spki', format: 'pem' }),
      rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }),
      ca.certPem,
    ].join('\n');
    const keys = parsePublicKeysPEM(pem);
    expect(keys.map((k) => k.asymmetricKeyType)).toEqual(['rsa', 'ec', 'rsa', 'ec']);
    expect(keyIDFor(keys[0]!)).toBe(keyIDFor(rsa.publicKey));
    expect(keyIDFor(keys[2]!)).toBe(keyIDFor(rsa.publicKey));
  });

  it('takes the public half of a private key file, and refuses a file with no key', () => {
    const [key] = parsePublicKeysPEM(ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string);
    expect(keyIDFor(key!)).toBe(keyIDFor(ec.publicKey));
    expect(() => parsePublicKeysPEM('nothing here')).toThrow('data does not contain any valid RSA or ECDSA public keys');
  });
});

describe('the generated signing key', () => {
  it('is an ECDSA P-256 key written 0600 with its public half, and reused on the next start', async () => {
    const dir = await dirs.make();
    const first = await ensureServiceAccountSigningKey(dir);
    expect(first.keyFile).toBe(join(dir, 'pki', 'sa.key'));
    expect(parsePrivateKeyPEM(first.keyPem).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect((await stat(first.keyFile)).mode & 0o777).toBe(0o600);
    const pub = parsePublicKeysPEM(await readFile(join(dir, 'pki', 'sa.pub'), 'utf8'));
    expect(keyIDFor(pub[0]!)).toBe(keyIDFor(parsePrivateKeyPEM(first.keyPem)));
    expect((await ensureServiceAccountSigningKey(dir)).keyPem).toBe(first.keyPem);
  });

  it('keeps a key put there by hand, and refuses a file that holds none', async () => {
    const dir = await dirs.make();
    await ensureServiceAccountSigningKey(dir);
    const mine = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    await writeFile(join(dir, 'pki', 'sa.key'), mine);
    expect((await ensureServiceAccountSigningKey(dir)).keyPem).toBe(mine);
    await writeFile(join(dir, 'pki', 'sa.key'), 'garbage');
    await expect(ensureServiceAccountSigningKey(dir)).rejects.toThrow('delete it to generate a new service account signing key');
  });
});
