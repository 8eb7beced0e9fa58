import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { KubeHttp, type WatchEventLine } from './kubehttp.js';
import { kubectlOk, removeDir, startReplicas, type RunningServer } from './harness.js';

let etcd: EtcdServer;
let a: RunningServer;
let b: RunningServer;
let tokenDir = '';
let onA: KubeHttp;
let onB: KubeHttp;
const token = 'shared-replica-token-0123456789';

// Replica B shares A's serving certificate and the token file, as replicas behind a load balancer do.
beforeAll(async () => {
  etcd = await startEtcd();
  const started = await startReplicas(etcd.endpoints, 2, token);
  [a, b] = started.replicas;
  tokenDir = started.tokenDir;
  onA = KubeHttp.forDataDir(a.url, a.dataDir, token);
  onB = KubeHttp.forDataDir(b.url, a.dataDir, token);
}, 60000);

afterAll(async () => {
  onA?.destroy();
  onB?.destroy();
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
  [a?.dataDir, b?.dataDir, tokenDir].filter(Boolean).forEach((d) => removeDir(d!));
});

test('a write through one replica is visible through the other, by get and by an open watch', async () => {
  // The watch on B starts from a resourceVersion obtained from A.
  const listed = await onA.request('GET', '/api/v1/namespaces/default/configmaps');
  const events: WatchEventLine[] = [];
  const w = onB.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`, (ev) => events.push(ev), () => undefined);
  await new Promise((r) => setTimeout(r, 500));

  kubectlOk(a.kubeconfig, ['create', 'configmap', 'from-a', '-n', 'default', '--from-literal=k=v']);
  const got = await onB.request('GET', '/api/v1/namespaces/default/configmaps/from-a');
  expect(got.status).toBe(200);
  expect(got.body.data).toEqual({ k: 'v' });

  const deadline = Date.now() + 10000;
  while (!events.some((e) => e.object?.metadata?.name === 'from-a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  w.close();
  const ev = events.find((e) => e.object?.metadata?.name === 'from-a');
  expect(ev).toMatchObject({ type: 'ADDED', object: { data: { k: 'v' } } });
  expect(ev!.object.metadata.resourceVersion).toBe(got.body.metadata.resourceVersion);

  // And the other way round.
  const created = await onB.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'from-b' } });
  expect(created.status).toBe(201);
  expect(kubectlOk(a.kubeconfig, ['get', 'cm', 'from-b', '-n', 'default', '-o', 'jsonpath={.metadata.uid}'])).toBe(created.body.metadata.uid);
});

test('a stale update through one replica conflicts after a write through the other', async () => {
  const c = await onB.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'race' }, data: { n: '0' } });
  kubectlOk(a.kubeconfig, ['patch', 'cm', 'race', '-n', 'default', '-p', '{"data":{"n":"1"}}']);
  const stale = await onB.request('PUT', '/api/v1/namespaces/default/configmaps/race', { ...c.body, data: { n: '2' } });
  expect(stale.status).toBe(409);
  expect(stale.body.reason).toBe('Conflict');
});
