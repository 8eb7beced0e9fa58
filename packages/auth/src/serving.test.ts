import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { readFile, stat, writeFile, unlink, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadX509 } from './certgen.js';
import { ensureServingCredentials } from './serving.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const HOSTS = ['localhost', '127.0.0.1', '::1', 'dev-box.example', '10.20.30.40'];
const DAY = 86400_000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

const mode = async (p: string) => (await stat(p)).mode & 0o777;

describe('ensureServingCredentials: first start', () => {
  let dataDir: string;
  let creds: Awaited<ReturnType<typeof ensureServingCredentials>>;
  let ca: X509Certificate;
  let leaf: X509Certificate;
  const before = Date.now();

  beforeAll(async () => {
    dataDir = await dirs.make();
    creds = await ensureServingCredentials(dataDir, { hosts: HOSTS });
    ca = new X509Certificate(creds.caCertPem);
    leaf = new X509Certificate(creds.certPem);
  });

  it('stores ca.crt, ca.key, apiserver.crt and apiserver.key under pki/, keys 0600', async () => {
    const pki = join(dataDir, 'pki');
    expect((await readdir(pki)).sort()).toEqual(['apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key']);
    expect(await readFile(join(pki, 'ca.crt'), 'utf8')).toBe(creds.caCertPem);
    expect(await readFile(join(pki, 'apiserver.crt'), 'utf8')).toBe(creds.certPem);
    expect(await readFile(join(pki, 'apiserver.key'), 'utf8')).toBe(creds.keyPem);
    expect(await mode(join(pki, 'ca.key'))).toBe(0o600);
    expect(await mode(join(pki, 'apiserver.key'))).toBe(0o600);
    expect(await mode(pki)).toBe(0o700);
  });

  it('makes a self-signed CA with CA basic constraints and keyCertSign', async () => {
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    const x509 = await loadX509();
    const parsed = new x509.X509Certificate(creds.caCertPem);
    const ku = parsed.getExtension(x509.KeyUsagesExtension);
    expect(ku).not.toBeNull();
    expect(ku!.usages & x509.KeyUsageFlags.keyCertSign).toBeTruthy();
    expect(parsed.getExtension(x509.BasicConstraintsExtension)?.critical).toBe(true);
  });

  it('signs the serving certificate with the CA key', async () => {
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    // A key that is not the CA's must not verify it.
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    expect(leaf.verify(other.publicKey)).toBe(false);
    expect(leaf.checkPrivateKey(createPrivateKey(creds.keyPem))).toBe(true);
  });

  it('uses ECDSA P-256 keys', () => {
    for (const cert of [ca, leaf]) {
      expect(cert.publicKey.asymmetricKeyType).toBe('ec');
      expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    }
  });

  it('names every host as a SAN, and no other', () => {
    expect(leaf.checkHost('localhost', { subject: 'never' })).toBe('localhost');
    expect(leaf.checkHost('dev-box.example', { subject: 'never' })).toBe('dev-box.example');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkIP('10.20.30.40')).toBe('10.20.30.40');
    const sans = leaf.subjectAltName!.split(', ').sort();
    expect(sans).toEqual(
      ['DNS:localhost', 'DNS:dev-box.example', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.20.30.40'].sort(),
    );
    expect(leaf.checkHost('example.com', { subject: 'never' })).toBeUndefined();
  });

  it('is for server authentication', () => {
    expect(leaf.keyUsage).toEqual([SERVER_AUTH]);
  });

  it('has sane validity dates', () => {
    const after = Date.now();
    for (const cert of [ca, leaf]) {
      const from = Date.parse(cert.validFrom);
      // Backdated for clock skew, but not by more than a couple of hours.
      expect(from).toBeLessThanOrEqual(after);
      expect(from).toBeGreaterThan(before - 2 * 3600_000);
    }
    expect(Date.parse(leaf.validTo)).toBeGreaterThan(before + 300 * DAY);
    expect(Date.parse(leaf.validTo)).toBeLessThan(after + 400 * DAY);
    expect(Date.parse(ca.validTo)).toBeGreaterThan(Date.parse(leaf.validTo));
  });

  it('reuses everything on the next start, byte for byte', async () => {
    const again = await ensureServingCredentials(dataDir, { hosts: HOSTS });
    expect(again).toEqual(creds);
  });

  it('reuses the certificate when asked for a subset of its hosts, in any spelling', async () => {
    const again = await ensureServingCredentials(dataDir, { hosts: ['LOCALHOST.', '[::1]', '0:0:0:0:0:0:0:1'] });
    expect(again).toEqual(creds);
  });
});

describe('ensureServingCredentials: reissue', () => {
  it('issues a new serving certificate from the same CA when a host is added, keeping the old hosts', async () => {
    const dataDir = await dirs.make();
    const first = await ensureServingCredentials(dataDir, { hosts: ['localhost', '127.0.0.1'] });
    const second = await ensureServingCredentials(dataDir, { hosts: ['localhost', '192.168.7.9'] });
    expect(second.caCertPem).toBe(first.caCertPem);
    expect(second.certPem).not.toBe(first.certPem);
    const leaf = new X509Certificate(second.certPem);
    expect(leaf.checkIP('192.168.7.9')).toBeDefined();
    expect(leaf.checkIP('127.0.0.1')).toBeDefined();
    expect(leaf.checkHost('localhost', { subject: 'never' })).toBeDefined();
    expect(leaf.verify(new X509Certificate(first.caCertPem).publicKey)).toBe(true);
    expect(await readFile(join(dataDir, 'pki', 'apiserver.crt'), 'utf8')).toBe(second.certPem);
    expect(await readFile(join(dataDir, 'pki', 'apiserver.key'), 'utf8')).toBe(second.keyPem);
    // ...and then sticks with it, even when asked for the first set again.
    expect(await ensureServingCredentials(dataDir, { hosts: ['localhost', '127.0.0.1'] })).toEqual(second);
  });

  it('renews a serving certificate that is about to expire', async () => {
    const dataDir = await dirs.make();
    const first = await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    const later = new Date(Date.now() + 350 * DAY);
    const renewed = await ensureServingCredentials(dataDir, { hosts: ['localhost'], now: later });
    expect(renewed.caCertPem).toBe(first.caCertPem);
    expect(renewed.certPem).not.toBe(first.certPem);
    expect(Date.parse(new X509Certificate(renewed.certPem).validTo)).toBeGreaterThan(later.getTime() + 300 * DAY);
  });

  it('replaces a CA that is about to expire, and the serving certificate with it', async () => {
    const dataDir = await dirs.make();
    const first = await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    const later = new Date(Date.now() + 3640 * DAY);
    const renewed = await ensureServingCredentials(dataDir, { hosts: ['localhost'], now: later });
    expect(renewed.caCertPem).not.toBe(first.caCertPem);
    expect(new X509Certificate(renewed.certPem).verify(new X509Certificate(renewed.caCertPem).publicKey)).toBe(true);
    expect(await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8')).toBe(renewed.caCertPem);
  });

  it('replaces a serving key that does not match the certificate', async () => {
    const dataDir = await dirs.make();
    const first = await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    const stray = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await writeFile(join(dataDir, 'pki', 'apiserver.key'), stray);
    const repaired = await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    expect(repaired.caCertPem).toBe(first.caCertPem);
    expect(new X509Certificate(repaired.certPem).checkPrivateKey(createPrivateKey(repaired.keyPem))).toBe(true);
  });

  it('replaces a serving certificate signed by another CA', async () => {
    const a = await dirs.make();
    const b = await dirs.make();
    const credsA = await ensureServingCredentials(a, { hosts: ['localhost'] });
    const credsB = await ensureServingCredentials(b, { hosts: ['localhost'] });
    await writeFile(join(a, 'pki', 'apiserver.crt'), credsB.certPem);
    await writeFile(join(a, 'pki', 'apiserver.key'), credsB.keyPem);
    const fixed = await ensureServingCredentials(a, { hosts: ['localhost'] });
    expect(fixed.caCertPem).toBe(credsA.caCertPem);
    expect(new X509Certificate(fixed.certPem).verify(new X509Certificate(credsA.caCertPem).publicKey)).toBe(true);
  });

  it('regenerates the PKI when only a CA key survives an interrupted first start', async () => {
    const dataDir = await dirs.make();
    await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    await unlink(join(dataDir, 'pki', 'ca.crt'));
    const creds = await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    expect(new X509Certificate(creds.certPem).verify(new X509Certificate(creds.caCertPem).publicKey)).toBe(true);
  });
});

describe('ensureServingCredentials: refusals', () => {
  it('refuses a CA certificate whose key is missing rather than replacing a CA clients may trust', async () => {
    const dataDir = await dirs.make();
    await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    await unlink(join(dataDir, 'pki', 'ca.key'));
    await expect(ensureServingCredentials(dataDir, { hosts: ['localhost'] })).rejects.toThrow(/ca\.key is missing/);
  });

  it('refuses a corrupt CA', async () => {
    const dataDir = await dirs.make();
    await ensureServingCredentials(dataDir, { hosts: ['localhost'] });
    await writeFile(join(dataDir, 'pki', 'ca.crt'), 'garbage');
    await expect(ensureServingCredentials(dataDir, { hosts: ['localhost'] })).rejects.toThrow(/not a matching CA certificate and key/);
  });

  it('needs at least one host, and rejects things that are not hosts', async () => {
    const dataDir = await dirs.make();
    await expect(ensureServingCredentials(dataDir, { hosts: [] })).rejects.toThrow(/at least one host/);
    await expect(ensureServingCredentials(dataDir, { hosts: ['https://localhost:6443'] })).rejects.toThrow(/invalid host/);
  });
});

describe('ensureServingCredentials: cost', () => {
  it('starts fast: first start well under a second, later starts in milliseconds', async () => {
    const dataDir = await dirs.make();
    let t = performance.now();
    await ensureServingCredentials(dataDir, { hosts: HOSTS });
    const first = performance.now() - t;
    t = performance.now();
    await ensureServingCredentials(dataDir, { hosts: HOSTS });
    const reuse = performance.now() - t;
    // The library import is paid by the first test file that generates; this file already did.
    expect(first).toBeLessThan(500);
    expect(reuse).toBeLessThan(100);
  });
});
