import { X509Certificate } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCa } from './certgen.js';
import { ensureAdminClientCert, issueClientCert, readDataDirCA } from './clientcert.js';
import { ensureServingCredentials } from './serving.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('client certificates from the data directory CA', () => {
  it('are clientAuth certificates of the subject, signed by the CA', async () => {
    const ca = await generateCa();
    const pair = await issueClientCert(ca, { commonName: 'alice', organizations: ['a,b', 'system:masters'] });
    const cert = new X509Certificate(pair.certPem);
    // Node prints the subject with RFC 4514 escapes; the value itself is `a,b`.
    expect(cert.subject.split('\n')).toEqual(['CN=alice', 'O=a\\,b', 'O=system:masters']);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkIssued(new X509Certificate(ca.certPem)) && cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
  });

  it('give the admin a system:masters certificate, kept across starts and reissued for a new CA', async () => {
    const dir = await dirs.make();
    await ensureServingCredentials(dir, { hosts: ['127.0.0.1'] });
    const ca = (await readDataDirCA(dir))!;
    const first = await ensureAdminClientCert(dir, ca);
    expect(new X509Certificate(first.certPem).subject.split('\n')).toEqual(['CN=windlass-admin', 'O=system:masters']);
    expect((await stat(join(dir, 'pki', 'admin.key'))).mode & 0o777).toBe(0o600);
    expect((await ensureAdminClientCert(dir, ca)).certPem).toBe(first.certPem);
    const reissued = await ensureAdminClientCert(dir, await generateCa());
    expect(reissued.certPem).not.toBe(first.certPem);
    expect(await readDataDirCA(await dirs.make())).toBeNull();
  });
});
