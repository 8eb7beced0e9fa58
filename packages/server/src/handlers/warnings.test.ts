/**
 * Warning headers reach a real HTTP client as kube-apiserver sends them: strategies'
 * WarningsOnCreate/WarningsOnUpdate and PodSecurity's warn level, on creates, on updates, and on
 * writes that admission refuses after the strategy warned.
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer, type Reply } from '../testing/client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'enforced', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } } });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'warned', labels: { 'pod-security.kubernetes.io/warn': 'restricted' } } } });
});
afterAll(async () => {
  await t.close();
});

/** The messages of `Warning: 299 - "<message>"` headers (fetch joins repeated headers with ", "). */
function warnings(r: Reply): string[] {
  const raw = r.headers.get('warning') ?? '';
  return [...raw.matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string);
}

const dupEnv = [{ name: 'A', value: '1' }, { name: 'A', value: '2' }];
const deployment = (name: string, env: unknown[], labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', env }] } },
  },
});
const hides = 'spec.template.spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply';

describe('strategy warnings', () => {
  test('a create warns about the template, with its path', async () => {
    const r = await t.call('POST', '/apis/apps/v1/namespaces/w/deployments', { body: deployment('d', dupEnv) });
    expect(r.status).toBe(201);
    expect(warnings(r)).toEqual([hides]);
  });

  test('an update warns again only when it moved the generation', async () => {
    const current = (await t.call('GET', '/apis/apps/v1/namespaces/w/deployments/d')).body;
    const relabelled = await t.call('PUT', '/apis/apps/v1/namespaces/w/deployments/d', { body: { ...current, metadata: { ...current.metadata, labels: { tier: 'web' } } } });
    expect(relabelled.status).toBe(200);
    expect(relabelled.headers.get('warning')).toBeNull();

    const changed = structuredClone(relabelled.body);
    changed.spec.template.spec.containers[0].image = 'nginx:2';
    const r = await t.call('PUT', '/apis/apps/v1/namespaces/w/deployments/d', { body: changed });
    expect(r.status).toBe(200);
    expect(r.body.metadata.generation).toBe(2);
    expect(warnings(r)).toEqual([hides]);
  });

  test('a pod create names the pod paths and the hostname warning', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/w/pods?dryRun=All', {
      body: { metadata: { name: 'p.1' }, spec: { containers: [{ name: 'c', image: 'nginx', env: dupEnv }], nodeSelector: { 'beta.kubernetes.io/os': 'linux' } } },
    });
    expect(r.status).toBe(201);
    expect(warnings(r)).toEqual([
      "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
    ]);
  });

  test('a write admission refuses after validation still carries the strategy\'s warnings', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/enforced/pods', {
      body: { metadata: { name: 'priv' }, spec: { containers: [{ name: 'c', image: 'nginx', env: dupEnv, securityContext: { privileged: true } }] } },
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
    expect(warnings(r)).toEqual(['spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply']);
  });

  test('an invalid object gets no strategy warnings (kube warns only once validation passed)', async () => {
    const body = deployment('bad', dupEnv);
    (body.spec as Record<string, unknown>).replicas = -1;
    const r = await t.call('POST', '/apis/apps/v1/namespaces/w/deployments', { body });
    expect(r.status).toBe(422);
    expect(r.headers.get('warning')).toBeNull();
  });
});

describe('PodSecurity warn level', () => {
  const restrictedDetail = 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

  test('pods and workload templates are admitted with a warning', async () => {
    const pod = await t.call('POST', '/api/v1/namespaces/warned/pods?dryRun=All', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    expect(pod.status).toBe(201);
    expect(warnings(pod)).toEqual([`would violate PodSecurity "restricted:latest": ${restrictedDetail}`]);

    const job = await t.call('POST', '/apis/batch/v1/namespaces/warned/cronjobs?dryRun=All', {
      body: { metadata: { name: 'cj' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] } } } } } },
    });
    expect(job.status).toBe(201);
    expect(warnings(job)).toEqual([`would violate PodSecurity "restricted:latest": ${restrictedDetail}`]);
  });

  test('an enforce level stricter than warn also warns workloads, at the enforce level', async () => {
    const r = await t.call('POST', '/apis/apps/v1/namespaces/enforced/deployments?dryRun=All', {
      body: { ...deployment('d', []), spec: { ...deployment('d', []).spec, template: { metadata: { labels: { app: 'd' } }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    expect(r.status).toBe(201);
    expect(warnings(r)).toEqual(['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']);
  });

  test('a namespace moving to a stricter enforce level warns about its existing pods', async () => {
    await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'tighten' } } });
    for (const name of ['b', 'a', 'c']) {
      const r = await t.call('POST', '/api/v1/namespaces/tighten/pods', { body: { metadata: { name }, spec: { hostPID: name !== 'c', containers: [{ name: 'c', image: 'nginx' }] } } });
      expect(r.status).toBe(201);
    }
    const ns = (await t.call('GET', '/api/v1/namespaces/tighten')).body;
    ns.metadata.labels = { ...ns.metadata.labels, 'pod-security.kubernetes.io/enforce': 'baseline' };
    const r = await t.call('PUT', '/api/v1/namespaces/tighten', { body: ns });
    expect(r.status).toBe(200);
    expect(warnings(r)).toEqual([
      'existing pods in namespace "tighten" violate the new PodSecurity enforce level "baseline:latest"',
      'a (and 1 other pod): host namespaces',
    ]);
    // The same level again is not re-checked.
    const again = await t.call('PUT', '/api/v1/namespaces/tighten', { body: r.body });
    expect(again.headers.get('warning')).toBeNull();
  });
});

describe('deprecated kinds', () => {
  const endpointsWarning = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';

  test('every request to v1 Endpoints carries kube\'s deprecation warning, errors included', async () => {
    const created = await t.call('POST', '/api/v1/namespaces/w/endpoints', { body: { metadata: { name: 'e' } } });
    expect(created.status).toBe(201);
    expect(warnings(created)).toEqual([endpointsWarning]);
    expect(warnings(await t.call('GET', '/api/v1/namespaces/w/endpoints'))).toEqual([endpointsWarning]);
    const missing = await t.call('GET', '/api/v1/namespaces/w/endpoints/nope');
    expect(missing.status).toBe(404);
    expect(warnings(missing)).toEqual([endpointsWarning]);
    expect(warnings(await t.call('GET', '/api/v1/componentstatuses'))).toEqual(['v1 ComponentStatus is deprecated in v1.19+']);
    // EndpointSlices, the replacement, are not deprecated.
    expect((await t.call('GET', '/apis/discovery.k8s.io/v1/namespaces/w/endpointslices')).headers.get('warning')).toBeNull();
  });
});

describe('duplicate owner references', () => {
  const advice = 'API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ';

  test('are dropped with kube\'s warning on create, update and patch; same UID with other fields is kept', async () => {
    // A real owner: the garbage collector deletes objects whose owners do not exist.
    const labels = { app: 'rs' };
    const rs = await t.call('POST', '/apis/apps/v1/namespaces/w/replicasets', { body: { metadata: { name: 'rs' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } } });
    expect(rs.status).toBe(201);
    const uid: string = rs.body.metadata.uid;
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true };
    const other = { ...owner, name: 'renamed', controller: false };
    const created = await t.call('POST', '/api/v1/namespaces/w/configmaps', { body: { metadata: { name: 'owned', ownerReferences: [owner, owner, other] } } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.ownerReferences).toEqual([owner, other]);
    expect(warnings(created)).toEqual([`.metadata.ownerReferences contains duplicate entries; ${advice}${uid}`]);

    const updated = await t.call('PUT', '/api/v1/namespaces/w/configmaps/owned', { body: { ...created.body, metadata: { ...created.body.metadata, ownerReferences: [owner, owner, owner] } } });
    expect(updated.body.metadata.ownerReferences).toEqual([owner]);
    expect(warnings(updated)).toEqual([`.metadata.ownerReferences contains duplicate entries; ${advice}${uid}, ${uid}`]);

    const patched = await t.call('PATCH', '/api/v1/namespaces/w/configmaps/owned', { body: { metadata: { ownerReferences: [owner, owner] } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.metadata.ownerReferences).toEqual([owner]);
    expect(warnings(patched)).toEqual([`.metadata.ownerReferences contains duplicate entries after mutating admission happens; ${advice}${uid}`]);
    expect((await t.call('PATCH', '/api/v1/namespaces/w/configmaps/owned', { body: { data: { a: '1' } }, contentType: 'application/merge-patch+json' })).headers.get('warning')).toBeNull();
  });
});
