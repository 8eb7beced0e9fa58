import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStorage } from '../etcd.js';
import { startEtcd, type EtcdServer } from '../testing/etcd.js';
import { isStorageError } from '../types.js';

/** A CA, a serving certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makePki(dir: string): Record<'ca' | 'caKey' | 'server' | 'serverKey' | 'client' | 'clientKey' | 'otherCa', string> {
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ca = (name: string) => ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.crt`), '-days', '1', '-subj', `/CN=${name}`);
  ca('ca');
  ca('other-ca');
  const leaf = (name: string, ext: string) => {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`);
    writeFileSync(f(`${name}.ext`), ext);
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '1', '-extfile', f(`${name}.ext`));
  };
  leaf('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  leaf('client', 'extendedKeyUsage=clientAuth\n');
  return { ca: f('ca.crt'), caKey: f('ca.key'), server: f('server.crt'), serverKey: f('server.key'), client: f('client.crt'), clientKey: f('client.key'), otherCa: f('other-ca.crt') };
}

let dir: string;
let pki: ReturnType<typeof makePki>;
let etcd: EtcdServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'windlass-etcd-tls-'));
  pki = makePki(dir);
  etcd = await startEtcd({ tls: { certFile: pki.server, keyFile: pki.serverKey, caFile: pki.ca } });
}, 60_000);
afterAll(async () => {
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an etcd that requires client certificates is reached with --etcd-cafile/--etcd-certfile/--etcd-keyfile', async () => {
  expect(etcd.endpoints[0]).toMatch(/^https:/);
  const s = await EtcdStorage.connect({ endpoints: etcd.endpoints, tls: { ca: readFileSync(pki.ca), cert: readFileSync(pki.client), key: readFileSync(pki.clientKey) } });
  try {
    const events: string[] = [];
    const w = await s.watch('/tls/', 0, { events: (evs) => events.push(...evs.map((e) => e.key)), error: () => {} });
    const { modRevision } = await s.create('/tls/a', Buffer.from('1'));
    await s.update('/tls/a', Buffer.from('2'), modRevision);
    expect((await s.get('/tls/a'))?.value.toString()).toBe('2');
    for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['/tls/a', '/tls/a']);
    w.close();
  } finally {
    await s.close();
  }
});

test('without a client certificate, or trusting another CA, connecting fails Unavailable', async () => {
  for (const tls of [{ ca: readFileSync(pki.ca) }, { ca: readFileSync(pki.otherCa), cert: readFileSync(pki.client), key: readFileSync(pki.clientKey) }]) {
    const err = await EtcdStorage.connect({ endpoints: etcd.endpoints, tls, connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect((err as Error).message).toContain(`cannot reach etcd at ${etcd.endpoints[0]}`);
  }
});
