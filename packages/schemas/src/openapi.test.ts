import { buildOpenAPIV2 as v2, buildOpenAPIV3 as v3, loadSchemas, openAPIV3Hash, openAPIV3Index as v3Index, type JsonObject, type ServedResource } from './index.js';

const schemas = await loadSchemas();
const buildOpenAPIV2 = (s: readonly ServedResource[]) => v2(schemas, s);
const buildOpenAPIV3 = (gv: string, s: readonly ServedResource[]) => v3(schemas, gv, s);
const openAPIV3Index = (gvs: string[], s?: readonly ServedResource[]) => v3Index(schemas, gvs, s);

const served: ServedResource[] = [
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
];
const gvk = (kind: string) => ({ group: '', version: 'v1', kind });

/** client-go/kubectl's reading of the v3 document, ported from their Go code. */
function hasGVK(ext: JsonObject | undefined, want: { group: string; version: string; kind: string }): boolean {
  const g = ext?.['x-kubernetes-group-version-kind'];
  return !!g && !Array.isArray(g) && g.group === want.group && g.version === want.version && g.kind === want.kind;
}

// k8s.io/cli-runtime resource.supportsQueryParamV3
function supportsQueryParamV3(doc: JsonObject, want: { group: string; version: string; kind: string }, param: string): boolean | 'path not found' {
  for (const item of Object.values(doc.paths as Record<string, JsonObject>)) {
    const op = item.patch;
    if (!op || !hasGVK(op, want)) continue;
    return (op.parameters ?? []).some((p: JsonObject) => p.name === param && p.in === 'query');
  }
  return 'path not found';
}

// k8s.io/kubectl apply Patcher.gvkSupportsPatchOpenAPIV3
function gvkSupportsStrategicPatch(doc: JsonObject, want: { group: string; version: string; kind: string }): boolean {
  for (const item of Object.values(doc.paths as Record<string, JsonObject>)) {
    const op = item.patch;
    if (op && hasGVK(op, want)) return !!op.requestBody?.content?.['application/strategic-merge-patch+json'];
  }
  return false;
}

// strategicpatch.PatchMetaFromOpenAPIV3, as kubectl computes client-side apply patches.
function v3PatchMeta(doc: JsonObject, kind: string, path: string[]): { strategy?: string; key?: string } {
  const schemas = doc.components.schemas as Record<string, JsonObject>;
  const resolve = (s: JsonObject): JsonObject => {
    const r = s.allOf?.[0] ?? s;
    return r.$ref ? schemas[r.$ref.replace('#/components/schemas/', '')] : r;
  };
  let schema = Object.values(schemas).find((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((g: JsonObject) => g.kind === kind && g.version === 'v1'))!;
  let meta = {};
  for (const seg of path) {
    const prop = schema.properties?.[seg];
    if (!prop) throw new Error(`unable to find api field "${seg}"`);
    meta = { strategy: prop['x-kubernetes-patch-strategy'], key: prop['x-kubernetes-patch-merge-key'] };
    schema = resolve(prop.items ?? prop);
  }
  return meta;
}

describe('buildOpenAPIV3', () => {
  const doc = buildOpenAPIV3('v1', served);
  const cmItem = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];

  test('is an OpenAPI 3.0 document of the api/v1 paths of the served resources', () => {
    expect(doc.openapi).toBe('3.0.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'unversioned' });
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/api/v1/');
    expect(paths).toContain('/api/v1/namespaces/{name}/status');
    expect(paths).toContain('/api/v1/watch/namespaces/{namespace}/secrets/{name}');
    expect(paths.every((p) => p.startsWith('/api/v1/'))).toBe(true);
    expect(paths).not.toContain('/api/');
    expect(paths.some((p) => p.includes('/pods'))).toBe(false);
  });

  test('the ConfigMap PATCH operation carries the GVK and the fieldValidation, dryRun, fieldManager and force parameters', () => {
    expect(cmItem.patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'ConfigMap', version: 'v1' });
    expect(cmItem.patch['x-kubernetes-action']).toBe('patch');
    const params = cmItem.patch.parameters.map((p: JsonObject) => `${p.in}:${p.name}`);
    expect(params).toEqual(['query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'query:force']);
    expect(cmItem.patch.parameters[2]).toEqual({ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } });
    expect(Object.keys(cmItem.patch.requestBody.content).sort()).toEqual([
      'application/apply-patch+cbor', 'application/apply-patch+yaml', 'application/json-patch+json',
      'application/merge-patch+json', 'application/strategic-merge-patch+json',
    ]);
    expect(cmItem.patch.requestBody.content['application/strategic-merge-patch+json'].schema).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    });
    expect(cmItem.patch.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' });
    expect(cmItem.patch.responses['401']).toEqual({ description: 'Unauthorized' });
  });

  test('create and update carry fieldValidation too; path-level parameters are inlined', () => {
    const list = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
    expect(list.post.parameters.map((p: JsonObject) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(list.post.requestBody).toEqual({ content: { '*/*': { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' } } }, required: true });
    expect(cmItem.put.parameters.map((p: JsonObject) => p.name)).toContain('fieldValidation');
    expect(cmItem.parameters).toEqual([
      { name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } },
      { name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } },
      { name: 'pretty', in: 'query', schema: { type: 'string', uniqueItems: true } },
    ]);
  });

  test('components hold every referenced schema, with v3 $refs only', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('#/definitions/');
    expect(text).not.toContain('#/parameters/');
    for (const r of text.match(/"#\/components\/schemas\/[^"]+"/g) ?? []) {
      expect(doc.components.schemas[JSON.parse(r).slice('#/components/schemas/'.length)]).toBeDefined();
    }
    expect(doc.components.schemas['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    expect(doc.components.securitySchemes).toEqual({ BearerToken: { in: 'header', name: 'authorization', type: 'apiKey' } });
  });

  test('satisfies kubectl: fieldValidation is supported, strategic merge patch is offered, merge markers are found', () => {
    for (const kind of ['ConfigMap', 'Secret', 'Namespace']) {
      expect(supportsQueryParamV3(doc, gvk(kind), 'fieldValidation')).toBe(true);
      expect(gvkSupportsStrategicPatch(doc, gvk(kind))).toBe(true);
    }
    expect(supportsQueryParamV3(doc, gvk('Pod'), 'fieldValidation')).toBe('path not found');
    expect(v3PatchMeta(doc, 'ConfigMap', ['metadata', 'finalizers'])).toEqual({ strategy: 'merge', key: undefined });
    expect(v3PatchMeta(doc, 'Secret', ['metadata', 'ownerReferences'])).toEqual({ strategy: 'merge', key: 'uid' });
    expect(v3PatchMeta(doc, 'Namespace', ['status', 'conditions'])).toEqual({ strategy: 'merge', key: 'type' });
  });

  test('only served resources appear', () => {
    const onlyCM = buildOpenAPIV3('v1', served.filter((s) => s.kind === 'ConfigMap'));
    expect(Object.keys(onlyCM.paths).some((p) => p.includes('secrets'))).toBe(false);
    expect(onlyCM.components.schemas['io.k8s.api.core.v1.Secret']).toBeUndefined();
    expect(onlyCM.paths['/api/v1/namespaces/{name}']).toBeUndefined();
    expect(onlyCM.paths['/api/v1/namespaces/{namespace}/configmaps']).toBeDefined();
  });

  test('other v3 keys: the api and version documents', () => {
    expect(Object.keys(buildOpenAPIV3('api', served).paths)).toEqual(['/api/']);
    expect(Object.keys(buildOpenAPIV3('version', served).paths)).toEqual(['/version/']);
    expect(buildOpenAPIV3('apps/v1', served).paths).toEqual({});
  });
});

describe('openAPIV3Index', () => {
  test('points each group version at its document with a content hash', () => {
    const index = openAPIV3Index(['v1'], served);
    const url: string = index.paths['api/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    expect(url.split('hash=')[1]).toBe(openAPIV3Hash(buildOpenAPIV3('v1', served)));
    expect(openAPIV3Index(['v1'], served)).toEqual(index);
    expect(openAPIV3Index(['v1'], served.slice(1)).paths['api/v1'].serverRelativeURL).not.toBe(url);
  });

  test('maps group versions to kube’s keys', () => {
    expect(Object.keys(openAPIV3Index(['apps/v1', 'v1', 'api', 'version']).paths)).toEqual(['api', 'api/v1', 'apis/apps/v1', 'version']);
    expect(openAPIV3Index(['v1']).paths['api/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  });
});

describe('buildOpenAPIV2', () => {
  const doc = buildOpenAPIV2(served);

  test('is a swagger 2.0 document of the served paths with their parameters and definitions', () => {
    expect(doc.swagger).toBe('2.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/', '/api/v1/', '/apis/', '/version/', '/api/v1/namespaces/{namespace}/configmaps/{name}']));
    expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.parameters).toContainEqual({
      in: 'query', name: 'fieldValidation', type: 'string', uniqueItems: true,
    });
    const text = JSON.stringify(doc);
    for (const r of text.match(/"#\/definitions\/[^"]+"/g) ?? []) expect(doc.definitions[JSON.parse(r).slice(14)]).toBeDefined();
    for (const r of text.match(/"#\/parameters\/[^"]+"/g) ?? []) expect(doc.parameters[JSON.parse(r).slice(13)]).toBeDefined();
    expect(doc.definitions['io.k8s.api.core.v1.NamespaceList']).toBeDefined();
    expect(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.Status']).toBeDefined();
    expect(doc.securityDefinitions).toEqual({ BearerToken: { in: 'header', name: 'authorization', type: 'apiKey' } });
  });

  test('leaves out resources that are not served', () => {
    const onlyNs = buildOpenAPIV2(served.filter((s) => s.kind === 'Namespace'));
    expect(Object.keys(onlyNs.paths).some((p) => p.includes('configmaps'))).toBe(false);
    expect(onlyNs.definitions['io.k8s.api.core.v1.ConfigMap']).toBeUndefined();
    expect(onlyNs.definitions['io.k8s.api.core.v1.Namespace']).toBeDefined();
  });
});
