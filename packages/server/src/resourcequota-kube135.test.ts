/**
 * ResourceQuota over HTTP as kube 1.35 enforces it beyond creates: in-place pod resize
 * (pods/resize) and an active deadline set on a running pod are charged, usage the kubelet
 * gives back is replenished by the controller, every resource's count/<resource>.<group> and
 * the legacy names count (events never), ResourceClaims by device class, and limitedResources
 * from --admission-control-config-file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBackends } from '@windlass/storage/testing';
import { EmbeddedStorage } from '@windlass/storage';
import { APIServer } from './apiserver.js';
import { startTestServer, type TestServer } from './testing/client.js';

const ns = '/api/v1/namespaces/quota';
const pod = (name: string, cpu: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu } } }], ...spec },
});
const strategic = 'application/strategic-merge-patch+json';
const merge = 'application/merge-patch+json';

/** Helpers over one server and its `quota` namespace. */
function quotaClient(get: () => TestServer) {
  const used = async (name: string) => (await get().call('GET', `${ns}/resourcequotas/${name}`)).body.status?.used;
  return {
    used,
    /** The quota's used once `ok` holds (the controller works in the background). */
    async usedWhen(name: string, ok: (used: any) => boolean): Promise<any> {
      let last: any;
      for (let i = 0; i < 100; i++) {
        last = await used(name);
        if (last && ok(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`quota ${name} never reached the expected usage: ${JSON.stringify(last)}`);
    },
    async createQuota(name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}): Promise<void> {
      expect((await get().call('POST', `${ns}/resourcequotas`, { body: { metadata: { name }, spec: { hard, ...spec } } })).status).toBe(201);
      await this.usedWhen(name, () => true);
    },
  };
}

describeBackends('resource quota beyond creates (kube 1.35)', (ctx) => {
  let t: TestServer;
  const q = quotaClient(() => t);
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status).toBe(201);
  });
  afterEach(() => t.close());

  test('pods/resize is charged its growth and refused over hard; a resize down holds what the kubelet still has until it reports less', async () => {
    await q.createQuota('compute', { 'requests.cpu': '1' });
    expect((await t.call('POST', `${ns}/pods`, { body: pod('a', '500m') })).status).toBe(201);
    const resize = (cpu: string) => t.call('PATCH', `${ns}/pods/a/resize`, { body: { spec: { containers: [{ name: 'app', resources: { requests: { cpu } } }] } }, contentType: strategic });
    expect((await resize('800m')).status).toBe(200);
    expect(await q.used('compute')).toEqual({ 'requests.cpu': '800m' });
    const over = await resize('1200m');
    expect(over.status).toBe(403);
    expect(over.body.message).toBe('pods "a" is forbidden: exceeded quota: compute, requested: requests.cpu=400m, used: requests.cpu=800m, limited: requests.cpu=1');
    expect((await t.call('GET', `${ns}/pods/a`)).body.spec.containers[0].resources.requests.cpu).toBe('800m');

    // The kubelet actuated 800m; a resize down is not given back while it still holds that.
    const report = (cpu: string) => t.call('PATCH', `${ns}/pods/a/status`, {
      body: { status: { phase: 'Running', containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, allocatedResources: { cpu }, resources: { requests: { cpu } } }] } },
      contentType: merge,
    });
    expect((await report('800m')).status).toBe(200);
    expect((await resize('300m')).status).toBe(200);
    expect(await q.used('compute')).toEqual({ 'requests.cpu': '800m' });
    // Recomputed from the pods (a new hard makes the controller sync), the pod still costs what the kubelet holds.
    const compute = (await t.call('GET', `${ns}/resourcequotas/compute`)).body;
    compute.spec.hard['requests.cpu'] = '2';
    expect((await t.call('PUT', `${ns}/resourcequotas/compute`, { body: compute })).status).toBe(200);
    for (let i = 0; i < 100 && (await t.call('GET', `${ns}/resourcequotas/compute`)).body.status.hard['requests.cpu'] !== '2'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await q.used('compute')).toEqual({ 'requests.cpu': '800m' });
    // The kubelet reports the new size: the controller's update filter sees the resources change.
    expect((await report('300m')).status).toBe(200);
    await q.usedWhen('compute', (u) => u['requests.cpu'] === '300m');
    expect((await resize('1')).status).toBe(200);
    expect(await q.used('compute')).toEqual({ 'requests.cpu': '1' });
  });

  test('an active deadline set on a pod charges the Terminating quota at once; the controller gives NotTerminating back', async () => {
    await q.createQuota('terminating', { pods: '1' }, { scopes: ['Terminating'] });
    await q.createQuota('long-running', { pods: '5' }, { scopes: ['NotTerminating'] });
    expect((await t.call('POST', `${ns}/pods`, { body: pod('job', '100m', { activeDeadlineSeconds: 600 }) })).status).toBe(201);
    expect((await t.call('POST', `${ns}/pods`, { body: pod('web', '100m') })).status).toBe(201);
    expect(await q.used('long-running')).toEqual({ pods: '1' });
    const moved = await t.call('PATCH', `${ns}/pods/web`, { body: { spec: { activeDeadlineSeconds: 300 } }, contentType: merge });
    expect(moved.status).toBe(403);
    expect(moved.body.message).toBe('pods "web" is forbidden: exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await t.call('DELETE', `${ns}/pods/job?gracePeriodSeconds=0`)).status).toBe(200);
    await q.usedWhen('terminating', (u) => u.pods === '0');
    expect((await t.call('PATCH', `${ns}/pods/web`, { body: { spec: { activeDeadlineSeconds: 300 } }, contentType: merge })).status).toBe(200);
    expect(await q.used('terminating')).toEqual({ pods: '1' });
    await q.usedWhen('long-running', (u) => u.pods === '0');
  });

  test('legacy names and count/<resource>.<group> for any served resource, ResourceClaims by device class; events and unknown resources never', async () => {
    const hard = {
      services: '1', 'count/services': '1', secrets: '1', persistentvolumeclaims: '1', replicationcontrollers: '1', resourcequotas: '1',
      'count/deployments.apps': '0', 'count/resourceclaims.resource.k8s.io': '1', 'gpu.deviceclass.resource.k8s.io/devices': '2',
      'count/events': '0', 'count/events.events.k8s.io': '0', 'count/widgets.example.com': '0', 'count/nodes': '0',
    };
    await q.createQuota('counts', hard);
    // Nothing monitors events, unknown or cluster-scoped resources: they get no usage at all (kube's controller).
    expect(await q.used('counts')).toEqual({
      services: '0', 'count/services': '0', secrets: '0', persistentvolumeclaims: '0', replicationcontrollers: '0', resourcequotas: '1',
      'count/deployments.apps': '0', 'count/resourceclaims.resource.k8s.io': '0', 'gpu.deviceclass.resource.k8s.io/devices': '0',
    });
    const create = (path: string, body: unknown) => t.call('POST', path, { body });
    const second = async (path: string, body: (name: string) => unknown, message: string) => {
      expect((await create(path, body('one'))).status).toBe(201);
      const r = await create(path, body('two'));
      expect({ status: r.status, message: r.body.message }).toEqual({ status: 403, message });
    };
    await second(`${ns}/services`, (name) => ({ metadata: { name }, spec: { ports: [{ port: 80 }] } }),
      'services "two" is forbidden: exceeded quota: counts, requested: count/services=1,services=1, used: count/services=1,services=1, limited: count/services=1,services=1');
    await second(`${ns}/secrets`, (name) => ({ metadata: { name }, data: {} }),
      'secrets "two" is forbidden: exceeded quota: counts, requested: secrets=1, used: secrets=1, limited: secrets=1');
    await second(`${ns}/persistentvolumeclaims`, (name) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
      'persistentvolumeclaims "two" is forbidden: exceeded quota: counts, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1');
    await second(`${ns}/replicationcontrollers`, (name) => ({ metadata: { name }, spec: { replicas: 0, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }),
      'replicationcontrollers "two" is forbidden: exceeded quota: counts, requested: replicationcontrollers=1, used: replicationcontrollers=1, limited: replicationcontrollers=1');
    const other = await create(`${ns}/resourcequotas`, { metadata: { name: 'other' }, spec: { hard: { pods: '1' } } });
    expect(other.body.message).toBe('resourcequotas "other" is forbidden: exceeded quota: counts, requested: resourcequotas=1, used: resourcequotas=1, limited: resourcequotas=1');
    const claim = (name: string, count: number) => ({ metadata: { name }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', count } }] } } });
    expect((await create('/apis/resource.k8s.io/v1/namespaces/quota/resourceclaims', claim('big', 3))).body.message)
      .toBe('resourceclaims.resource.k8s.io "big" is forbidden: exceeded quota: counts, requested: gpu.deviceclass.resource.k8s.io/devices=3, used: gpu.deviceclass.resource.k8s.io/devices=0, limited: gpu.deviceclass.resource.k8s.io/devices=2');
    expect((await create('/apis/resource.k8s.io/v1/namespaces/quota/resourceclaims', claim('pair', 2))).status).toBe(201);
    for (const name of ['e1', 'e2']) {
      const event = { metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'quota', name: 'x' }, reason: 'Test', message: 'm', type: 'Normal' };
      expect((await create(`${ns}/events`, event)).status).toBe(201);
    }
    const deployment = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } } };
    expect((await create('/apis/apps/v1/namespaces/quota/deployments', deployment)).status).toBe(403);
    expect(await q.used('counts')).toEqual({
      services: '1', 'count/services': '1', secrets: '1', persistentvolumeclaims: '1', replicationcontrollers: '1', resourcequotas: '1',
      'count/deployments.apps': '0', 'count/resourceclaims.resource.k8s.io': '1', 'gpu.deviceclass.resource.k8s.io/devices': '2',
    });
    expect((await t.call('DELETE', '/apis/resource.k8s.io/v1/namespaces/quota/resourceclaims/pair')).status).toBe(200);
    await q.usedWhen('counts', (u) => u['gpu.deviceclass.resource.k8s.io/devices'] === '0' && u['count/resourceclaims.resource.k8s.io'] === '0');
  });
});

describeBackends('limitedResources from --admission-control-config-file', (ctx) => {
  let t: TestServer;
  let dir: string;
  const q = quotaClient(() => t);
  const configuration = {
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration',
    limitedResources: [
      { resource: 'persistentvolumeclaims', matchContains: ['.storageclass.storage.k8s.io/requests.storage'] },
      { resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] },
    ],
  };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'windlass-quota-'));
    // kube's documented layout: the AdmissionConfiguration names the plugin's own file.
    writeFileSync(join(dir, 'resourcequota.json'), JSON.stringify(configuration));
    writeFileSync(join(dir, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  path: resourcequota.json\n');
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry', admissionControlConfigFile: join(dir, 'admission.yaml') });
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status).toBe(201);
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a limited resource or scope is refused until a quota covers it', async () => {
    const claim = { metadata: { name: 'data' }, spec: { storageClassName: 'gold', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const refused = await t.call('POST', `${ns}/persistentvolumeclaims`, { body: claim });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('persistentvolumeclaims "data" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage');
    // Claims of no class consume nothing limited.
    expect((await t.call('POST', `${ns}/persistentvolumeclaims`, { body: { ...claim, metadata: { name: 'plain' }, spec: { ...claim.spec, storageClassName: '' } } })).status).toBe(201);

    expect((await t.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { metadata: { name: 'cluster-services' }, value: 1000 } })).status).toBe(201);
    const critical = pod('critical', '100m', { priorityClassName: 'cluster-services' });
    const scopeRefusal = await t.call('POST', `${ns}/pods`, { body: critical });
    expect(scopeRefusal.status).toBe(500);
    expect(scopeRefusal.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]', code: 500 });
    expect((await t.call('POST', `${ns}/pods`, { body: pod('ordinary', '100m') })).status).toBe(201);

    await q.createQuota('gold', { 'gold.storageclass.storage.k8s.io/requests.storage': '5Gi' });
    await q.createQuota('critical', { pods: '2' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } });
    expect((await t.call('POST', `${ns}/persistentvolumeclaims`, { body: claim })).status).toBe(201);
    expect((await t.call('POST', `${ns}/pods`, { body: critical })).status).toBe(201);
    expect(await q.used('gold')).toEqual({ 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' });
    expect(await q.used('critical')).toEqual({ pods: '1' });
  });
});

test('a server whose admission configuration cannot be read or is invalid does not start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-quota-'));
  const storage = new EmbeddedStorage({ path: ':memory:' });
  try {
    expect(() => new APIServer({ storage, admissionControlConfigFile: join(dir, 'missing.yaml') })).toThrow(/^unable to read admission control configuration from ".*missing\.yaml" \[/);
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ResourceQuotaConfiguration\n    limitedResources:\n    - matchContains: [requests.storage]\n');
    expect(() => new APIServer({ storage, admissionControlConfigFile: join(dir, 'bad.yaml') })).toThrow('limitedResources[0].resource: Required value');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
