/** ResourceQuota usage evaluators and the admission plugin's checks and messages, against in-memory objects. */
import { isStatusError } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionLookup, KubeObject, StoreContext } from '../registry/types.js';
import { calculateUsage, parseResourceList, podUsage, pvcUsage, resourceListJSON, serviceUsage } from './resourcequota-usage.js';
import { resourceQuotaAdmission } from './resourcequota.js';

type Json = Record<string, any>;
const json = (l: ReturnType<typeof podUsage>) => resourceListJSON(l);

const container = (name: string, requests?: Json, limits?: Json, extra: Json = {}) => ({ name, image: 'nginx', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) }, ...extra });
const pod = (name: string, spec: Json, extra: Json = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...(extra.metadata ?? {}) }, spec, ...(extra.status ? { status: extra.status } : {}) });
const quota = (name: string, hard: Json, used?: Json, spec: Json = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: '1' }, spec: { hard, ...spec }, status: used ? { hard, used } : {},
});

/** An in-memory namespace: `objects` by resource; quota status writes land in it. */
function cluster(objects: Record<string, KubeObject[]>) {
  const writes: KubeObject[] = [];
  const lookup = (_group: string, resource: string): AdmissionLookup => ({
    get: async (ns, name) => (objects[resource] ?? []).find((o) => o.metadata.namespace === ns && o.metadata.name === name),
    list: async (ns) => (objects[resource] ?? []).filter((o) => !ns || o.metadata.namespace === ns),
    listCached: async (ns) => (objects[resource] ?? []).filter((o) => !ns || o.metadata.namespace === ns),
    create: async () => { throw new Error('unused'); },
    delete: async () => { throw new Error('unused'); },
    updateStatus: async (ns, name, tryUpdate) => {
      const items = objects[resource] ?? [];
      const i = items.findIndex((o) => o.metadata.namespace === ns && o.metadata.name === name);
      const next = tryUpdate(structuredClone(items[i]));
      items[i] = next;
      writes.push(next);
      return next;
    },
  });
  return { lookup, writes };
}

function attrs(obj: KubeObject, c: ReturnType<typeof cluster>, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', subresource: '', obj, dryRun: false, user: { name: 'admin', groups: [] }, ctx: {} as StoreContext, lookup: c.lookup, warn: () => {}, ...extra };
}

async function refusal(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.status.code!, reason: err.status.reason!, message: err.status.message! };
  }
  throw new Error('expected a refusal');
}

describe('quota usage of one object', () => {
  test('a pod: requests and limits summed over containers, the larger init container, overhead; cpu/memory aliases of requests', () => {
    const p = pod('web', {
      containers: [container('a', { cpu: '100m', memory: '64Mi' }, { cpu: '200m', memory: '128Mi' }), container('b', { cpu: '150m', memory: '64Mi' }, { memory: '128Mi' })],
      initContainers: [container('init', { cpu: '1', memory: '32Mi' })],
      overhead: { cpu: '10m' },
    });
    expect(json(podUsage(p, Date.now()))).toEqual({
      'count/pods': '1', pods: '1', cpu: '1010m', 'requests.cpu': '1010m', memory: '128Mi', 'requests.memory': '128Mi',
      'limits.cpu': '210m', 'limits.memory': '256Mi',
    });
  });

  test('a sidecar (restartable init container) adds to the pod; extended resources and hugepages are requests', () => {
    const p = pod('web', {
      containers: [container('a', { cpu: '100m', 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi' })],
      initContainers: [container('proxy', { cpu: '50m' }, undefined, { restartPolicy: 'Always' }), container('setup', { cpu: '120m' })],
    });
    const u = json(podUsage(p, Date.now()));
    // setup runs next to the sidecar started before it: 170m, more than the 150m of the running pod.
    expect(u['requests.cpu']).toBe('170m');
    expect(u['requests.example.com/gpu']).toBe('2');
    expect(u['example.com/gpu']).toBeUndefined();
    expect(u['requests.hugepages-2Mi']).toBe('4Mi');
  });

  test('a terminal pod counts only as an object; one past its deletion grace period too', () => {
    const spec = { containers: [container('a', { cpu: '1' })] };
    expect(json(podUsage(pod('done', spec, { status: { phase: 'Succeeded' } }), Date.now()))).toEqual({ 'count/pods': '1' });
    const past = new Date(Date.now() - 60_000).toISOString();
    expect(json(podUsage(pod('gone', spec, { metadata: { deletionTimestamp: past, deletionGracePeriodSeconds: 30 } }), Date.now()))).toEqual({ 'count/pods': '1' });
    const soon = new Date(Date.now() + 60_000).toISOString();
    expect(json(podUsage(pod('going', spec, { metadata: { deletionTimestamp: soon, deletionGracePeriodSeconds: 30 } }), Date.now())).pods).toBe('1');
  });

  test('services count node ports and load balancers by type', () => {
    const svc = (spec: Json): KubeObject => ({ metadata: { name: 's', namespace: 'ns' }, spec });
    const ports = [{ port: 80 }, { port: 443 }];
    expect(json(serviceUsage(svc({ type: 'ClusterIP', ports })))).toEqual({ 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' });
    expect(json(serviceUsage(svc({ type: 'NodePort', ports })))['services.nodeports']).toBe('2');
    expect(json(serviceUsage(svc({ type: 'LoadBalancer', ports })))).toMatchObject({ 'services.loadbalancers': '1', 'services.nodeports': '2' });
    expect(json(serviceUsage(svc({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30080 }, { port: 443 }] })))['services.nodeports']).toBe('1');
  });

  test('claims: storage rounded up to whole bytes, charged to their storage class too, the larger of request and allocation', () => {
    const pvc = (spec: Json, status: Json = {}, annotations?: Record<string, string>): KubeObject => ({ metadata: { name: 'c', namespace: 'ns', annotations }, spec, status });
    expect(json(pvcUsage(pvc({ storageClassName: 'fast', resources: { requests: { storage: '1500m' } } })))).toEqual({
      persistentvolumeclaims: '1', 'count/persistentvolumeclaims': '1', 'requests.storage': '2',
      'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'fast.storageclass.storage.k8s.io/requests.storage': '2',
    });
    expect(json(pvcUsage(pvc({ resources: { requests: { storage: '1Gi' } } }, { allocatedResources: { storage: '2Gi' } })))['requests.storage']).toBe('2Gi');
    expect(json(pvcUsage(pvc({ storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } }, {}, { 'volume.beta.kubernetes.io/storage-class': 'slow' })))).toHaveProperty(['slow.storageclass.storage.k8s.io/requests.storage'], '1Gi');
  });
});

describe('quota usage of a namespace', () => {
  const objects = () => ({
    pods: [
      pod('a', { containers: [container('c', { cpu: '100m', memory: '1Gi' })] }),
      pod('b', { containers: [container('c')], activeDeadlineSeconds: 30 }),
      pod('done', { containers: [container('c', { cpu: '1' })] }, { status: { phase: 'Failed' } }),
    ],
    configmaps: [{ metadata: { name: 'x', namespace: 'ns' } }, { metadata: { name: 'y', namespace: 'ns' } }, { metadata: { name: 'z', namespace: 'other' } }],
    deployments: [{ metadata: { name: 'd', namespace: 'ns' } }],
  });

  test('every tracked resource, zero when nothing uses it; count/<resource>.<group> for any kind', async () => {
    const c = cluster(objects());
    const hard = { pods: '10', 'count/pods': '10', 'requests.cpu': '2', memory: '4Gi', configmaps: '5', secrets: '5', 'count/deployments.apps': '2', 'services.nodeports': '1' };
    const q = quota('q', hard);
    expect(resourceListJSON(await calculateUsage('ns', q, parseResourceList(hard), c.lookup))).toEqual({
      pods: '2', 'count/pods': '3', 'requests.cpu': '100m', memory: '1Gi', configmaps: '2', secrets: '0', 'count/deployments.apps': '1', 'services.nodeports': '0',
    });
  });

  test('scopes select the pods counted; object counts never match a scoped quota', async () => {
    const c = cluster(objects());
    const hard = { pods: '10', configmaps: '5' };
    const usage = async (scopes: string[]) => resourceListJSON(await calculateUsage('ns', quota('q', hard, undefined, { scopes }), parseResourceList(hard), c.lookup));
    expect(await usage(['Terminating'])).toEqual({ pods: '1', configmaps: '0' });
    expect(await usage(['NotTerminating'])).toEqual({ pods: '1', configmaps: '0' });
    expect(await usage(['BestEffort'])).toEqual({ pods: '1', configmaps: '0' });
    expect(await usage(['NotBestEffort', 'NotTerminating'])).toEqual({ pods: '1', configmaps: '0' });
  });

  test('PriorityClass scope selectors: In, NotIn, Exists over the pod\'s priorityClassName', async () => {
    const o = objects();
    o.pods[0].spec = { ...(o.pods[0].spec as Json), priorityClassName: 'high' };
    const c = cluster(o);
    const hard = { pods: '10' };
    const usage = async (matchExpressions: Json[]) => resourceListJSON(await calculateUsage('ns', quota('q', hard, undefined, { scopeSelector: { matchExpressions } }), parseResourceList(hard), c.lookup));
    expect(await usage([{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] }])).toEqual({ pods: '1' });
    expect(await usage([{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }])).toEqual({ pods: '1' });
    expect(await usage([{ scopeName: 'PriorityClass', operator: 'Exists' }])).toEqual({ pods: '1' });
    expect(await usage([{ scopeName: 'PriorityClass', operator: 'DoesNotExist' }])).toEqual({ pods: '1' });
    expect(await usage([{ scopeName: 'PriorityClass', operator: 'In', values: ['low'] }])).toEqual({ pods: '0' });
  });
});

describe('ResourceQuota admission', () => {
  const cpuPod = (name: string, cpu = '500m') => pod(name, { containers: [container('app', { cpu, memory: '64Mi' })] });

  test('charges status.used by compare-and-swap and refuses what exceeds hard with kube\'s message', async () => {
    const c = cluster({ resourcequotas: [quota('compute', { pods: '2', 'requests.cpu': '1' }, { pods: '0', 'requests.cpu': '0' })] });
    const plugin = resourceQuotaAdmission('', 'pods');
    await plugin.validate!(attrs(cpuPod('a', '600m'), c));
    expect(c.writes.map((q) => (q.status as Json).used)).toEqual([{ pods: '1', 'requests.cpu': '600m' }]);
    expect(await refusal(plugin.validate!(attrs(cpuPod('b', '500m'), c)) as Promise<void>)).toEqual({
      code: 403, reason: 'Forbidden', message: 'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1',
    });
    expect(c.writes).toHaveLength(1);
  });

  test('a dry run is checked but charges nothing', async () => {
    const c = cluster({ resourcequotas: [quota('q', { pods: '1' }, { pods: '0' })] });
    await resourceQuotaAdmission('', 'pods').validate!(attrs(cpuPod('a'), c, { dryRun: true }));
    expect(c.writes).toHaveLength(0);
    const full = cluster({ resourcequotas: [quota('q', { pods: '1' }, { pods: '1' })] });
    expect((await refusal(resourceQuotaAdmission('', 'pods').validate!(attrs(cpuPod('a'), full, { dryRun: true })) as Promise<void>)).message)
      .toBe('pods "a" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
  });

  test('a quota whose status lacks usage of a resource it limits refuses that resource; one without status limits nothing yet', async () => {
    const c = cluster({ resourcequotas: [{ ...quota('q', { pods: '1', configmaps: '1' }), status: { hard: { pods: '1', configmaps: '1' }, used: { pods: '0' } } }] });
    // kube matches quotas by status.hard: until the controller wrote it, a new quota charges nothing.
    await resourceQuotaAdmission('', 'configmaps').validate!(attrs({ metadata: { name: 'cm', namespace: 'ns' } }, cluster({ resourcequotas: [quota('q', { configmaps: '0' })] })));
    expect((await refusal(resourceQuotaAdmission('', 'configmaps').validate!(attrs({ metadata: { name: 'cm', namespace: 'ns' } }, c)) as Promise<void>)).message)
      .toBe('configmaps "cm" is forbidden: status unknown for quota: q, resources: configmaps');
  });

  test('a cpu or memory quota needs every container to state it', async () => {
    const c = cluster({ resourcequotas: [quota('q', { 'limits.memory': '1Gi', 'requests.cpu': '1' }, { 'limits.memory': '0', 'requests.cpu': '0' })] });
    const p = pod('web', { containers: [container('a', { cpu: '100m' }), container('b')], initContainers: [container('init', undefined, { memory: '10Mi' })] });
    expect((await refusal(resourceQuotaAdmission('', 'pods').validate!(attrs(p, c)) as Promise<void>)).message)
      .toBe('pods "web" is forbidden: failed quota: q: must specify limits.memory for: a,b; requests.cpu for: b,init');
  });

  test('object counts by count/<resource>.<group>, a scoped quota ignores what it does not select, updates pay only their growth', async () => {
    const c = cluster({
      resourcequotas: [
        quota('apps', { 'count/deployments.apps': '1' }, { 'count/deployments.apps': '1' }),
        quota('besteffort', { pods: '0' }, { pods: '0' }, { scopes: ['BestEffort'] }),
        quota('lb', { 'services.loadbalancers': '1', 'services.nodeports': '2' }, { 'services.loadbalancers': '0', 'services.nodeports': '0' }),
      ],
    });
    expect((await refusal(resourceQuotaAdmission('apps', 'deployments').validate!(attrs({ metadata: { name: 'd', namespace: 'ns' } }, c)) as Promise<void>)).message)
      .toBe('deployments.apps "d" is forbidden: exceeded quota: apps, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
    // Not best effort: the scoped quota does not apply.
    await resourceQuotaAdmission('', 'pods').validate!(attrs(cpuPod('a'), c));
    expect((await refusal(resourceQuotaAdmission('', 'pods').validate!(attrs(pod('be', { containers: [container('a')] }), c)) as Promise<void>)).message)
      .toBe('pods "be" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=0, limited: pods=0');
    const svc = (type: string, rv?: string): KubeObject => ({ metadata: { name: 's', namespace: 'ns', resourceVersion: rv }, spec: { type, ports: [{ port: 80 }] } });
    const services = resourceQuotaAdmission('', 'services');
    await services.validate!(attrs(svc('ClusterIP'), c));
    await services.validate!(attrs(svc('NodePort'), c, { operation: 'UPDATE', old: svc('ClusterIP', '5') }));
    expect((c.writes.at(-1)!.status as Json).used).toEqual({ 'services.loadbalancers': '0', 'services.nodeports': '1' });
    await services.validate!(attrs(svc('LoadBalancer'), c, { operation: 'UPDATE', old: svc('NodePort', '6') }));
    expect((c.writes.at(-1)!.status as Json).used).toEqual({ 'services.loadbalancers': '1', 'services.nodeports': '1' });
  });
});
