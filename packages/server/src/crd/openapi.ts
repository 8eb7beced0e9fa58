/**
 * OpenAPI of custom resources, as kube's CRD OpenAPI builder (pkg/controller/openapi/builder)
 * publishes them: a definition per kind and list named `<reversed group>.<version>.<Kind>` with
 * the version's schema, ObjectMeta/ListMeta by reference and x-kubernetes-group-version-kind,
 * and the paths of every verb (PATCH without strategic merge patch, with fieldValidation,
 * which kubectl looks for) for /openapi/v2 and each group version's /openapi/v3 document.
 */
import type { JsonObject } from '@windlass/schemas';
import type { ResourceDefinition } from '../registry/types.js';
import { customResourcePatchTypes } from './resources.js';

type SchemaOf = (def: ResourceDefinition) => JsonObject | undefined;

export function definitionName(def: { group: string; version: string; kind: string }): string {
  return `${def.group.split('.').reverse().join('.')}.${def.version}.${def.kind}`;
}

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** kube's v2 conversion drops what Swagger 2.0 cannot say (nullable, anyOf/oneOf/allOf/not). */
function toV2(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV2);
  if (s === null || typeof s !== 'object') return s;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s as JsonObject)) {
    if (k === 'nullable' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'not') continue;
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as JsonObject).map(([p, ps]) => [p, toV2(ps)])) : k === 'default' || k === 'enum' || k === 'example' ? v : toV2(v);
  }
  if (out['x-kubernetes-int-or-string']) delete out.type;
  return out;
}

function kindSchema(def: ResourceDefinition, schema: JsonObject | undefined, ref: (name: string) => string, v2: boolean): JsonObject {
  const s: JsonObject = structuredClone(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const body = (v2 ? toV2(s) : s) as JsonObject;
  // kube's builder replaces whatever the CRD says of these with the standard fields.
  body.properties = {
    ...((body.properties as JsonObject | undefined) ?? {}),
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', type: 'string' },
    metadata: v2 ? { $ref: ref(`${meta}.ObjectMeta`), description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata" } : { allOf: [{ $ref: ref(`${meta}.ObjectMeta`) }], default: {}, description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata" },
  };
  body.type = 'object';
  body['x-kubernetes-group-version-kind'] = [{ group: def.group, kind: def.kind, version: def.version }];
  return body;
}

function listSchema(def: ResourceDefinition, ref: (name: string) => string): JsonObject {
  return {
    description: `${def.listKind} is a list of ${def.kind}`,
    properties: {
      apiVersion: { type: 'string' },
      items: { description: `List of ${def.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: ref(definitionName(def)) }, type: 'array' },
      kind: { type: 'string' },
      metadata: { $ref: ref(`${meta}.ListMeta`) },
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.listKind, version: def.version }],
  };
}

const queryParam = (name: string, type = 'string') => ({ name, in: 'query', type, uniqueItems: true, description: name });

/** The path items of one resource version, in Swagger 2.0 form. */
function pathsV2(def: ResourceDefinition): Record<string, JsonObject> {
  const base = `/apis/${def.group}/${def.version}${def.namespaced ? '/namespaces/{namespace}' : ''}/${def.resource}`;
  const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
  const kindRef = ref(definitionName(def));
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const op = (action: string, id: string, response: JsonObject, extra: JsonObject = {}) => ({
    consumes: ['*/*'], produces: ['application/json', 'application/yaml'], schemes: ['https'], tags: [`${def.group.replaceAll('.', '')}_${def.version}`],
    operationId: `${id}${def.kind}`, responses: { 200: { description: 'OK', schema: response }, 401: { description: 'Unauthorized' } },
    'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, ...extra,
  });
  const body = { name: 'body', in: 'body', required: true, schema: kindRef };
  const writeParams = [body, queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation')];
  const common = [...(def.namespaced ? [{ name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true, description: 'object name and auth scope, such as for teams and projects' }] : []), queryParam('pretty')];
  const patch = (id: string) => op('patch', id, kindRef, {
    consumes: customResourcePatchTypes,
    parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${meta}.Patch` } }, queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation'), queryParam('force', 'boolean')],
  });
  const paths: Record<string, JsonObject> = {
    [base]: {
      get: op('list', 'list', ref(definitionName({ ...def, kind: def.listKind })), { parameters: ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'].map((n) => queryParam(n)) }),
      post: op('post', 'create', kindRef, { parameters: writeParams }),
      delete: op('deletecollection', 'deleteCollection', { $ref: `#/definitions/${meta}.Status` }),
      parameters: common,
    },
    [`${base}/{name}`]: {
      get: op('get', 'read', kindRef),
      put: op('put', 'replace', kindRef, { parameters: writeParams }),
      patch: patch('patch'),
      delete: op('delete', 'delete', { $ref: `#/definitions/${meta}.Status` }),
      parameters: [{ name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true, description: `name of the ${def.kind}` }, ...common],
    },
  };
  for (const sub of def.subresources ?? []) {
    const subRef = sub.name === 'scale' ? ref('io.k8s.api.autoscaling.v1.Scale') : kindRef;
    const title = sub.name[0].toUpperCase() + sub.name.slice(1);
    paths[`${base}/{name}/${sub.name}`] = {
      get: op('get', `read${title}`, subRef),
      put: op('put', `replace${title}`, subRef, { parameters: [{ ...body, schema: subRef }, queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation')] }),
      patch: patch(`patch${title}`),
      parameters: [{ name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true, description: `name of the ${def.kind}` }, ...common],
    };
  }
  return paths;
}

/** The v2 schema of a custom resource version, for server-side apply's field manager. */
export function fieldManagerSchema(def: ResourceDefinition, schema: JsonObject | undefined): JsonObject {
  return kindSchema(def, schema, (name) => `#/definitions/${name}`, true);
}

/** Definitions and paths of the served custom resources, added to /openapi/v2. */
export function customOpenAPIV2(defs: ResourceDefinition[], schemaOf: SchemaOf): { definitions: Record<string, JsonObject>; paths: Record<string, JsonObject> } {
  const ref = (name: string) => `#/definitions/${name}`;
  const definitions: Record<string, JsonObject> = {};
  const paths: Record<string, JsonObject> = {};
  for (const def of defs) {
    definitions[definitionName(def)] = kindSchema(def, schemaOf(def), ref, true);
    definitions[definitionName({ ...def, kind: def.listKind })] = listSchema(def, ref);
    Object.assign(paths, pathsV2(def));
  }
  return { definitions, paths };
}

/** v2 path items as OpenAPI 3 operations: parameters with schemas, bodies as requestBody, responses with content. */
function pathItemV3(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  const param = (p: JsonObject) => {
    const { type, ...rest } = p;
    return { ...rest, schema: { type, uniqueItems: true } };
  };
  for (const [k, v] of Object.entries(item)) {
    if (k === 'parameters') {
      out.parameters = (v as JsonObject[]).map(param);
      continue;
    }
    const o = v as JsonObject;
    const { consumes, produces, schemes: _schemes, parameters, responses, ...rest } = o;
    void _schemes;
    const op: JsonObject = { ...rest };
    const params = (parameters ?? []) as JsonObject[];
    const bodyParam = params.find((p) => p.in === 'body');
    op.parameters = params.filter((p) => p.in !== 'body').map(param);
    if (bodyParam) op.requestBody = { content: Object.fromEntries((consumes as string[]).map((c) => [c, { schema: v3Ref(bodyParam.schema as JsonObject) }])), required: true };
    op.responses = Object.fromEntries(Object.entries(responses as JsonObject).map(([code, r]) => [code, (r as JsonObject).schema
      ? { description: (r as JsonObject).description, content: Object.fromEntries((produces as string[]).map((p) => [p, { schema: v3Ref((r as JsonObject).schema as JsonObject) }])) }
      : { description: (r as JsonObject).description }]));
    out[k] = op;
  }
  return out;
}

function v3Ref(s: JsonObject): JsonObject {
  return s.$ref ? { $ref: String(s.$ref).replace('#/definitions/', '#/components/schemas/') } : s;
}

/** The /openapi/v3 document of a custom resources' group version; `base` gives the apimachinery schemas it references. */
export function customOpenAPIV3(defs: ResourceDefinition[], schemaOf: SchemaOf, base: JsonObject): JsonObject {
  const ref = (name: string) => `#/components/schemas/${name}`;
  const schemas: Record<string, JsonObject> = {};
  const paths: Record<string, JsonObject> = {};
  for (const def of defs) {
    schemas[definitionName(def)] = kindSchema(def, schemaOf(def), ref, false);
    schemas[definitionName({ ...def, kind: def.listKind })] = listSchema(def, ref);
    for (const [p, item] of Object.entries(pathsV2(def))) paths[p] = pathItemV3(item);
  }
  const baseSchemas = ((base.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
  for (const [name, s] of Object.entries(baseSchemas)) if (name.startsWith('io.k8s.apimachinery.') || name === 'io.k8s.api.autoscaling.v1.Scale') schemas[name] ??= s;
  return { openapi: '3.0.0', info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }, paths, components: { schemas } };
}
