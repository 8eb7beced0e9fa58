/**
 * A Service write's ClusterIPs and node ports are tied to its storage write, as kube's
 * BeginCreate/BeginUpdate transactions tie them: a write refused after allocating (storage's
 * AlreadyExists, ResourceQuota admission, validation, a lost compare-and-swap) gives back
 * what it took, a stored update releases what it gave up and only then, an update that
 * removes the object (its last finalizer gone) releases it all, and dry runs change nothing.
 * What is allocated is read from the store itself (the node-port range record and the
 * IPAddress objects), on both backends.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../../../testing/client.js';
import { defaultServiceRanges } from '../../types.js';
import { NodePortAllocator } from '../../allocators/nodeport.js';

const base = '/api/v1/namespaces/default/services';

function svc(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...metadata }, spec };
}

describeBackends('Service allocation follows the write', (b) => {
  let t: TestServer;
  const opts = () => ({ storage: b.storage, registryPrefix: `${b.prefix}registry` });
  beforeEach(async () => {
    t = await startTestServer(opts());
  });
  afterEach(() => t.close());

  const create = (body: unknown, query = '') => t.call('POST', `${base}${query}`, { body });
  const merge = (name: string, body: unknown, query = '') => t.call('PATCH', `${base}/${name}${query}`, { body, contentType: 'application/merge-patch+json' });
  const ipAddress = async (ip: string) => (await t.call('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`)).status;

  /** The node ports the range record in the store holds, ascending. */
  async function nodePortsInUse(): Promise<number[]> {
    const alloc = new NodePortAllocator({ storage: b.storage, registryPrefix: `${b.prefix}registry`, services: defaultServiceRanges, lookup: () => undefined });
    return Array.from(await alloc.snapshot()).flatMap((v, i) => (v ? [alloc.base + i] : []));
  }

  /** A quota in `default` whose status the controller has filled in (admission needs its usage). */
  async function quota(name: string, hard: Record<string, string>): Promise<void> {
    expect((await t.call('POST', '/api/v1/namespaces/default/resourcequotas', { body: { metadata: { name }, spec: { hard } } })).status).toBe(201);
    for (let i = 0; i < 100; i++) {
      if ((await t.call('GET', `/api/v1/namespaces/default/resourcequotas/${name}`)).body.status?.used) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`quota ${name} never got its usage`);
  }

  test('a create refused after allocating gives its address and node ports back: AlreadyExists, a quota refusal', async () => {
    expect((await create(svc('np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] }))).status).toBe(201);
    expect(await nodePortsInUse()).toEqual([30090]);

    // The same name with other requested values, and with values left to the allocator: both
    // allocated, then refused by storage.
    const dup = await create(svc('np', { type: 'NodePort', clusterIP: '10.96.201.1', ports: [{ port: 80, nodePort: 30091 }] }));
    expect([dup.status, dup.body.reason, dup.body.message]).toEqual([409, 'AlreadyExists', 'services "np" already exists']);
    expect((await create(svc('np', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }))).status).toBe(409);
    expect(await nodePortsInUse()).toEqual([30090]);
    expect(await ipAddress('10.96.201.1')).toBe(404);

    // ResourceQuota admission refuses after the allocation, in the validating phase.
    await quota('q', { 'services.nodeports': '1' });
    const refused = await create(svc('q1', { type: 'NodePort', clusterIP: '10.96.201.2', ports: [{ port: 80, nodePort: 30092 }] }));
    expect([refused.status, refused.body.message]).toEqual([
      403, 'services "q1" is forbidden: exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1',
    ]);
    expect(await nodePortsInUse()).toEqual([30090]);
    expect(await ipAddress('10.96.201.2')).toBe(404);
    // Validation after allocation gives back too.
    const invalid = await create(svc('q2', { clusterIP: '10.96.201.3', ports: [{ port: 80 }] }, { labels: { app: 'bad value!' } }));
    expect(invalid.status).toBe(422);
    expect(await ipAddress('10.96.201.3')).toBe(404);

    expect((await t.call('DELETE', '/api/v1/namespaces/default/resourcequotas/q')).status).toBe(200);
    const admitted = await create(svc('q1', { type: 'NodePort', clusterIP: '10.96.201.2', ports: [{ name: 'a', port: 80, nodePort: 30092 }, { name: 'b', port: 81, nodePort: 30091 }] }));
    expect(admitted.status).toBe(201);
    expect(await nodePortsInUse()).toEqual([30090, 30091, 30092]);
  });

  test('an update gives up its old node port only once it is stored; a refused one keeps it and gives back the new one', async () => {
    const created = await create(svc('web', { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30100 }] }));
    expect(created.status).toBe(201);

    // Refused by quota after allocating 30101 (LoadBalancer would also allocate nothing more).
    await quota('lb', { 'services.loadbalancers': '0' });
    const refused = await merge('web', { spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30101 }] } });
    expect([refused.status, refused.body.message]).toEqual([
      403, 'services "web" is forbidden: exceeded quota: lb, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0',
    ]);
    expect(await nodePortsInUse()).toEqual([30100]);
    // Refused by validation.
    expect((await merge('web', { metadata: { labels: { app: 'bad value!' } }, spec: { ports: [{ port: 80, nodePort: 30101 }] } })).status).toBe(422);
    expect(await nodePortsInUse()).toEqual([30100]);
    expect((await t.call('GET', `${base}/web`)).body.spec.ports[0].nodePort).toBe(30100);
    const taken = await create(svc('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }));
    expect(taken.body.message).toBe('Service "other" is invalid: spec.ports[0].nodePort: Invalid value: 30100: provided port is already allocated');

    // Stored: the old port is free, the new one held.
    const moved = await merge('web', { spec: { ports: [{ port: 80, nodePort: 30102 }] } });
    expect([moved.status, moved.body.spec.ports[0].nodePort]).toEqual([200, 30102]);
    expect(await nodePortsInUse()).toEqual([30102]);
    expect((await create(svc('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }))).status).toBe(201);

    // A type change to ClusterIP gives up the node port once stored; the address is kept.
    const ip = created.body.spec.clusterIP;
    expect((await merge('web', { spec: { type: 'ClusterIP', ports: [{ port: 80 }] } })).status).toBe(200);
    expect(await nodePortsInUse()).toEqual([30100]);
    expect(await ipAddress(ip)).toBe(200);
  });

  test('updates racing on two replicas: every attempt that lost its compare-and-swap gives back what it took', async () => {
    const other = await startTestServer(opts());
    try {
      expect((await create(svc('web', { type: 'NodePort', ports: [{ port: 80, nodePort: 30200 }] }))).status).toBe(201);
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : t).call('PATCH', `${base}/web`, {
        body: { spec: { ports: [{ port: 80, nodePort: 30201 + i }] } }, contentType: 'application/merge-patch+json',
      })));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      const final = (await t.call('GET', `${base}/web`)).body.spec.ports[0].nodePort;
      expect(final >= 30201 && final <= 30208).toBe(true);
      expect(await nodePortsInUse()).toEqual([final]);
    } finally {
      await other.close();
    }
  });

  test('a Service removed by the update that takes its last finalizer gives back its address and node ports', async () => {
    const created = await create(svc('web', { type: 'NodePort', ports: [{ port: 80, nodePort: 30130 }] }, { finalizers: ['example.com/hold'] }));
    expect(created.status).toBe(201);
    expect((await t.call('DELETE', `${base}/web`)).status).toBe(200);
    expect(await nodePortsInUse()).toEqual([30130]);
    expect((await merge('web', { metadata: { finalizers: null } })).status).toBe(200);
    expect((await t.call('GET', `${base}/web`)).status).toBe(404);
    expect(await nodePortsInUse()).toEqual([]);
    expect(await ipAddress(created.body.spec.clusterIP)).toBe(404);
  });

  test('dry runs allocate nothing and give up nothing', async () => {
    const dry = await create(svc('web', { type: 'NodePort', clusterIP: '10.96.202.1', ports: [{ name: 'a', port: 80, nodePort: 30120 }, { name: 'b', port: 81 }] }), '?dryRun=All');
    expect(dry.status).toBe(201);
    expect(dry.body.spec.clusterIP).toBe('10.96.202.1');
    expect(dry.body.spec.ports[0].nodePort).toBe(30120);
    expect(dry.body.spec.ports[1].nodePort).toBeGreaterThan(0);
    expect(await ipAddress('10.96.202.1')).toBe(404);
    expect(await nodePortsInUse()).toEqual([]);

    const real = await create(svc('web', { type: 'NodePort', clusterIP: '10.96.202.1', ports: [{ port: 80, nodePort: 30120 }] }));
    expect(real.status).toBe(201);
    const moved = await merge('web', { spec: { ports: [{ port: 80, nodePort: 30121 }] } }, '?dryRun=All');
    expect([moved.status, moved.body.spec.ports[0].nodePort]).toEqual([200, 30121]);
    const external = await merge('web', { spec: { type: 'ExternalName', externalName: 'web.example.com', clusterIP: '', clusterIPs: null } }, '?dryRun=All');
    expect([external.status, external.body.spec.clusterIP]).toEqual([200, undefined]);
    expect(await nodePortsInUse()).toEqual([30120]);
    expect(await ipAddress('10.96.202.1')).toBe(200);
    expect((await t.call('GET', `${base}/web`)).body.spec).toMatchObject({ type: 'NodePort', clusterIP: '10.96.202.1', ports: [{ nodePort: 30120 }] });
  });
});
