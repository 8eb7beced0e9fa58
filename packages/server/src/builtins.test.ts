/**
 * Every built-in resource is served: discovery (legacy and aggregated) lists exactly what
 * kube's OpenAPI document has at the versions kube-apiserver serves by default, and objects
 * of kinds from different groups go through create, get, list, update, delete.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from './testing/client.js';

const reference = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'reference', 'openapi-v2.json');

/** GA resources whose feature gate is off by default in 1.35 (MutatingAdmissionPolicy). */
const gatedOff = new Set(['admissionregistration.k8s.io/v1/mutatingadmissionpolicies', 'admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings']);

/** `<groupVersion> <resource>[/<subresource>]` for every resource path of the document served by default. */
function expectedFromReference(): Set<string> {
  const doc = JSON.parse(readFileSync(reference, 'utf8')) as { paths: Record<string, unknown> };
  const out = new Set<string>();
  for (const path of Object.keys(doc.paths)) {
    const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/(v\d+))\/(.+)$/.exec(path);
    if (!m) continue; // discovery paths, and alpha/beta versions (off by default)
    const gv = m[1] ?? `${m[2]}/${m[3]}`;
    let segs = m[4].split('/');
    if (segs[0] === 'watch') segs = segs.slice(1);
    if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
    if (gatedOff.has(`${gv}/${segs[0]}`)) continue;
    out.add(`${gv} ${segs[2] ? `${segs[0]}/${segs[2]}` : segs[0]}`);
  }
  return out;
}

const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describeBackends('built-in resources', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(async () => {
    await t.close();
  });

  test('legacy discovery lists exactly the resources and subresources of the reference document', async () => {
    const seen = new Set<string>();
    const core = await t.call('GET', '/api/v1');
    for (const r of core.body.resources) seen.add(`v1 ${r.name}`);
    const groups = (await t.call('GET', '/apis')).body.groups;
    for (const g of groups) {
      const one = await t.call('GET', `/apis/${g.name}`);
      expect(one.body).toEqual({ kind: 'APIGroup', apiVersion: 'v1', ...g });
      for (const v of g.versions) {
        const list = await t.call('GET', `/apis/${v.groupVersion}`);
        expect(list.body).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: v.groupVersion });
        for (const r of list.body.resources) seen.add(`${v.groupVersion} ${r.name}`);
      }
    }
    expect([...seen].sort()).toEqual([...expectedFromReference()].sort());
  });

  test('discovery fields: verbs, short names, categories, storage version hash, subresources, preferred versions', async () => {
    const core = (await t.call('GET', '/api/v1')).body.resources;
    const byName = (list: any[], name: string) => list.find((r) => r.name === name);
    expect(byName(core, 'pods')).toEqual({
      name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], storageVersionHash: 'xPOwRZ+Yhw8=',
    });
    expect(byName(core, 'pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName(core, 'pods/proxy').verbs).toEqual(['create', 'delete', 'get', 'patch', 'update']);
    expect(byName(core, 'pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName(core, 'componentstatuses')).toEqual({ name: 'componentstatuses', singularName: 'componentstatus', namespaced: false, kind: 'ComponentStatus', verbs: ['get', 'list'], shortNames: ['cs'] });
    expect(byName(core, 'bindings')).toEqual({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
    const apps = (await t.call('GET', '/apis/apps/v1')).body.resources;
    expect(byName(apps, 'deployments')).toMatchObject({ shortNames: ['deploy'], categories: ['all'], storageVersionHash: '8aSe+NMegvE=' });
    expect(byName(apps, 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    const autoscaling = (await t.call('GET', '/apis/autoscaling')).body;
    expect(autoscaling.preferredVersion).toEqual({ groupVersion: 'autoscaling/v2', version: 'v2' });
    expect(autoscaling.versions.map((v: any) => v.version)).toEqual(['v2', 'v1']);
    // Both versions of a resource share its storage, hence the hash of the storage version.
    const hpa1 = byName((await t.call('GET', '/apis/autoscaling/v1')).body.resources, 'horizontalpodautoscalers');
    const hpa2 = byName((await t.call('GET', '/apis/autoscaling/v2')).body.resources, 'horizontalpodautoscalers');
    expect(hpa1.storageVersionHash).toBe(hpa2.storageVersionHash);
    const reviews = (await t.call('GET', '/apis/authorization.k8s.io/v1')).body.resources;
    expect(byName(reviews, 'subjectaccessreviews')).toEqual({ name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] });
    expect((await t.call('GET', '/apis/apiextensions.k8s.io/v1')).body.resources[0]).toMatchObject({ name: 'customresourcedefinitions', shortNames: ['crd', 'crds'], categories: ['api-extensions'] });
  });

  test('aggregated discovery lists the same resources, with its media type', async () => {
    const seen = new Set<string>();
    for (const root of ['/api', '/apis']) {
      const r = await t.call('GET', root, { accept: aggregatedAccept });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(r.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      for (const g of r.body.items) {
        for (const v of g.versions) {
          expect(v.freshness).toBe('Current');
          const gv = g.metadata.name ? `${g.metadata.name}/${v.version}` : v.version;
          for (const res of v.resources) {
            seen.add(`${gv} ${res.resource}`);
            for (const s of res.subresources ?? []) seen.add(`${gv} ${res.resource}/${s.subresource}`);
          }
        }
      }
    }
    expect([...seen].sort()).toEqual([...expectedFromReference()].sort());
    const apps = (await t.call('GET', '/apis', { accept: aggregatedAccept })).body.items.find((g: any) => g.metadata.name === 'apps');
    const deployments = apps.versions[0].resources.find((r: any) => r.resource === 'deployments');
    expect(deployments).toMatchObject({
      responseKind: { group: '', version: '', kind: 'Deployment' }, scope: 'Namespaced', singularResource: 'deployment', shortNames: ['deploy'], categories: ['all'],
    });
    expect(deployments.subresources).toContainEqual({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] });
    const autoscaling = (await t.call('GET', '/apis', { accept: aggregatedAccept })).body.items.find((g: any) => g.metadata.name === 'autoscaling');
    expect(autoscaling.versions.map((v: any) => v.version)).toEqual(['v2', 'v1']);
    // Without the parameters, /apis is the legacy APIGroupList.
    expect((await t.call('GET', '/apis')).body.kind).toBe('APIGroupList');
  });

  const samples: Array<{ path: string; collection: string; body: Record<string, any>; update: (o: any) => void }> = [
    { path: '/apis/apps/v1/namespaces/default/deployments', collection: 'deployments.apps', body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, update: (o) => { o.spec.replicas = 2; } },
    { path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', collection: 'clusterroles.rbac.authorization.k8s.io', body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, update: (o) => { o.rules[0].verbs.push('list'); } },
    { path: '/apis/scheduling.k8s.io/v1/priorityclasses', collection: 'priorityclasses.scheduling.k8s.io', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 }, update: (o) => { o.description = 'important'; } },
    { path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses', collection: 'ingresses.networking.k8s.io', body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { rules: [{ host: 'example.com' }] } }, update: (o) => { o.spec.rules[0].host = 'example.org'; } },
    { path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', collection: 'horizontalpodautoscalers.autoscaling', body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 } }, update: (o) => { o.spec.maxReplicas = 5; } },
  ];

  test.each(samples)('CRUD round trip: $collection', async ({ path, collection, body, update }) => {
    const name = body.metadata.name;
    const created = await t.call('POST', path, { body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: body.apiVersion, kind: body.kind, metadata: { name } });
    const got = await t.call('GET', `${path}/${encodeURIComponent(name)}`);
    expect(got.body).toEqual(created.body);
    const list = await t.call('GET', path);
    expect(list.body).toMatchObject({ kind: `${body.kind}List`, apiVersion: body.apiVersion });
    expect(list.body.items.map((i: any) => i.metadata.name)).toContain(name);
    const changed = structuredClone(got.body);
    update(changed);
    const put = await t.call('PUT', `${path}/${encodeURIComponent(name)}`, { body: changed });
    expect(put.status).toBe(200);
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(got.body.metadata.resourceVersion));
    const table = await t.call('GET', `${path}/${encodeURIComponent(name)}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    // The kind's own printer columns, Name first, one cell per column.
    expect(table.body.columnDefinitions[0].name).toBe('Name');
    expect(table.body.rows[0].cells[0]).toBe(name);
    expect(table.body.rows[0].cells).toHaveLength(table.body.columnDefinitions.length);
    const del = await t.call('DELETE', `${path}/${encodeURIComponent(name)}`);
    expect(del.status).toBe(200);
    const gone = await t.call('GET', `${path}/${encodeURIComponent(name)}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe(`${collection} "${name}" not found`);
  });

  test('keys follow kube layout; each lands in its own cache', async () => {
    await t.call('POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } } });
    await t.call('POST', '/api/v1/namespaces/default/endpoints', { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's' } } });
    await t.call('POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', { body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } } });
    await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } } });
    const keys = (await ctx.storage.range(ctx.prefix + 'registry/', { prefix: true })).items.map((kv) => kv.key.slice(ctx.prefix.length));
    expect(keys).toEqual(expect.arrayContaining([
      'registry/services/specs/default/s', 'registry/services/endpoints/default/s', 'registry/ingress/default/i',
      'registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com',
    ]));
    // Lists served from the watch caches hold exactly their own kind.
    for (const [path, name] of [['/api/v1/services', 's'], ['/api/v1/endpoints', 's'], ['/apis/networking.k8s.io/v1/ingresses', 'i']]) {
      const items = (await t.call('GET', `${path}?resourceVersion=0`)).body.items;
      // The kubernetes Service (made at start) is a Service too; nothing of another kind is.
      expect(items.map((i: any) => i.metadata.name).filter((n: string) => n !== 'kubernetes')).toEqual([name]);
    }
  });

  test('verbs a subresource lacks, subresources a kind lacks and reads of computed resources get 404 or 405, never a crash', async () => {
    await t.call('POST', '/apis/apps/v1/namespaces/default/deployments', { body: samples[0].body });
    expect((await t.call('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale')).status).toBe(200);
    const post = await t.call('POST', '/apis/apps/v1/namespaces/default/deployments/web/scale', { body: {} });
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
    const unknown = await t.call('GET', '/apis/apps/v1/namespaces/default/deployments/web/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
    const sar = await t.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} } });
    expect(sar.status).toBe(422);
    expect((await t.call('GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews')).status).toBe(405);
    const cs = await t.call('GET', '/api/v1/componentstatuses');
    expect(cs.body).toMatchObject({ kind: 'ComponentStatusList', items: [] });
    expect((await t.call('POST', '/api/v1/componentstatuses', { body: { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } } })).status).toBe(405);
  });
});
