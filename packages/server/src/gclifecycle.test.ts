/**
 * The garbage collector and namespace deletion with graceful pod deletion, on both backends, as
 * kube 1.35's collector (processDeletingDependentsItem, classifyReferences, isDangling) and
 * namespace deleter behave without a kubelet: a foreground owner waits for dependents that block
 * it until they are really gone (a bound pod only once deleted with grace 0), not for those that
 * do not block; owner references resolve in the dependent's namespace, cluster-wide for a
 * cluster-scoped owner, and a cluster-scoped dependent naming a namespaced owner is left alone;
 * a namespace stays Terminating while a pod in it is terminating.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from './testing/client.js';

const nsName = 'gcl';
const apps = `/apis/apps/v1/namespaces/${nsName}`;
const core = `/api/v1/namespaces/${nsName}`;
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
const ownerRef = (obj: any, block: boolean) => ({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, controller: true, blockOwnerDeletion: block });

describeBackends('garbage collection with graceful deletion', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: nsName } } })).status).toBe(201);
  });
  afterEach(() => t.close());

  async function create(path: string, body: any): Promise<any> {
    const res = await t.call('POST', path, { body });
    if (res.status !== 201) throw new Error(`create ${path}: ${res.status} ${res.text}`);
    return res.body;
  }
  const exists = async (path: string) => (await t.call('GET', path)).status === 200;
  async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`never happened: ${what}`);
  }
  const replicaSet = (name: string, owners: unknown[] = []) => create(`${apps}/replicasets`, {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}) },
    spec: { selector: { matchLabels: { app: 'web' } }, template },
  });
  const boundPod = (name: string, owners: unknown[]) => create(`${core}/pods`, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' }, ownerReferences: owners }, spec: { ...template.spec, nodeName: 'node-1' },
  });

  test('Foreground: terminating dependents that block keep the owner until they are removed; those that do not block do not', async () => {
    const rs = await replicaSet('web');
    await boundPod('blocking', [ownerRef(rs, true)]);
    await boundPod('free', [ownerRef(rs, false)]);
    const res = await t.call('DELETE', `${apps}/replicasets/web?propagationPolicy=Foreground`);
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    // The collector deletes both pods with their default grace: both terminate, neither is gone.
    await until('both pods are terminating', async () => {
      const items = (await t.call('GET', `${core}/pods`)).body.items;
      return items.length === 2 && items.every((p: any) => p.metadata.deletionGracePeriodSeconds === 30);
    });
    await t.server.garbageCollector.idle();
    expect((await t.call('GET', `${apps}/replicasets/web`)).body.metadata.finalizers).toEqual(['foregroundDeletion']);

    // The kubelet's final delete of the blocking pod releases the owner; the other pod still terminates.
    expect((await t.call('DELETE', `${core}/pods/blocking?gracePeriodSeconds=0`)).status).toBe(200);
    await until('the replicaset is gone', async () => !(await exists(`${apps}/replicasets/web`)));
    expect((await t.call('GET', `${core}/pods/free`)).body.metadata.deletionGracePeriodSeconds).toBe(30);
  });

  test('deletecollection with a propagation policy: each object gets the collector\'s finalizer, Orphan keeps the dependents, Foreground takes them first', async () => {
    const labelled = (name: string) => create(`${apps}/replicasets`, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, labels: { set: 'x' } }, spec: { selector: { matchLabels: { app: 'web' } }, template },
    });
    const owners = [await labelled('x-1'), await labelled('x-2')];
    for (const [i, rs] of owners.entries()) {
      await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dep-${i}`, ownerReferences: [ownerRef(rs, true)] } });
    }
    const orphaned = await t.call('DELETE', `${apps}/replicasets?labelSelector=set%3Dx`, { body: { propagationPolicy: 'Orphan' } });
    expect(orphaned.status).toBe(200);
    expect(orphaned.body.items.map((i: any) => i.metadata.name)).toEqual(['x-1', 'x-2']);
    await until('both replicasets are gone', async () => (await t.call('GET', `${apps}/replicasets`)).body.items.length === 0);
    await t.server.garbageCollector.idle();
    for (const i of [0, 1]) expect((await t.call('GET', `${core}/configmaps/dep-${i}`)).body.metadata.ownerReferences).toBeUndefined();

    const again = [await labelled('x-3'), await labelled('x-4')];
    for (const [i, rs] of again.entries()) {
      await boundPod(`fg-${i}`, [ownerRef(rs, true)]);
    }
    expect((await t.call('DELETE', `${apps}/replicasets?labelSelector=set%3Dx&propagationPolicy=Foreground`)).status).toBe(200);
    for (const name of ['x-3', 'x-4']) expect((await t.call('GET', `${apps}/replicasets/${name}`)).body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await until('the pods terminate', async () => (await t.call('GET', `${core}/pods`)).body.items.every((p: any) => p.metadata.deletionTimestamp));
    await t.server.garbageCollector.idle();
    expect((await t.call('GET', `${apps}/replicasets`)).body.items).toHaveLength(2);
    expect((await t.call('DELETE', `${core}/pods?gracePeriodSeconds=0`)).status).toBe(200);
    await until('both replicasets are gone', async () => (await t.call('GET', `${apps}/replicasets`)).body.items.length === 0);
  });

  test('Background and dangling owners: the collector\'s deletes of bound pods are graceful too', async () => {
    const rs = await replicaSet('bg');
    await boundPod('bg-pod', [ownerRef(rs, true)]);
    expect((await t.call('DELETE', `${apps}/replicasets/bg`)).status).toBe(200);
    await until('the pod is terminating', async () => (await t.call('GET', `${core}/pods/bg-pod`)).body.metadata?.deletionTimestamp !== undefined);
    await t.server.garbageCollector.idle();
    expect(await exists(`${core}/pods/bg-pod`)).toBe(true);
    expect((await t.call('DELETE', `${core}/pods/bg-pod?gracePeriodSeconds=0`)).status).toBe(200);
    expect(await exists(`${core}/pods/bg-pod`)).toBe(false);
  });

  test('owner references across scopes: resolved in the dependent\'s namespace, cluster-wide for cluster-scoped owners; a cluster-scoped dependent of a namespaced owner stays', async () => {
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: `${nsName}-other` } } })).status).toBe(201);
    const owner = await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid };
    // The same owner named from another namespace: not found there, so collected.
    await create(`/api/v1/namespaces/${nsName}-other/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere', ownerReferences: [ref] } });
    // A cluster-scoped object naming a namespaced owner: kube reports it and leaves it alone.
    await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gcl-invalid', ownerReferences: [ref] } });
    // A cluster-scoped owner of a cluster-scoped dependent.
    const cr = await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gcl-owner' } });
    await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: { name: 'gcl-dependent', ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'gcl-owner', uid: cr.metadata.uid }] },
    });

    await until('the reference from another namespace is collected', async () => !(await exists(`/api/v1/namespaces/${nsName}-other/configmaps/elsewhere`)));
    await t.server.garbageCollector.idle();
    expect(await exists(`${core}/configmaps/owner`)).toBe(true);
    expect(await exists('/apis/rbac.authorization.k8s.io/v1/clusterroles/gcl-invalid')).toBe(true);
    expect(await exists('/apis/rbac.authorization.k8s.io/v1/clusterroles/gcl-dependent')).toBe(true);

    // Deleting the namespaced owner does not reach the cluster-scoped object naming it.
    expect((await t.call('DELETE', `${core}/configmaps/owner`)).status).toBe(200);
    expect((await t.call('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/gcl-owner')).status).toBe(200);
    await until('the cluster-scoped dependent is collected', async () => !(await exists('/apis/rbac.authorization.k8s.io/v1/clusterroles/gcl-dependent')));
    await t.server.garbageCollector.idle();
    expect(await exists('/apis/rbac.authorization.k8s.io/v1/clusterroles/gcl-invalid')).toBe(true);
  });

  test('a namespace stays Terminating while a pod in it terminates, and goes once the pod is removed', async () => {
    await create(`${core}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'running' }, spec: { ...template.spec, nodeName: 'node-1' } });
    await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data' } });
    const res = await t.call('DELETE', `/api/v1/namespaces/${nsName}`);
    expect(res.body.status.phase).toBe('Terminating');
    await until('the pod is terminating and the config map gone', async () =>
      (await t.call('GET', `${core}/pods/running`)).body.metadata?.deletionGracePeriodSeconds === 30 && !(await exists(`${core}/configmaps/data`)));
    // The namespace controller tries again; the pending graceful deletion is left as it is.
    await new Promise((r) => setTimeout(r, 1500));
    const pod = (await t.call('GET', `${core}/pods/running`)).body;
    expect(pod.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await t.call('GET', `/api/v1/namespaces/${nsName}`)).body.status.phase).toBe('Terminating');

    expect((await t.call('DELETE', `${core}/pods/running?gracePeriodSeconds=0`)).status).toBe(200);
    await until('the namespace is gone', async () => !(await exists(`/api/v1/namespaces/${nsName}`)));
  });
});
