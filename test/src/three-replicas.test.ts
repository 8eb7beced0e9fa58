import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { httpsCall, removeDir, startWindlass, tempDir, type RunningServer, servingCertFlags } from './harness.js';

let etcd: EtcdServer;
const replicas: RunningServer[] = [];
const token = 'three-replicas-token-0123456789';
let ca: Buffer;
const cleanup: string[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  const first = await startWindlass(['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')]);
  replicas.push(first);
  ca = readFileSync(join(first.dataDir, 'pki', 'ca.crt'));
  const dir = tempDir();
  cleanup.push(dir);
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const shared = ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--token-auth-file', tokenFile,
    ...servingCertFlags(first.dataDir)];
  replicas.push(await startWindlass(shared, tempDir()));
  replicas.push(await startWindlass(shared, tempDir()));
}, 60000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await etcd?.stop();
  [...replicas.map((r) => r.dataDir), ...cleanup].forEach(removeDir);
});

const call = (r: RunningServer, method: string, path: string, body?: unknown) =>
  httpsCall({ ...r, dataDir: replicas[0].dataDir }, method, path, {
    token: r === replicas[0] ? readFileSync(join(r.dataDir, 'admin-token'), 'utf8').trim() : token,
    body,
    contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
  });

function watch(r: RunningServer, path: string) {
  const events: any[] = [];
  const authToken = r === replicas[0] ? readFileSync(join(r.dataDir, 'admin-token'), 'utf8').trim() : token;
  const req = https.get(`${r.url}${path}`, { ca, servername: 'localhost', headers: { authorization: `Bearer ${authToken}` } }, (res) => {
    let buf = '';
    res.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
  });
  req.on('error', () => undefined);
  return { events, close: () => req.destroy() };
}

test('a watch opened on one replica from a resourceVersion read on another gets every later change exactly once', async () => {
  const [a, b, c] = replicas;
  const ns = '/api/v1/namespaces/default/configmaps';
  // Some history before the starting point, written through every replica.
  for (let i = 0; i < 6; i++) await call(replicas[i % 3], 'POST', ns, { metadata: { name: `pre${i}` }, data: { i: String(i) } });
  const listed = await call(b, 'GET', ns);
  const startRv = Number(listed.body.metadata.resourceVersion);
  const w = watch(a, `${ns}?watch=1&resourceVersion=${startRv}`);
  await new Promise((r) => setTimeout(r, 300));

  // Changes after the starting point, through all three replicas, some concurrently.
  const acks: Array<{ type: string; name: string; rv: number }> = [];
  const record = (type: string, name: string, res: { status: number; body: any }) => {
    expect(res.status).toBeLessThan(300);
    acks.push({ type, name, rv: Number(type === 'DELETED' ? NaN : res.body.metadata.resourceVersion) });
  };
  await Promise.all([0, 1, 2].map(async (k) => {
    const r = replicas[k];
    for (let i = 0; i < 10; i++) {
      const name = `r${k}-${i}`;
      record('ADDED', name, await call(r, 'POST', ns, { metadata: { name }, data: { i: String(i) } }));
      if (i % 3 === 0) record('MODIFIED', name, await call(replicas[(k + 1) % 3], 'PATCH', `${ns}/${name}`, { data: { i: 'patched' } }));
    }
  }));
  await call(c, 'DELETE', `${ns}/pre0`);
  acks.push({ type: 'DELETED', name: 'pre0', rv: NaN });

  const deadline = Date.now() + 15000;
  while (w.events.length < acks.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  w.close();

  const got = w.events.map((e) => ({ type: e.type, name: e.object.metadata.name, rv: Number(e.object.metadata.resourceVersion) }));
  // Exactly once, in revision order, none at or before the starting revision.
  const rvs = got.map((e) => e.rv);
  expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
  expect(new Set(rvs).size).toBe(rvs.length);
  expect(rvs.every((rv) => rv > startRv)).toBe(true);
  // The same set of changes the writers were told about.
  const key = (e: { type: string; name: string }) => `${e.type}:${e.name}`;
  expect(got.map(key).sort()).toEqual(acks.map(key).sort());
  for (const ack of acks.filter((x) => !Number.isNaN(x.rv))) {
    expect(got.find((g) => g.rv === ack.rv)).toMatchObject({ type: ack.type, name: ack.name });
  }
});
