import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResourceTable, loadedSchemas, loadSchemas, patchMetaFor as lookupFor, type GroupVersionKind } from './index.js';

const core = (kind: string) => ({ group: '', version: 'v1', kind });
const reference = JSON.parse(
  readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../../shared/reference/openapi-v2.json'), 'utf8'),
);

describe('loadSchemas', () => {
  test('loads once: later calls and loadedSchemas give the same instance', async () => {
    const a = await loadSchemas();
    expect(await loadSchemas()).toBe(a);
    expect(loadedSchemas()).toBe(a);
  });
});

const schemas = await loadSchemas();
/** The reference lost properties named `description` with the descriptions; extract.mjs restores them. */
const withoutDescription = (d: any) => {
  if (!d?.properties?.description) return d;
  const { description: _, ...properties } = d.properties;
  return { ...d, properties };
};
const patchMetaFor = (gvk: GroupVersionKind) => lookupFor(schemas, gvk);

describe('extracted definitions', () => {
  test('hold every kind served by default, with its list, exactly as the reference document has them', () => {
    const served = builtinResourceTable.filter((r) => r.servedByDefault);
    expect(served.length).toBeGreaterThan(50);
    for (const r of served) {
      for (const kind of r.listKind ? [r.kind, r.listKind] : [r.kind]) {
        const name = schemas.definitionNameFor({ group: r.group, version: r.version, kind });
        expect(name).toBeDefined();
        expect(withoutDescription(schemas.getDefinition(name!))).toEqual(reference.definitions[name!]);
      }
    }
    expect(schemas.definitionNames()).toEqual(expect.arrayContaining(['io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent']));
  });

  test('leave out the group versions kube-apiserver does not serve by default', () => {
    const names = schemas.definitionNames();
    expect(names.some((n) => /\.v\d+(alpha|beta)\d+\./.test(n))).toBe(false);
    expect(Object.keys(schemas.data.paths).some((p) => /\/v\d+(alpha|beta)\d+\//.test(p))).toBe(false);
    expect(Object.keys(schemas.data.paths).some((p) => p.includes('mutatingadmissionpolicies'))).toBe(false);
    expect(schemas.data.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']).toEqual(reference.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
  });

  test('properties named description are restored where the Go types have them', () => {
    expect(schemas.definitionFor({ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' })!.properties.description).toEqual({ type: 'string' });
  });

  test('every $ref resolves inside the extracted data', () => {
    const refs = JSON.stringify(schemas.data).match(/"#\/definitions\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(1000);
    for (const r of new Set(refs)) expect(schemas.resolveRef(JSON.parse(r))).toBeDefined();
  });

  test('definitionFor finds kinds by GroupVersionKind', () => {
    expect(schemas.definitionNameFor(core('ConfigMap'))).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(schemas.definitionNameFor(core('NamespaceList'))).toBe('io.k8s.api.core.v1.NamespaceList');
    expect(schemas.definitionNameFor(core('Status'))).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.Status');
    expect(schemas.definitionNameFor({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe('io.k8s.api.apps.v1.Deployment');
    const cm = schemas.definitionFor(core('ConfigMap'))!;
    expect(Object.keys(cm.properties).sort()).toEqual(['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    expect(cm.properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(Object.keys(schemas.definitionFor(core('Secret'))!.properties)).toContain('stringData');
    expect(schemas.definitionFor({ group: 'apps', version: 'v1', kind: 'ConfigMap' })).toBeUndefined();
  });
});

describe('patchMetaFor', () => {
  test('reads the markers of ObjectMeta through the $ref', () => {
    const cm = patchMetaFor(core('ConfigMap'));
    expect(cm(['metadata', 'finalizers'])).toEqual({ patchStrategy: 'merge' });
    expect(cm(['metadata', 'ownerReferences'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'uid' });
    expect(cm(['metadata', 'labels'])).toEqual({});
    expect(cm(['metadata', 'managedFields'])).toEqual({});
    expect(cm(['data'])).toEqual({});
    expect(cm(['data', 'some-key'])).toEqual({});
    expect(cm(['nope', 'deeper'])).toEqual({});
    expect(patchMetaFor(core('Secret'))(['metadata', 'ownerReferences'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'uid' });
  });

  test('descends list items and nested definitions, a Deployment’s pod template included', () => {
    const ns = patchMetaFor(core('Namespace'));
    expect(ns(['status', 'conditions'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'type' });
    expect(ns(['status', 'conditions', 'type'])).toEqual({});
    expect(ns(['spec', 'finalizers'])).toEqual({});
    expect(ns(['metadata', 'ownerReferences', 'uid'])).toEqual({});
    const list = patchMetaFor(core('ConfigMapList'));
    expect(list(['items', 'metadata', 'finalizers'])).toEqual({ patchStrategy: 'merge' });
    const deploy = patchMetaFor({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(deploy(['spec', 'template', 'spec', 'containers'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'name' });
    expect(deploy(['spec', 'template', 'spec', 'containers', 'env'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'name' });
  });

  test('kinds without a schema get a lookup that knows nothing', () => {
    expect(patchMetaFor({ group: 'example.com', version: 'v1', kind: 'Widget' })(['metadata', 'finalizers'])).toEqual({});
  });

  test('answers are copies', () => {
    const cm = patchMetaFor(core('ConfigMap'));
    const m = cm(['metadata', 'finalizers']);
    m.patchStrategy = 'replace';
    expect(cm(['metadata', 'finalizers'])).toEqual({ patchStrategy: 'merge' });
  });
});
