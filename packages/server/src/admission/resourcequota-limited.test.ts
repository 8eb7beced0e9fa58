/**
 * kube 1.35's pod usage under in-place resize, the ResourceClaim evaluator, which writes each
 * evaluator handles, and the limitedResources configuration (its decoding, the
 * AdmissionConfiguration file, and the admission checks and messages it adds).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatusError } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionLookup, KubeObject, StoreContext } from '../registry/types.js';
import { claimUsage, evaluatorFor, podUsage, resourceListJSON } from './resourcequota-usage.js';
import { resourceQuotaAdmission } from './resourcequota.js';
import { configureResourceQuota, parseResourceQuotaConfiguration } from './resourcequota-config.js';
import { applyAdmissionConfigurationFile, readAdmissionConfiguration } from './admissionconfig.js';

type Json = Record<string, any>;
const now = Date.now();

const pod = (spec: Json, status: Json = {}, name = 'web'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: '5' }, spec, status });
const app = (requests: Json, limits?: Json) => ({ name: 'app', image: 'nginx', resources: { requests, ...(limits ? { limits } : {}) } });
const running = (requests: Json, allocated: Json, limits?: Json) => ({ name: 'app', resources: { requests, ...(limits ? { limits } : {}) }, allocatedResources: allocated });

describe('pod usage with in-place resize', () => {
  test('a container the kubelet reports costs the largest of spec, allocated and actuated requests; limits the larger of spec and actuated', () => {
    // Resized down from 800m: until the kubelet actuates it the pod still holds 800m.
    const p = pod({ containers: [app({ cpu: '300m' }, { cpu: '1' })] }, { containerStatuses: [running({ cpu: '800m' }, { cpu: '500m' }, { cpu: '2' })] });
    const u = resourceListJSON(podUsage(p, now));
    expect(u['requests.cpu']).toBe('800m');
    expect(u['limits.cpu']).toBe('2');
    // Resized up: the spec is the most.
    const up = pod({ containers: [app({ cpu: '1500m' })] }, { containerStatuses: [running({ cpu: '800m' }, { cpu: '800m' })] });
    expect(resourceListJSON(podUsage(up, now))['requests.cpu']).toBe('1500m');
  });

  test('an infeasible resize is not charged: actuated and allocated only', () => {
    const p = pod({ containers: [app({ cpu: '4' }, { cpu: '4' })] }, {
      conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible' }],
      containerStatuses: [running({ cpu: '500m' }, { cpu: '600m' }, { cpu: '1' })],
    });
    const u = resourceListJSON(podUsage(p, now));
    expect(u['requests.cpu']).toBe('600m');
    expect(u['limits.cpu']).toBe('1');
  });

  test('a container without reported resources, and non-sidecar init containers, cost their spec', () => {
    const p = pod({
      containers: [app({ cpu: '300m' })],
      initContainers: [{ name: 'setup', image: 'x', resources: { requests: { cpu: '2' } } }],
    }, { containerStatuses: [{ name: 'app' }], initContainerStatuses: [{ name: 'setup', resources: { requests: { cpu: '3' } } }] });
    expect(resourceListJSON(podUsage(p, now))['requests.cpu']).toBe('2');
  });

  test('overhead adds to every request but only to limits that are set; pod-level resources replace the containers\' (hugepages too)', () => {
    const p = pod({ containers: [app({ cpu: '100m', memory: '64Mi' }, { memory: '128Mi' })], overhead: { cpu: '10m', memory: '1Mi' } });
    const u = resourceListJSON(podUsage(p, now));
    expect(u).toMatchObject({ 'requests.cpu': '110m', 'requests.memory': '65Mi', 'limits.memory': '129Mi' });
    expect(u['limits.cpu']).toBeUndefined();
    const level = pod({ containers: [app({ cpu: '100m' })], resources: { requests: { cpu: '1', 'hugepages-2Mi': '4Mi' }, limits: { memory: '1Gi' } } });
    expect(resourceListJSON(podUsage(level, now))).toMatchObject({ 'requests.cpu': '1', 'requests.hugepages-2Mi': '4Mi', 'limits.memory': '1Gi' });
  });

  test('a pod with pod-level resources is not asked for container requests by a cpu quota', () => {
    const e = evaluatorFor('', 'pods');
    const bare = pod({ containers: [{ name: 'app', image: 'nginx' }] });
    expect(e.constraints!(['requests.cpu'], bare)).toBe('must specify requests.cpu for: app');
    expect(e.constraints!(['requests.cpu'], pod({ ...bare.spec as Json, resources: { requests: { cpu: '1' } } }))).toBeUndefined();
  });
});

describe('which writes an evaluator handles', () => {
  const attrs = (operation: 'CREATE' | 'UPDATE', subresource: string, obj: KubeObject, old?: KubeObject) => ({ operation, subresource, obj, old });
  const plain = pod({ containers: [app({ cpu: '1' })] });
  const deadline = pod({ containers: [app({ cpu: '1' })], activeDeadlineSeconds: 60 });

  test('pods: creates, resizes, and updates that change the Terminating scope', () => {
    const e = evaluatorFor('', 'pods');
    expect(e.handles(attrs('CREATE', '', plain))).toBe(true);
    expect(e.handles(attrs('UPDATE', 'resize', plain, plain))).toBe(true);
    expect(e.handles(attrs('UPDATE', '', plain, plain))).toBe(false);
    expect(e.handles(attrs('UPDATE', '', deadline, plain))).toBe(true);
    expect(e.handles(attrs('UPDATE', 'status', deadline, plain))).toBe(false);
    expect(e.handles(attrs('CREATE', 'binding', plain))).toBe(false);
  });

  test('object counts: creates of the main resource only; claims: status writes too; services: any write', () => {
    const cm: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    expect(evaluatorFor('', 'configmaps').handles(attrs('CREATE', '', cm))).toBe(true);
    expect(evaluatorFor('apps', 'deployments').handles(attrs('CREATE', 'scale', cm))).toBe(false);
    expect(evaluatorFor('apps', 'deployments').handles(attrs('UPDATE', '', cm, cm))).toBe(false);
    expect(evaluatorFor('', 'persistentvolumeclaims').handles(attrs('UPDATE', 'status', cm, cm))).toBe(true);
    expect(evaluatorFor('', 'services').handles(attrs('UPDATE', 'status', cm, cm))).toBe(true);
    expect(evaluatorFor('resource.k8s.io', 'resourceclaims').handles(attrs('UPDATE', 'status', cm, cm))).toBe(false);
  });
});

test('a ResourceClaim costs one claim and, per device class, its devices: All the worst case (32), alternatives their largest', () => {
  const claim: KubeObject = {
    metadata: { name: 'c', namespace: 'ns' },
    spec: { devices: { requests: [
      { name: 'a', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 2 } },
      { name: 'b', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } },
      { name: 'c', exactly: { deviceClassName: 'nic', allocationMode: 'All' } },
      { name: 'd', firstAvailable: [
        { name: 'big', deviceClassName: 'fpga', allocationMode: 'ExactCount', count: 4 },
        { name: 'small', deviceClassName: 'fpga', allocationMode: 'ExactCount', count: 1 },
        { name: 'other', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
      ] },
    ] } },
  };
  expect(resourceListJSON(claimUsage(claim))).toEqual({
    'count/resourceclaims.resource.k8s.io': '1',
    'fpga.deviceclass.resource.k8s.io/devices': '4',
    'gpu.deviceclass.resource.k8s.io/devices': '4',
    'nic.deviceclass.resource.k8s.io/devices': '32',
  });
});

describe('ResourceQuotaConfiguration', () => {
  test('kube\'s three registered kinds decode; unknown fields, other kinds and entries without a resource are refused', () => {
    const limitedResources = [{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] }];
    expect(parseResourceQuotaConfiguration({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources })).toEqual({
      limitedResources: [{ apiGroup: '', resource: 'pods', matchContains: [], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] }],
    });
    expect(parseResourceQuotaConfiguration({ apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration' })).toEqual({ limitedResources: [] });
    expect(() => parseResourceQuotaConfiguration({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Configuration' }))
      .toThrow('no kind "Configuration" is registered for version "apiserver.config.k8s.io/v1"');
    expect(() => parseResourceQuotaConfiguration({ apiVersion: 'resourcequota.admission.k8s.io/v1alpha1', kind: 'Configuration', limitedResources: [{ resource: 'pods', matchContain: ['x'] }] }))
      .toThrow('strict decoding error: unknown field "limitedResources[0].matchContain"');
    expect(() => parseResourceQuotaConfiguration({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ apiGroup: 'apps' }] }))
      .toThrow('limitedResources[0].resource: Required value');
  });

  test('the AdmissionConfiguration file: the plugin\'s embedded configuration, or its own file relative to the first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'windlass-admission-'));
    try {
      const quotaYAML = 'apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: persistentvolumeclaims\n  matchContains: [".storageclass.storage.k8s.io/requests.storage"]\n';
      writeFileSync(join(dir, 'quota.yaml'), quotaYAML);
      writeFileSync(join(dir, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  path: quota.yaml\n');
      expect(readAdmissionConfiguration(join(dir, 'admission.yaml'))).toEqual({ plugins: [{ name: 'ResourceQuota', path: join(dir, 'quota.yaml'), configuration: undefined }] });
      const ctx = {} as StoreContext;
      applyAdmissionConfigurationFile(ctx, join(dir, 'admission.yaml'));

      writeFileSync(join(dir, 'embedded.json'), JSON.stringify({ apiVersion: 'apiserver.k8s.io/v1alpha1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ResourceQuota', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{}] } }] }));
      expect(() => applyAdmissionConfigurationFile({} as StoreContext, join(dir, 'embedded.json'))).toThrow('limitedResources[0].resource: Required value');
      writeFileSync(join(dir, 'other.yaml'), 'imagePolicy: {}\n');
      expect(() => readAdmissionConfiguration(join(dir, 'other.yaml'))).toThrow("Object 'apiVersion' is missing");
      expect(() => readAdmissionConfiguration(join(dir, 'missing.yaml'))).toThrow(`unable to read admission control configuration from "${join(dir, 'missing.yaml')}"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Admission with limitedResources, against in-memory quotas

function quotaLookup(quotas: KubeObject[]) {
  return (_group: string, resource: string): AdmissionLookup | undefined => resource !== 'resourcequotas' ? undefined : ({
    get: async () => undefined,
    list: async () => quotas,
    listCached: async () => quotas,
    create: async () => { throw new Error('unused'); },
    delete: async () => { throw new Error('unused'); },
    updateStatus: async (_ns, name, tryUpdate) => {
      const i = quotas.findIndex((q) => q.metadata.name === name);
      return (quotas[i] = tryUpdate(structuredClone(quotas[i])));
    },
  });
}

const quota = (name: string, hard: Json, used: Json, spec: Json = {}): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: '1' }, spec: { hard, ...spec }, status: { hard, used } });

async function admit(group: string, resource: string, obj: KubeObject, quotas: KubeObject[], ctx: StoreContext): Promise<{ code: number; reason?: string; message: string } | 'allowed'> {
  const attrs: AdmissionAttributes = { operation: 'CREATE', subresource: '', obj, dryRun: false, user: { name: 'admin', groups: [] }, ctx, lookup: quotaLookup(quotas), warn: () => {} };
  try {
    await resourceQuotaAdmission(group, resource).validate!(attrs);
    return 'allowed';
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.status.code!, reason: err.status.reason, message: err.status.message! };
  }
}

describe('limitedResources', () => {
  const ctx = {} as StoreContext;
  configureResourceQuota(ctx, parseResourceQuotaConfiguration({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration',
    limitedResources: [
      { resource: 'persistentvolumeclaims', matchContains: ['.storageclass.storage.k8s.io/requests.storage'] },
      { resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] },
    ],
  }));
  const claim = (cls: string): KubeObject => ({ metadata: { name: 'data', namespace: 'ns' }, spec: { storageClassName: cls, resources: { requests: { storage: '1Gi' } } } });
  const critical = pod({ containers: [app({ cpu: '100m' })], priorityClassName: 'cluster-services' }, {}, 'critical');

  test('a limited resource needs a quota that tracks it, even in a namespace without quotas', async () => {
    expect(await admit('', 'persistentvolumeclaims', claim('gold'), [], ctx)).toEqual({
      code: 403, reason: 'Forbidden', message: 'persistentvolumeclaims "data" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage',
    });
    // A quota on other resources does not cover it; one tracking the class's storage does.
    expect(await admit('', 'persistentvolumeclaims', claim('gold'), [quota('count', { persistentvolumeclaims: '5' }, { persistentvolumeclaims: '0' })], ctx))
      .toMatchObject({ code: 403, message: expect.stringContaining('insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage') });
    const covering = quota('gold', { 'gold.storageclass.storage.k8s.io/requests.storage': '10Gi' }, { 'gold.storageclass.storage.k8s.io/requests.storage': '0' });
    const quotas = [covering];
    expect(await admit('', 'persistentvolumeclaims', claim('gold'), quotas, ctx)).toBe('allowed');
    expect(quotas[0].status).toEqual({ hard: { 'gold.storageclass.storage.k8s.io/requests.storage': '10Gi' }, used: { 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' } });
    // Other kinds, and claims without a class, consume nothing limited.
    expect(await admit('', 'persistentvolumeclaims', { metadata: { name: 'plain', namespace: 'ns' }, spec: { resources: { requests: { storage: '1Gi' } } } }, [], ctx)).toBe('allowed');
    expect(await admit('', 'configmaps', { metadata: { name: 'c', namespace: 'ns' } }, [], ctx)).toBe('allowed');
  });

  test('a limited scope needs a quota with a scope of that name; kube answers 500 without a reason', async () => {
    expect(await admit('', 'pods', critical, [], ctx)).toEqual({ code: 500, reason: undefined, message: 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]' });
    const scoped = quota('critical', { pods: '10' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } });
    const quotas = [scoped];
    expect(await admit('', 'pods', critical, quotas, ctx)).toBe('allowed');
    expect(quotas[0].status).toMatchObject({ used: { pods: '1' } });
    // Pods of other classes are not limited.
    expect(await admit('', 'pods', pod({ containers: [app({ cpu: '100m' })] }), [], ctx)).toBe('allowed');
  });

  test('a server without configuration limits nothing (kube\'s default)', async () => {
    expect(await admit('', 'persistentvolumeclaims', claim('gold'), [], {} as StoreContext)).toBe('allowed');
    expect(await admit('', 'pods', critical, [], {} as StoreContext)).toBe('allowed');
  });
});
