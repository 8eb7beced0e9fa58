/**
 * Deletion propagation and the in-process garbage collector over HTTP, on both backends:
 * Foreground keeps the owner (foregroundDeletion finalizer) until its dependents are gone,
 * Orphan strips the references to it, Background and dangling references delete dependents,
 * the kinds' default policies (batch/v1 Jobs orphan) and kube's finalizer rules on DELETE.
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, type TestServer } from './testing/client.js';

const nsName = 'gc';
const apps = `/apis/apps/v1/namespaces/${nsName}`;
const core = `/api/v1/namespaces/${nsName}`;
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };

type Ref = { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean };
const ownerRef = (obj: any, block = true): Ref => ({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, controller: true, blockOwnerDeletion: block });

describeBackends('garbage collection', (ctx) => {
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
    for (let i = 0; i < 200; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`never happened: ${what}`);
  }

  /** A Deployment owning a ReplicaSet owning two pods, as the controllers would have made them. */
  async function deploymentTree(block = true) {
    const deployment = await create(`${apps}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
    const rs = await create(`${apps}/replicasets`, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', ownerReferences: [ownerRef(deployment, block)] },
      spec: { selector: { matchLabels: { app: 'web' } }, template },
    });
    const pods = [];
    for (const name of ['web-1-a', 'web-1-b']) {
      pods.push(await create(`${core}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' }, ownerReferences: [ownerRef(rs, block)] }, spec: template.spec }));
    }
    return { deployment, rs, pods };
  }

  test('Foreground: 200 with the foregroundDeletion finalizer, then pods, the ReplicaSet and the Deployment go, owner last', async () => {
    const { deployment, pods } = await deploymentTree();
    const rv = pods[1].metadata.resourceVersion;
    const watches = [`${apps}/deployments`, `${apps}/replicasets`, `${core}/pods`].map((p) => openWatch(t.base, `${p}?watch=1&resourceVersion=${rv}`));
    try {
      const res = await t.call('DELETE', `${apps}/deployments/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('Deployment');
      expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(res.body.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(typeof res.body.metadata.deletionTimestamp).toBe('string');
      // markAsDeleting moves the generation on the first time.
      expect(res.body.metadata.generation).toBe(deployment.metadata.generation + 1);

      await until('the deployment is gone', async () => !(await exists(`${apps}/deployments/web`)));
      expect(await exists(`${apps}/replicasets/web-1`)).toBe(false);
      expect((await t.call('GET', `${core}/pods`)).body.items).toEqual([]);
      const [dEvents, rsEvents, podEvents] = await Promise.all([watches[0].waitFor(2), watches[1].waitFor(2), watches[2].waitFor(2)]);
      const deletedAt = (events: any[]) => events.filter((e) => e.type === 'DELETED').map((e) => Number(e.object.metadata.resourceVersion));
      const [dAt] = deletedAt(dEvents);
      const rsDeleted = deletedAt(rsEvents);
      const podsDeleted = deletedAt(podEvents);
      expect(podsDeleted).toHaveLength(2);
      expect(rsDeleted).toHaveLength(1);
      // Dependents with blockOwnerDeletion go before their owner: pods, then the ReplicaSet, then the Deployment.
      expect(Math.max(...podsDeleted)).toBeLessThan(rsDeleted[0]);
      expect(rsDeleted[0]).toBeLessThan(dAt);
      // The ReplicaSet (which has dependents) was itself deleted in the foreground.
      expect(rsEvents.some((e) => e.type === 'MODIFIED' && e.object.metadata.finalizers?.includes('foregroundDeletion'))).toBe(true);
    } finally {
      await Promise.all(watches.map((w) => w.close()));
    }
  });

  test('two replicas collecting at once: every write is conditional, so the duplicates are harmless', async () => {
    const second = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    const logged: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => { logged.push(args); consoleError(...args); };
    try {
      await deploymentTree();
      const res = await second.call('DELETE', `${apps}/deployments/web?propagationPolicy=Foreground`);
      expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      await until('the deployment is gone', async () => !(await exists(`${apps}/deployments/web`)));
      expect((await second.call('GET', `${core}/pods`)).body.items).toEqual([]);
      expect(await exists(`${apps}/replicasets/web-1`)).toBe(false);
      await Promise.all([t.server.garbageCollector.idle(), second.server.garbageCollector.idle()]);
      expect(logged.filter((c) => String(c[0]).startsWith('garbage collector'))).toEqual([]);
    } finally {
      console.error = consoleError;
      await second.close();
    }
  });

  test('a replica starting later finishes what was pending (the caches\' initial state)', async () => {
    t.server.garbageCollector.stop();
    await deploymentTree();
    expect((await t.call('DELETE', `${apps}/deployments/web?propagationPolicy=Foreground`)).body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await t.call('DELETE', `${apps}/replicasets/web-1?propagationPolicy=Orphan`)).body.metadata.finalizers).toEqual(['orphan']);
    await new Promise((r) => setTimeout(r, 100));
    expect(await exists(`${apps}/deployments/web`)).toBe(true);
    const later = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    try {
      await until('both owners are gone', async () => !(await exists(`${apps}/deployments/web`)) && !(await exists(`${apps}/replicasets/web-1`)));
      for (const name of ['web-1-a', 'web-1-b']) expect((await later.call('GET', `${core}/pods/${name}`)).body.metadata.ownerReferences).toBeUndefined();
    } finally {
      await later.close();
    }
  });

  test('Orphan (and orphanDependents=true): the owner goes, dependents stay without the reference to it', async () => {
    const { rs } = await deploymentTree();
    const res = await t.call('DELETE', `${apps}/deployments/web?propagationPolicy=Orphan`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    await until('the deployment is gone', async () => !(await exists(`${apps}/deployments/web`)));
    const kept = (await t.call('GET', `${apps}/replicasets/web-1`)).body;
    expect(kept.metadata.uid).toBe(rs.metadata.uid);
    expect(kept.metadata.ownerReferences).toBeUndefined();
    // The pods still belong to the ReplicaSet.
    for (const name of ['web-1-a', 'web-1-b']) expect((await t.call('GET', `${core}/pods/${name}`)).body.metadata.ownerReferences[0].uid).toBe(rs.metadata.uid);

    const byBool = await t.call('DELETE', `${apps}/replicasets/web-1?orphanDependents=true`);
    expect(byBool.body.metadata.finalizers).toEqual(['orphan']);
    await until('the replicaset is gone', async () => !(await exists(`${apps}/replicasets/web-1`)));
    await t.server.garbageCollector.idle();
    for (const name of ['web-1-a', 'web-1-b']) expect((await t.call('GET', `${core}/pods/${name}`)).body.metadata.ownerReferences).toBeUndefined();
  });

  test('Background (the apps/v1 default): the owner goes at once, dependents after it', async () => {
    await deploymentTree(false);
    const res = await t.call('DELETE', `${apps}/deployments/web`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments' } });
    expect(await exists(`${apps}/deployments/web`)).toBe(false);
    await until('the pods are gone', async () => (await t.call('GET', `${core}/pods`)).body.items.length === 0);
    expect(await exists(`${apps}/replicasets/web-1`)).toBe(false);
  });

  test('a dependent whose owners never existed is deleted; one with a live owner keeps it and loses only the dangling reference', async () => {
    const cm = await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const ghost: Ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' };
    const cmRef: Ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: cm.metadata.uid };
    // Same name, other uid: the owner named is not the one that exists.
    const stale: Ref = { ...cmRef, uid: '00000000-0000-0000-0000-000000000002' };
    await create(`${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'orphaned', ownerReferences: [ghost] } });
    await create(`${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'stale', ownerReferences: [stale] } });
    await create(`${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mixed', ownerReferences: [ghost, cmRef] } });
    await create(`${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'owned', ownerReferences: [cmRef] } });
    // A cluster-scoped owner is found from a namespaced dependent; a namespaced one is not looked for elsewhere.
    const cr = await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-owner' } });
    await create(`${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cluster-owned', ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'gc-owner', uid: cr.metadata.uid }] } });

    await until('the orphaned secrets are deleted', async () => !(await exists(`${core}/secrets/orphaned`)) && !(await exists(`${core}/secrets/stale`)));
    await until('the dangling reference is dropped', async () => (await t.call('GET', `${core}/secrets/mixed`)).body.metadata.ownerReferences.length === 1);
    await t.server.garbageCollector.idle();
    expect((await t.call('GET', `${core}/secrets/mixed`)).body.metadata.ownerReferences).toEqual([cmRef]);
    expect(await exists(`${core}/secrets/owned`)).toBe(true);
    expect(await exists(`${core}/secrets/cluster-owned`)).toBe(true);

    // Deleting the owner takes its dependents with it.
    expect((await t.call('DELETE', `${core}/configmaps/owner`)).status).toBe(200);
    await until('the owned secrets are deleted', async () => !(await exists(`${core}/secrets/owned`)) && !(await exists(`${core}/secrets/mixed`)));
    expect((await t.call('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-owner')).status).toBe(200);
    await until('the secret owned by the cluster role is deleted', async () => !(await exists(`${core}/secrets/cluster-owned`)));
  });

  test('DELETE follows kube: default policies per kind and version, existing finalizers, dry runs, conflicting options', async () => {
    // batch/v1 Jobs orphan by default (kube's DefaultGarbageCollectionPolicy for back compatibility).
    const job = await create(`/apis/batch/v1/namespaces/${nsName}/jobs`, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } });
    await create(`${core}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j-pod', ownerReferences: [ownerRef(job)] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const jobDelete = await t.call('DELETE', `/apis/batch/v1/namespaces/${nsName}/jobs/j`);
    expect(jobDelete.status).toBe(200);
    expect(jobDelete.body.metadata.finalizers).toEqual(['orphan']);
    await until('the job is gone', async () => !(await exists(`/apis/batch/v1/namespaces/${nsName}/jobs/j`)));
    expect((await t.call('GET', `${core}/pods/j-pod`)).body.metadata.ownerReferences).toBeUndefined();

    // A finalizer of someone else's keeps the object; Background drops an `orphan` finalizer set at creation.
    await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold', 'orphan'] } });
    const dry = await t.call('DELETE', `${core}/configmaps/held?dryRun=All&propagationPolicy=Foreground`);
    expect(dry.body.metadata.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    expect((await t.call('GET', `${core}/configmaps/held`)).body.metadata.deletionTimestamp).toBeUndefined();
    const held = await t.call('DELETE', `${core}/configmaps/held`, { body: { propagationPolicy: 'Background' } });
    expect(held.status).toBe(200);
    expect(held.body.metadata.finalizers).toEqual(['example.com/hold']);
    expect(held.body.metadata.deletionGracePeriodSeconds).toBe(0);
    // An update removing the last finalizer removes the object.
    const current = (await t.call('GET', `${core}/configmaps/held`)).body;
    delete current.metadata.finalizers;
    expect((await t.call('PUT', `${core}/configmaps/held`, { body: current })).status).toBe(200);
    expect(await exists(`${core}/configmaps/held`)).toBe(false);

    // An `orphan` finalizer set at creation alone makes the default DELETE wait for the collector.
    await create(`${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'orphaning', finalizers: ['orphan'] } });
    expect((await t.call('DELETE', `${core}/configmaps/orphaning`)).body.metadata.finalizers).toEqual(['orphan']);
    await until('the configmap is gone', async () => !(await exists(`${core}/configmaps/orphaning`)));

    // Events take no part in garbage collection: Foreground deletes them at once.
    await create(`${core}/events`, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'x', namespace: nsName } });
    const ev = await t.call('DELETE', `${core}/events/e?propagationPolicy=Foreground`);
    expect(ev.body.kind).toBe('Status');
    expect(await exists(`${core}/events/e`)).toBe(false);

    const both = await t.call('DELETE', `${core}/pods/j-pod`, { body: { propagationPolicy: 'Orphan', orphanDependents: false } });
    expect(both.status).toBe(422);
    expect(both.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set');
  });
});
