import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { KubeHttp, type WatchEventLine } from './kubehttp.js';
import { removeDir, startReplicas, type RunningServer } from './harness.js';

let etcd: EtcdServer;
let replicas: RunningServer[] = [];
let clients: KubeHttp[] = [];
let tokenDir = '';
const token = 'three-replicas-token-0123456789';

beforeAll(async () => {
  etcd = await startEtcd();
  ({ replicas, tokenDir } = await startReplicas(etcd.endpoints, 3, token));
  clients = replicas.map((r) => KubeHttp.forDataDir(r.url, replicas[0].dataDir, token));
}, 60000);

afterAll(async () => {
  clients.forEach((c) => c.destroy());
  await Promise.all(replicas.map((r) => r.stop()));
  await etcd?.stop();
  [...replicas.map((r) => r.dataDir), tokenDir].forEach(removeDir);
});

test('a watch opened on one replica from a resourceVersion read on another gets every later change exactly once', async () => {
  const [a, b, c] = clients;
  const ns = '/api/v1/namespaces/default/configmaps';
  // Some history before the starting point, written through every replica.
  for (let i = 0; i < 6; i++) await clients[i % 3].request('POST', ns, { metadata: { name: `pre${i}` }, data: { i: String(i) } });
  const listed = await b.request('GET', ns);
  const startRv = Number(listed.body.metadata.resourceVersion);
  const events: WatchEventLine[] = [];
  const w = a.watch(`${ns}?watch=1&resourceVersion=${startRv}`, (ev) => events.push(ev), () => undefined);
  await new Promise((r) => setTimeout(r, 300));

  // Changes after the starting point, through all three replicas, some concurrently.
  const acks: Array<{ type: string; name: string; rv: number }> = [];
  const record = (type: string, name: string, res: { status: number; body: any }) => {
    expect(res.status).toBeLessThan(300);
    acks.push({ type, name, rv: Number(res.body.metadata.resourceVersion) });
  };
  await Promise.all([0, 1, 2].map(async (k) => {
    for (let i = 0; i < 10; i++) {
      const name = `r${k}-${i}`;
      record('ADDED', name, await clients[k].request('POST', ns, { metadata: { name }, data: { i: String(i) } }));
      if (i % 3 === 0) record('MODIFIED', name, await clients[(k + 1) % 3].request('PATCH', `${ns}/${name}`, { data: { i: 'patched' } }, 'application/merge-patch+json'));
    }
  }));
  expect((await c.request('DELETE', `${ns}/pre0`)).status).toBe(200);
  acks.push({ type: 'DELETED', name: 'pre0', rv: NaN });

  const deadline = Date.now() + 15000;
  while (events.length < acks.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  w.close();

  const got = events.map((e) => ({ type: e.type, name: e.object.metadata.name, rv: Number(e.object.metadata.resourceVersion) }));
  // Exactly once, in revision order, none at or before the starting revision.
  const rvs = got.map((e) => e.rv);
  expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
  expect(new Set(rvs).size).toBe(rvs.length);
  expect(rvs.every((rv) => rv > startRv)).toBe(true);
  // The same set of changes the writers were told about, each at the revision it was acknowledged with.
  const key = (e: { type: string; name: string }) => `${e.type}:${e.name}`;
  expect(got.map(key).sort()).toEqual(acks.map(key).sort());
  for (const ack of acks.filter((x) => !Number.isNaN(x.rv))) {
    expect(got.find((g) => g.rv === ack.rv)).toMatchObject({ type: ack.type, name: ack.name });
  }
});
