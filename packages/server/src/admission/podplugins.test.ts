import { isStatusError } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionLookup, KubeObject, StoreContext } from '../registry/types.js';
import { defaultPod } from '../registry/kinds/core/podspec/index.js';
import { serviceAccountAdmission } from './serviceaccount.js';
import { limitRangerAdmission } from './limitranger.js';
import { priorityAdmission } from './priority.js';
import { defaultTolerationSecondsAdmission } from './defaulttolerationseconds.js';
import { evaluatePod, forbiddenDetail, podSecurityAdmission, policyFor } from './podsecurity.js';

type Json = Record<string, any>;

/** Objects other resources hold, keyed `resource/namespace/name`. */
function attrsFor(pod: KubeObject, objects: Record<string, KubeObject[]>, operation: 'CREATE' | 'UPDATE' = 'CREATE', old?: KubeObject): AdmissionAttributes {
  const lookup = (_group: string, resource: string): AdmissionLookup => ({
    get: async (ns, name) => (objects[resource] ?? []).find((o) => (o.metadata.namespace ?? '') === ns && o.metadata.name === name),
    list: async (ns) => (objects[resource] ?? []).filter((o) => !ns || o.metadata.namespace === ns),
    create: async () => { throw new Error('unused'); },
    delete: async () => { throw new Error('unused'); },
  });
  return { operation, subresource: '', obj: pod, old, dryRun: true, user: { name: 'admin', groups: [] }, ctx: {} as StoreContext, lookup, warn: () => {} };
}

function newPod(spec: Json, metadata: Json = {}): KubeObject {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'ns', ...metadata }, spec };
  defaultPod(pod as Json);
  return pod;
}

const app = (extra: Json = {}) => ({ name: 'app', image: 'a:1', ...extra });
const sa = (name = 'default', extra: Json = {}): KubeObject => ({ metadata: { name, namespace: 'ns' }, ...extra });

async function refusal(p: Promise<unknown> | unknown): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isStatusError(err)) return { code: err.status.code!, message: err.status.message! };
    throw err;
  }
  throw new Error('not refused');
}

describe('ServiceAccount admission', () => {
  test('the default account and the kube-api-access projected volume, mounted into every container', async () => {
    const pod = newPod({ containers: [app()], initContainers: [app({ name: 'init' })] });
    await serviceAccountAdmission.mutate!(attrsFor(pod, { serviceaccounts: [sa()] }));
    const spec = pod.spec as Json;
    expect([spec.serviceAccountName, spec.serviceAccount]).toEqual(['default', 'default']);
    const volume = spec.volumes[0];
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected.sources[0]).toEqual({ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
    for (const c of [...spec.containers, ...spec.initContainers]) {
      expect(c.volumeMounts).toEqual([{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    }
  });

  test('automountServiceAccountToken false mounts nothing; a missing account is 403 with kube\'s message', async () => {
    const pod = newPod({ containers: [app()], automountServiceAccountToken: false });
    await serviceAccountAdmission.mutate!(attrsFor(pod, { serviceaccounts: [sa()] }));
    expect((pod.spec as Json).volumes).toBeUndefined();
    const ghost = newPod({ containers: [app()], serviceAccountName: 'ghost' });
    expect(await refusal(serviceAccountAdmission.mutate!(attrsFor(ghost, { serviceaccounts: [sa()] })))).toEqual({
      code: 403, message: 'pods "web" is forbidden: error looking up service account ns/ghost: serviceaccount "ghost" not found',
    });
  });

  test('the account\'s image pull secrets are copied to a pod without any', async () => {
    const pod = newPod({ containers: [app()] });
    await serviceAccountAdmission.mutate!(attrsFor(pod, { serviceaccounts: [sa('default', { imagePullSecrets: [{ name: 'reg' }] })] }));
    expect((pod.spec as Json).imagePullSecrets).toEqual([{ name: 'reg' }]);
  });
});

describe('LimitRanger admission', () => {
  const limitRange: KubeObject = { metadata: { name: 'defaults', namespace: 'ns' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' }, max: { cpu: '2' } }] } };

  test('defaults and the annotation saying so', async () => {
    const pod = newPod({ containers: [app()] });
    await limitRangerAdmission.mutate!(attrsFor(pod, { limitranges: [limitRange] }));
    expect((pod.spec as Json).containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    expect(pod.metadata.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app' });
  });

  test('a limit above the maximum is 403', async () => {
    const pod = newPod({ containers: [app({ resources: { limits: { cpu: '4' } } })] });
    const attrs = attrsFor(pod, { limitranges: [limitRange] });
    await limitRangerAdmission.mutate!(attrs);
    expect(await refusal(limitRangerAdmission.validate!(attrs))).toEqual({ code: 403, message: 'pods "web" is forbidden: maximum cpu usage per Container is 2, but limit is 4' });
  });
});

describe('Priority and DefaultTolerationSeconds admission', () => {
  test('priority 0 and PreemptLowerPriority without a default class; a named class gives its value', async () => {
    const pod = newPod({ containers: [app()] });
    await priorityAdmission.mutate!(attrsFor(pod, {}));
    expect([(pod.spec as Json).priority, (pod.spec as Json).preemptionPolicy]).toEqual([0, 'PreemptLowerPriority']);
    const high = newPod({ containers: [app()], priorityClassName: 'high' });
    await priorityAdmission.mutate!(attrsFor(high, { priorityclasses: [{ metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' }] }));
    expect([(high.spec as Json).priority, (high.spec as Json).preemptionPolicy]).toEqual([1000, 'Never']);
    const ghost = newPod({ containers: [app()], priorityClassName: 'ghost' });
    expect(await refusal(priorityAdmission.mutate!(attrsFor(ghost, {})))).toEqual({ code: 403, message: 'pods "web" is forbidden: no PriorityClass with name ghost was found' });
    const stated = newPod({ containers: [app()], priority: 5 });
    expect((await refusal(priorityAdmission.mutate!(attrsFor(stated, {})))).message).toBe('pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name');
  });

  test('not-ready and unreachable tolerations for 300 seconds, unless already tolerated', async () => {
    const pod = newPod({ containers: [app()], tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }] });
    await defaultTolerationSecondsAdmission.mutate!(attrsFor(pod, {}));
    expect((pod.spec as Json).tolerations).toEqual([
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });
});

describe('PodSecurity admission', () => {
  const ns = (labels: Json): KubeObject => ({ metadata: { name: 'ns', labels } });

  test('restricted refuses a plain pod with the library\'s reasons, in its order', async () => {
    const pod = newPod({ containers: [app()] });
    expect(await refusal(podSecurityAdmission.validate!(attrsFor(pod, { namespaces: [ns({ 'pod-security.kubernetes.io/enforce': 'restricted' })] })))).toEqual({
      code: 403,
      message: 'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
  });

  test('a compliant pod passes; privileged namespaces allow anything', async () => {
    const good = newPod({
      containers: [app({ securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } })],
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    });
    await podSecurityAdmission.validate!(attrsFor(good, { namespaces: [ns({ 'pod-security.kubernetes.io/enforce': 'restricted' })] }));
    await podSecurityAdmission.validate!(attrsFor(newPod({ containers: [app({ securityContext: { privileged: true } })] }), { namespaces: [ns({})] }));
  });

  test('baseline checks and versions', () => {
    const spec = { hostNetwork: true, containers: [app({ securityContext: { privileged: true }, ports: [{ containerPort: 80, hostPort: 80 }] })], volumes: [{ name: 'data', hostPath: { path: '/x' } }] };
    expect(forbiddenDetail(evaluatePod({ level: 'baseline', minor: 'latest' }, {}, spec))).toBe(
      'host namespaces (hostNetwork=true), hostPath volumes (volume "data"), hostPort (container "app" uses hostPort 80), privileged (container "app" must not set securityContext.privileged=true)',
    );
    expect(policyFor({ 'pod-security.kubernetes.io/enforce': 'bogus', 'pod-security.kubernetes.io/enforce-version': 'v1.24' }, 'enforce')).toEqual({ level: 'restricted', minor: 24 });
    // restricted:v1.21 predates the capabilities check.
    const reasons = evaluatePod({ level: 'restricted', minor: 21 }, {}, { containers: [app()] }).map((r) => r.reason);
    expect(reasons).toEqual(['allowPrivilegeEscalation != false', 'runAsNonRoot != true', 'seccompProfile']);
  });
});
