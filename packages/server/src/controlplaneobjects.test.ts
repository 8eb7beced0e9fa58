/**
 * The objects kube-apiserver 1.35 keeps about itself, on both backends, with replicas sharing
 * one store (on etcd, each over its own connection): the `kubernetes` Endpoints and
 * EndpointSlice list the live replicas' advertise addresses from their master leases (kube's
 * lease reconciler and EndpointsAdapter), a crashed replica leaves once its lease expires and a
 * gracefully stopped one at once; identity Leases in kube-system are renewed and expired ones
 * collected (apiserverleasegc); automanaged APIServices are created at start with kube's
 * priorities and follow CRDs (autoregister, crdregistration), user APIServices untouched.
 */
import { createHash } from 'node:crypto';
import { describeBackends } from '@windlass/storage/testing';
import type { Storage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';
import type { ControlPlaneOptions } from './controllers/controlplane.js';
import { apiserverIdentity } from './controllers/apiserveridentity.js';

const endpointsPath = '/api/v1/namespaces/default/endpoints/kubernetes';
const slicePath = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes';
const leasesPath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const apiServicesPath = '/apis/apiregistration.k8s.io/v1/apiservices';
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const addressesOf = (endpoints: any): string[] => (endpoints?.subsets?.[0]?.addresses ?? []).map((a: any) => a.ip);

describeBackends('control-plane objects', (ctx) => {
  const servers: TestServer[] = [];
  let registryPrefix: string;
  beforeEach(() => { registryPrefix = ctx.prefix + 'registry'; });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  // The first replica uses the test's storage; on etcd, others connect on their own.
  async function replica(controlPlane: ControlPlaneOptions): Promise<TestServer> {
    const storage: Storage = servers.length === 0 || ctx.backend === 'embedded' ? ctx.storage : await ctx.open();
    const t = await startTestServer({ storage, registryPrefix, controlPlane: { identity: { hostname: `host-${servers.length}` }, ...controlPlane } });
    servers.push(t);
    return t;
  }
  const fast = { endpointIntervalMs: 100, endpointLeaseTTLMs: 1000 };
  const get = async (t: TestServer, path: string) => (await t.call('GET', path)).body;

  test('two replicas with different advertise addresses are both listed, as kube writes the Endpoints and EndpointSlice', async () => {
    const a = await replica({ advertiseAddress: '10.0.0.2', ...fast });
    const b = await replica({ advertiseAddress: '10.0.0.1', ...fast });
    // Each test replica has its own port; the Endpoints carry one of them (real replicas share one).
    const ports = [a, b].map((t) => Number(new URL(t.base).port));
    const endpoints = await until('both replicas listed', async () => {
      const e = await get(a, endpointsPath);
      return addressesOf(e).length === 2 && e;
    });
    // Sorted, in one subset, port `https`.
    expect(endpoints.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    const port = endpoints.subsets[0].ports[0].port;
    expect(ports).toContain(port);
    expect(endpoints.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
    const slice = await until('the slice lists both', async () => {
      const s = await get(b, slicePath);
      return s?.endpoints?.length === 2 && s;
    });
    expect(slice.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice.addressType).toBe('IPv4');
    expect(slice.endpoints).toEqual([
      { addresses: ['10.0.0.1'], conditions: { ready: true } },
      { addresses: ['10.0.0.2'], conditions: { ready: true } },
    ]);
    expect(slice.ports).toEqual([{ name: 'https', port: expect.any(Number), protocol: 'TCP' }]);
    expect(ports).toContain(slice.ports[0].port);
    // kube's master lease keys, under the registry prefix.
    const leases = await ctx.storage.range(`${registryPrefix}/masterleases/`, { prefix: true });
    expect(leases.items.map((kv) => kv.key.slice(registryPrefix.length))).toEqual(['/masterleases/10.0.0.1', '/masterleases/10.0.0.2']);
    const record = JSON.parse(leases.items[0]!.value.toString());
    expect(record.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }] }]);
    expect(Date.parse(record.expires)).toBeGreaterThan(Date.now());
  });

  test('a replica that stops renewing is removed once its lease expires; one that shuts down leaves at once', async () => {
    const a = await replica({ advertiseAddress: '10.0.0.1', ...fast });
    const b = await replica({ advertiseAddress: '10.0.0.2', ...fast });
    const c = await replica({ advertiseAddress: '10.0.0.3', ...fast });
    await until('three listed', async () => addressesOf(await get(a, endpointsPath)).length === 3);
    // b crashes: no shutdown, its record stays until it expires.
    servers.splice(servers.indexOf(b), 1);
    await b.close();
    expect(addressesOf(await get(a, endpointsPath))).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    const record = await ctx.storage.get(`${registryPrefix}/masterleases/10.0.0.2`);
    const expires = Date.parse(JSON.parse(record!.value.toString()).expires);
    await until('b removed', async () => addressesOf(await get(a, endpointsPath)).join() === '10.0.0.1,10.0.0.3');
    // Not before its last renewal's TTL ran out.
    expect(Date.now()).toBeGreaterThanOrEqual(expires);
    expect((await get(a, slicePath)).endpoints.map((e: any) => e.addresses[0])).toEqual(['10.0.0.1', '10.0.0.3']);
    const keys = (await ctx.storage.range(`${registryPrefix}/masterleases/`, { prefix: true })).items.map((kv) => kv.key.slice(registryPrefix.length));
    expect(keys).toEqual(['/masterleases/10.0.0.1', '/masterleases/10.0.0.3']);
    // c shuts down gracefully: gone when shutdown returns, with no wait for the TTL.
    servers.splice(servers.indexOf(c), 1);
    await c.server.shutdown();
    expect(addressesOf(await get(a, endpointsPath))).toEqual(['10.0.0.1']);
    // The last replica leaving empties them, as kube's RemoveEndpoints on a stopped reconciler does.
    await a.server.shutdown();
    const last = await replica({});
    expect((await get(last, endpointsPath)).subsets).toBeUndefined();
    // An empty list, which kube's protobuf storage gives back as null.
    expect((await get(last, slicePath)).endpoints ?? []).toEqual([]);
  });

  test('loopback advertise addresses, which kube\'s Endpoints validation refuses, record no endpoints', async () => {
    const t = await replica({ advertiseAddress: '127.0.0.1', ...fast });
    await until('the identity lease exists', async () => (await get(t, leasesPath)).items.length === 1);
    await new Promise((r) => setTimeout(r, 3 * fast.endpointIntervalMs));
    expect((await t.call('GET', endpointsPath)).status).toBe(404);
    expect((await t.call('GET', slicePath)).status).toBe(404);
    expect((await ctx.storage.range(`${registryPrefix}/masterleases/`, { prefix: true })).count).toBe(0);
    // The Service itself is there, on the first address of the range.
    expect((await get(t, '/api/v1/namespaces/default/services/kubernetes')).spec.clusterIP).toBe('10.96.0.1');
  });

  test('--endpoint-reconciler-type none leaves the Endpoints alone', async () => {
    const t = await replica({ advertiseAddress: '10.0.0.1', endpointReconcilerType: 'none', ...fast });
    await new Promise((r) => setTimeout(r, 3 * fast.endpointIntervalMs));
    expect((await t.call('GET', endpointsPath)).status).toBe(404);
  });

  test('identity leases: kube\'s id, labels and holder, renewed on the interval', async () => {
    const t = await replica({ identity: { hostname: 'node-a.example', renewIntervalMs: 100 } });
    // k8s.io/apiserver's APIServerID, computed independently.
    const data = Buffer.concat([Buffer.from([0, 14]), Buffer.from('node-a.example'), Buffer.from([0, 14]), Buffer.from('kube-apiserver')]);
    const digest = createHash('sha256').update(data).digest().subarray(0, 16);
    let bits = '';
    for (const b of digest) bits += b.toString(2).padStart(8, '0');
    const id = 'apiserver-' + (bits.padEnd(130, '0').match(/.{5}/g)!).map((c) => 'abcdefghijklmnopqrstuvwxyz234567'[parseInt(c, 2)]).join('');
    expect(apiserverIdentity('node-a.example')).toBe(id);
    expect(id).toMatch(/^apiserver-[a-z2-7]{26}$/);
    const lease = await until('the lease exists', async () => (await t.call('GET', `${leasesPath}/${id}`)).body?.spec && (await get(t, `${leasesPath}/${id}`)));
    expect(lease.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'node-a.example' });
    expect(lease.spec.holderIdentity).toMatch(new RegExp(`^${id}_[0-9a-f-]{36}$`));
    expect(lease.spec.leaseDurationSeconds).toBe(3600);
    expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const renewed = await until('renewed', async () => {
      const l = await get(t, `${leasesPath}/${id}`);
      return Date.parse(l.spec.renewTime) > Date.parse(lease.spec.renewTime) && l;
    });
    // A renewal keeps the holder.
    expect(renewed.spec.holderIdentity).toBe(lease.spec.holderIdentity);
    expect(Number(renewed.metadata.resourceVersion)).toBeGreaterThan(Number(lease.metadata.resourceVersion));
  });

  test('expired identity leases are collected by any replica; other leases are not', async () => {
    const a = await replica({ identity: { hostname: 'a', renewIntervalMs: 100, gcPeriodMs: 100, leaseDurationSeconds: 1 } });
    const b = await replica({ identity: { hostname: 'b', renewIntervalMs: 100, gcPeriodMs: 100, leaseDurationSeconds: 1 } });
    const idB = apiserverIdentity('b');
    await until('both identity leases', async () => (await get(a, leasesPath)).items.length === 2);
    const old = new Date(Date.now() - 2 * 3600_000).toISOString().replace(/Z$/, '000Z');
    const lease = (name: string, labels: Record<string, string>, renewTime: string) => ({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, labels }, spec: { holderIdentity: name, leaseDurationSeconds: 3600, renewTime },
    });
    const identity = { 'apiserver.kubernetes.io/identity': 'kube-apiserver' };
    expect((await a.call('POST', leasesPath, { body: lease('apiserver-gone', identity, old) })).status).toBe(201);
    expect((await a.call('POST', leasesPath, { body: lease('scheduler', {}, old) })).status).toBe(201);
    expect((await a.call('POST', leasesPath, { body: lease('other-component', { 'apiserver.kubernetes.io/identity': 'sample-apiserver' }, old) })).status).toBe(201);
    await until('the expired identity lease is collected', async () => (await a.call('GET', `${leasesPath}/apiserver-gone`)).status === 404);
    // b crashes: its lease (1 s) expires and a collects it.
    servers.splice(servers.indexOf(b), 1);
    await b.close();
    await until('b\'s lease collected', async () => (await a.call('GET', `${leasesPath}/${idB}`)).status === 404);
    const names = (await get(a, leasesPath)).items.map((l: any) => l.metadata.name).sort();
    expect(names).toEqual([apiserverIdentity('a'), 'other-component', 'scheduler']);
  });

  test('automanaged APIServices: one per built-in group version with kube\'s priorities, Available, restored once per start', async () => {
    const t = await replica({});
    const list = await until('built-in APIServices', async () => {
      const l = await get(t, apiServicesPath);
      return l.items.length >= 21 && l;
    });
    const byName = new Map<string, any>(list.items.map((s: any) => [s.metadata.name, s]));
    expect([...byName.keys()].sort()).toEqual([
      'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.authentication.k8s.io', 'v1.authorization.k8s.io',
      'v1.autoscaling', 'v1.batch', 'v1.certificates.k8s.io', 'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io',
      'v1.flowcontrol.apiserver.k8s.io', 'v1.networking.k8s.io', 'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io',
      'v1.resource.k8s.io', 'v1.scheduling.k8s.io', 'v1.storage.k8s.io', 'v2.autoscaling',
    ]);
    const core = byName.get('v1.');
    expect(core.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.spec).toEqual({ version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(byName.get('v2.autoscaling').spec).toMatchObject({ groupPriorityMinimum: 17500, versionPriority: 30 });
    expect(byName.get('v1.flowcontrol.apiserver.k8s.io').spec).toMatchObject({ groupPriorityMinimum: 16100, versionPriority: 21 });
    for (const s of byName.values()) {
      expect(s.status.conditions).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: expect.any(String), reason: 'Local', message: 'Local APIServices are always available' }]);
    }
    // `kubectl get apiservices`' columns.
    const table = await t.call('GET', apiServicesPath, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const row = table.body.rows.find((r: any) => r.cells[0] === 'v1.apps');
    expect(row.cells.slice(1, 3)).toEqual(['Local', 'True']);

    // Edited by a user: left as edited while this replica runs (synced once), restored by the next start.
    const apps = byName.get('v1.apps');
    const edited = await t.call('PUT', `${apiServicesPath}/v1.apps`, { body: { ...apps, spec: { ...apps.spec, versionPriority: 3 } } });
    expect(edited.status).toBe(200);
    // An APIService a user made for an aggregated server, and a built-in one whose label the user removed.
    const external = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' }, spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: { name: 'metrics-server', namespace: 'kube-system' } } };
    expect((await t.call('POST', apiServicesPath, { body: external })).status).toBe(201);
    const batch = byName.get('v1.batch');
    expect((await t.call('PUT', `${apiServicesPath}/v1.batch`, { body: { ...batch, metadata: { ...batch.metadata, labels: {} }, spec: { ...batch.spec, versionPriority: 2 } } })).status).toBe(200);
    await t.server.controlPlane!.idle();
    await new Promise((r) => setTimeout(r, 100));
    expect((await get(t, `${apiServicesPath}/v1.apps`)).spec.versionPriority).toBe(3);

    const next = await replica({});
    await until('v1.apps restored', async () => (await get(next, `${apiServicesPath}/v1.apps`)).spec.versionPriority === 15);
    await next.server.controlPlane!.idle();
    expect((await get(next, `${apiServicesPath}/v1.batch`)).spec.versionPriority).toBe(2);
    const metrics = await get(next, `${apiServicesPath}/v1beta1.metrics.k8s.io`);
    expect(metrics.spec.service).toEqual({ name: 'metrics-server', namespace: 'kube-system', port: 443 });
    expect(metrics.metadata.labels).toBeUndefined();
  });

  test('CRD group versions get automanaged APIServices while they are served, kept as desired, removed with the CRD', async () => {
    const t = await replica({});
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    };
    const created = await t.call('POST', crdsPath, { body: crd });
    expect(created.status).toBe(201);
    const v1 = await until('v1.example.com', async () => { const r = await t.call('GET', `${apiServicesPath}/v1.example.com`); return r.status === 200 && r.body; });
    expect(v1.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(v1.spec).toEqual({ group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(v1.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    expect((await t.call('GET', `${apiServicesPath}/v2.example.com`)).status).toBe(404);

    // Managed continuously: an edit is put back.
    expect((await t.call('PUT', `${apiServicesPath}/v1.example.com`, { body: { ...v1, spec: { ...v1.spec, groupPriorityMinimum: 5 } } })).status).toBe(200);
    await until('v1.example.com restored', async () => (await get(t, `${apiServicesPath}/v1.example.com`)).spec.groupPriorityMinimum === 1000);

    // v2 served, v1 no longer: the set follows.
    const current = await get(t, `${crdsPath}/widgets.example.com`);
    current.spec.versions[0].served = false;
    current.spec.versions[1].served = true;
    expect((await t.call('PUT', `${crdsPath}/widgets.example.com`, { body: current })).status).toBe(200);
    await until('v2 registered, v1 removed', async () =>
      (await t.call('GET', `${apiServicesPath}/v2.example.com`)).status === 200 && (await t.call('GET', `${apiServicesPath}/v1.example.com`)).status === 404);

    expect((await t.call('DELETE', `${crdsPath}/widgets.example.com`)).status).toBe(200);
    await until('removed with the CRD', async () => (await t.call('GET', `${apiServicesPath}/v2.example.com`)).status === 404);
    expect((await t.call('GET', `${apiServicesPath}/v1.apps`)).status).toBe(200);
  });
});
