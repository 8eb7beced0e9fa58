/**
 * /openapi/v2 and /openapi/v3 describe every served resource: their paths are exactly the
 * reference document's paths at the versions kube-apiserver serves by default, with the
 * reference's definitions, and each group version's v3 document carries kubectl's PATCH
 * metadata for every kind in it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, until, type TestServer } from './testing/client.js';

const reference = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'reference', 'openapi-v2.json'), 'utf8'),
) as { paths: Record<string, Record<string, any>>; definitions: Record<string, unknown> };

/** GA resources whose feature gate is off by default in 1.35 (MutatingAdmissionPolicy). */
const gatedOff = /^\/apis\/admissionregistration\.k8s\.io\/v1\/(watch\/)?mutatingadmissionpolic/;

/** Reference paths of served group versions: GA versions, discovery paths, not gated off. */
const servedReferencePaths = Object.keys(reference.paths).filter((p) => {
  const m = /^\/apis?\/(?:([^/]+)\/)?(v\d+\w*)\//.exec(p);
  if (m && !/^v\d+$/.test(m[2])) return false;
  if (/^\/apis\/[^/]+\/$/.test(p)) {
    // a group document is served when some GA version of the group is
    const g = p.slice('/apis/'.length, -1);
    return Object.keys(reference.paths).some((q) => new RegExp(`^/apis/${g.replace(/\./g, '\\.')}/v\\d+/`).test(q));
  }
  return !gatedOff.test(p) && p.startsWith('/ap');
});

const v3KeyOf = (p: string) => {
  const segs = p.split('/').filter(Boolean);
  return segs[0] === 'api' ? segs.slice(0, 2).join('/') : segs.slice(0, 3).join('/');
};

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
});
afterAll(async () => {
  await t.close();
});

test('/openapi/v2 has every served path of the reference document, and their definitions as the reference has them', async () => {
  const doc = (await t.call('GET', '/openapi/v2')).body;
  const apiPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/ap'));
  expect(apiPaths.sort()).toEqual([...servedReferencePaths].sort());
  expect(apiPaths.length).toBeGreaterThan(350);
  for (const p of apiPaths) expect(doc.paths[p]).toEqual(reference.paths[p]);
  for (const [name, def] of Object.entries(doc.definitions) as [string, any][]) {
    // The reference lost properties named `description` with the descriptions; extract.mjs restores them.
    const { description: _, ...properties } = def.properties ?? {};
    expect(def.properties ? { ...def, properties } : def).toEqual(reference.definitions[name]);
  }
  expect(doc.definitions['io.k8s.api.apps.v1.Deployment']).toBeDefined();
  expect(doc.definitions['io.k8s.api.networking.v1.Ingress']).toBeDefined();
});

test('/openapi/v3 indexes every served group version; each document has its reference paths and PATCH metadata per kind', async () => {
  const index = (await t.call('GET', '/openapi/v3')).body;
  const groupVersions = new Set(servedReferencePaths.filter((p) => /\/v\d+\/$/.test(p)).map(v3KeyOf));
  expect(groupVersions.size).toBeGreaterThan(20);
  for (const key of groupVersions) {
    const url: string = index.paths[key]?.serverRelativeURL;
    expect(url).toMatch(new RegExp(`^/openapi/v3/${key}\\?hash=[0-9A-F]{128}$`));
    const doc = (await t.call('GET', url)).body;
    const expected = servedReferencePaths.filter((p) => v3KeyOf(p) === key && !/^\/apis\/[^/]+\/$/.test(p));
    expect(Object.keys(doc.paths).sort()).toEqual(expected.sort());
    for (const [p, item] of Object.entries(reference.paths)) {
      if (!expected.includes(p) || item.patch?.['x-kubernetes-action'] !== 'patch') continue; // not proxy
      // What kubectl apply looks for: the kind's PATCH with strategic merge and fieldValidation.
      const patch = doc.paths[p].patch;
      expect(patch['x-kubernetes-group-version-kind']).toEqual(item.patch['x-kubernetes-group-version-kind']);
      expect(patch.parameters.map((q: any) => q.name)).toContain('fieldValidation');
      expect(Object.keys(patch.requestBody.content)).toContain('application/merge-patch+json');
    }
  }
});

test('/openapi/v3\'s Last-Modified is when the index last changed, a later second for each change, so a revalidated copy is 304 exactly when current', async () => {
  const first = await t.call('GET', '/openapi/v3');
  const l1 = first.headers.get('last-modified')!;
  expect(l1).toBeDefined();
  // Unchanged a second later: the same Last-Modified, and the copy is current.
  await new Promise((r) => setTimeout(r, 1100));
  expect((await t.call('GET', '/openapi/v3')).headers.get('last-modified')).toBe(l1);
  expect((await t.call('GET', '/openapi/v3', { headers: { 'if-modified-since': l1 } })).status).toBe(304);
  // A served group version added: a later Last-Modified, and the old copy is stale.
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.index.example.com' },
    spec: { group: 'index.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
  };
  expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
  const changed = await until(async () => {
    const res = await t.call('GET', '/openapi/v3');
    return res.body.paths['apis/index.example.com/v1'] ? res : undefined;
  });
  const l2 = changed.headers.get('last-modified')!;
  expect(Date.parse(l2)).toBeGreaterThan(Date.parse(l1));
  expect((await t.call('GET', '/openapi/v3', { headers: { 'if-modified-since': l1 } })).status).toBe(200);
  expect((await t.call('GET', '/openapi/v3', { headers: { 'if-modified-since': l2 } })).status).toBe(304);
});
