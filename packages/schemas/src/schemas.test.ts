import { definitionFor, definitionNameFor, definitionNames, extractedOpenAPI, patchMetaFor, resolveRef } from './index.js';

const core = (kind: string) => ({ group: '', version: 'v1', kind });

describe('extracted definitions', () => {
  test('hold the served kinds, their lists and the meta types, and nothing unrelated', () => {
    const names = definitionNames();
    for (const n of [
      'io.k8s.api.core.v1.ConfigMap', 'io.k8s.api.core.v1.ConfigMapList', 'io.k8s.api.core.v1.Secret', 'io.k8s.api.core.v1.SecretList',
      'io.k8s.api.core.v1.Namespace', 'io.k8s.api.core.v1.NamespaceList', 'io.k8s.api.core.v1.NamespaceSpec',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails',
      'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause', 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
    ]) {
      expect(names).toContain(n);
    }
    expect(names).not.toContain('io.k8s.api.core.v1.Pod');
    expect(names).not.toContain('io.k8s.api.apps.v1.Deployment');
  });

  test('every $ref resolves inside the extracted data', () => {
    const refs = JSON.stringify(extractedOpenAPI).match(/"#\/definitions\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(20);
    for (const r of refs) expect(resolveRef(JSON.parse(r))).toBeDefined();
  });

  test('definitionFor finds kinds by GroupVersionKind', () => {
    expect(definitionNameFor(core('ConfigMap'))).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(definitionNameFor(core('NamespaceList'))).toBe('io.k8s.api.core.v1.NamespaceList');
    expect(definitionNameFor(core('Status'))).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.Status');
    const cm = definitionFor(core('ConfigMap'))!;
    expect(Object.keys(cm.properties).sort()).toEqual(['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    expect(cm.properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(Object.keys(definitionFor(core('Secret'))!.properties)).toContain('stringData');
    expect(definitionFor(core('Pod'))).toBeUndefined();
    expect(definitionFor({ group: 'apps', version: 'v1', kind: 'ConfigMap' })).toBeUndefined();
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

  test('descends list items and nested definitions', () => {
    const ns = patchMetaFor(core('Namespace'));
    expect(ns(['status', 'conditions'])).toEqual({ patchStrategy: 'merge', patchMergeKey: 'type' });
    expect(ns(['status', 'conditions', 'type'])).toEqual({});
    expect(ns(['spec', 'finalizers'])).toEqual({});
    expect(ns(['metadata', 'ownerReferences', 'uid'])).toEqual({});
    const list = patchMetaFor(core('ConfigMapList'));
    expect(list(['items', 'metadata', 'finalizers'])).toEqual({ patchStrategy: 'merge' });
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
