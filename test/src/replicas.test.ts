import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { httpsCall, kubectlOk, removeDir, startWindlass, tempDir, type RunningServer, servingCertFlags } from './harness.js';

let etcd: EtcdServer;
let a: RunningServer;
let b: RunningServer;
const token = 'shared-replica-token-0123456789';

beforeAll(async () => {
  etcd = await startEtcd();
  a = await startWindlass(['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')]);
  // Replica B shares A's serving certificate and a token file, as replicas behind a load balancer do.
  const dir = tempDir();
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  b = await startWindlass([
    '--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','),
    ...servingCertFlags(a.dataDir),
    '--token-auth-file', tokenFile,
  ], dir);
}, 60000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
  if (a) removeDir(a.dataDir);
  if (b) removeDir(b.dataDir);
});

/** Requests to B verify its certificate with A's CA: they share the serving certificate. */
const onB = (method: string, path: string, body?: unknown) => httpsCall({ ...b, dataDir: a.dataDir }, method, path, { token, body });

test('a write through one replica is visible through the other, by get and by an open watch', async () => {
  // The watch on B starts from a resourceVersion obtained from A.
  const listed = await httpsCall(a, 'GET', '/api/v1/namespaces/default/configmaps', { token: readFileSync(join(a.dataDir, 'admin-token'), 'utf8').trim() });
  const watchPath = `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`;
  const https = await import('node:https');
  const events: any[] = [];
  const req = https.get(`${b.url}${watchPath}`, { ca: readFileSync(join(a.dataDir, 'pki', 'ca.crt')), servername: 'localhost', headers: { authorization: `Bearer ${token}` } }, (res) => {
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
  await new Promise((r) => setTimeout(r, 500));

  kubectlOk(a.kubeconfig, ['create', 'configmap', 'from-a', '-n', 'default', '--from-literal=k=v']);
  const got = await onB('GET', '/api/v1/namespaces/default/configmaps/from-a');
  expect(got.status).toBe(200);
  expect(got.body.data).toEqual({ k: 'v' });

  const deadline = Date.now() + 10000;
  while (!events.some((e) => e.object?.metadata?.name === 'from-a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  req.destroy();
  const ev = events.find((e) => e.object?.metadata?.name === 'from-a');
  expect(ev).toMatchObject({ type: 'ADDED', object: { data: { k: 'v' } } });
  expect(ev.object.metadata.resourceVersion).toBe(got.body.metadata.resourceVersion);

  // And the other way round, with B's own credentials.
  const created = await onB('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'from-b' } });
  expect(created.status).toBe(201);
  expect(kubectlOk(a.kubeconfig, ['get', 'cm', 'from-b', '-n', 'default', '-o', 'jsonpath={.metadata.uid}'])).toBe(created.body.metadata.uid);
});

test('a stale update through one replica conflicts after a write through the other', async () => {
  const c = await onB('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'race' }, data: { n: '0' } });
  kubectlOk(a.kubeconfig, ['patch', 'cm', 'race', '-n', 'default', '-p', '{"data":{"n":"1"}}']);
  const stale = await onB('PUT', '/api/v1/namespaces/default/configmaps/race', { ...c.body, data: { n: '2' } });
  expect(stale.status).toBe(409);
  expect(stale.body.reason).toBe('Conflict');
});
