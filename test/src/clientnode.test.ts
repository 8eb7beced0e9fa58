import * as k8s from '@kubernetes/client-node';
import { kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
beforeAll(() => {
  s = server();
});

test('@kubernetes/client-node: CRUD and a watch see the same objects', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(s.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'cn' } } });

  const events: Array<{ type: string; name: string; data?: Record<string, string> }> = [];
  const watch = new k8s.Watch(kc);
  const req = await watch.watch('/api/v1/namespaces/cn/configmaps', {}, (type: string, obj: any) => {
    events.push({ type, name: obj.metadata.name, data: obj.data });
  }, () => undefined);

  await new Promise((r) => setTimeout(r, 300));
  await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'one' }, data: { a: '1' } } });
  kubectlOk(s.kubeconfig, ['patch', 'cm', 'one', '-n', 'cn', '-p', '{"data":{"a":"2"}}']);
  await core.deleteNamespacedConfigMap({ name: 'one', namespace: 'cn' });

  const deadline = Date.now() + 10000;
  while (events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  req.abort();
  expect(events).toEqual([
    { type: 'ADDED', name: 'one', data: { a: '1' } },
    { type: 'MODIFIED', name: 'one', data: { a: '2' } },
    { type: 'DELETED', name: 'one', data: { a: '2' } },
  ]);

  const err = await core.readNamespacedConfigMap({ name: 'one', namespace: 'cn' }).catch((e) => e);
  expect(err.code).toBe(404);
  const list = await core.listNamespacedConfigMap({ namespace: 'cn' });
  expect(list.items).toEqual([]);
});

test('@kubernetes/client-node: server-side apply through KubernetesObjectApi, as controllers apply their objects', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(s.kubeconfig);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const ssa = k8s.PatchStrategy.ServerSideApply;
  const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'cn' }, data: { owner: 'controller-a' } };
  const created = (await objects.patch(desired, undefined, undefined, 'controller-a', false, ssa)) as k8s.V1ConfigMap;
  expect(created.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([['controller-a', 'Apply']]);
  const other = { ...desired, data: { owner: 'controller-b' } };
  const conflict = await objects.patch(other, undefined, undefined, 'controller-b', false, ssa).catch((e) => e);
  expect(conflict.code).toBe(409);
  expect(JSON.parse(conflict.body).message).toBe('Apply failed with 1 conflict: conflict with "controller-a": .data.owner');
  const forced = (await objects.patch(other, undefined, undefined, 'controller-b', true, ssa)) as k8s.V1ConfigMap;
  expect(forced.data).toEqual({ owner: 'controller-b' });
  expect(forced.metadata?.managedFields?.map((e) => e.manager)).toEqual(['controller-b']);
});
