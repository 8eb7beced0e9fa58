/**
 * OpenAPI v2 → v3.0 conversion of the extracted path items and schemas, producing
 * what kube-apiserver serves under /openapi/v3: inline parameters with `schema`,
 * `requestBody` per consumed media type, responses with `content` per produced type,
 * and `$ref`s into `#/components/schemas/`.
 */
import type { Schemas } from './definitions.js';
import type { JsonObject } from './types.js';

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch']);

const statusText: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '401': 'Unauthorized',
};

/** Deep copy with `#/definitions/X` rewritten to `#/components/schemas/X`. */
export function convertSchema(value: unknown): any {
  if (Array.isArray(value)) return value.map(convertSchema);
  if (value && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/definitions\//, '#/components/schemas/') : convertSchema(v);
    }
    return out;
  }
  return value;
}

function resolveParameter(schemas: Schemas, p: JsonObject): JsonObject {
  if (typeof p.$ref === 'string' && p.$ref.startsWith('#/parameters/')) {
    const found = schemas.data.parameters[p.$ref.slice('#/parameters/'.length)];
    if (!found) throw new Error(`unknown parameter ${p.$ref}`);
    return found;
  }
  return p;
}

const schemaKeys = ['type', 'format', 'items', 'default', 'enum', 'uniqueItems', 'minimum', 'maximum', 'pattern'];

function convertParameter(p: JsonObject): JsonObject {
  const out: JsonObject = { name: p.name, in: p.in };
  if (p.description !== undefined) out.description = p.description;
  if (p.required !== undefined) out.required = p.required;
  const schema: JsonObject = {};
  for (const k of schemaKeys) if (p[k] !== undefined) schema[k] = convertSchema(p[k]);
  out.schema = schema;
  return out;
}

function convertResponse(code: string, r: JsonObject, produces: string[]): JsonObject {
  const out: JsonObject = { description: r.description ?? statusText[code] ?? '' };
  if (r.schema) {
    out.content = Object.fromEntries(produces.map((ct) => [ct, { schema: convertSchema(r.schema) }]));
  }
  return out;
}

function convertOperation(schemas: Schemas, op: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (op.tags) out.tags = op.tags;
  if (op.description !== undefined) out.description = op.description;
  if (op.operationId !== undefined) out.operationId = op.operationId;
  const params = ((op.parameters ?? []) as JsonObject[]).map((p) => resolveParameter(schemas, p));
  const rest = params.filter((p) => p.in !== 'body').map(convertParameter);
  if (rest.length > 0) out.parameters = rest;
  const body = params.find((p) => p.in === 'body');
  if (body) {
    const consumes: string[] = op.consumes ?? ['application/json'];
    out.requestBody = {
      content: Object.fromEntries(consumes.map((ct) => [ct, { schema: convertSchema(body.schema) }])),
      required: body.required === true,
    };
  }
  const produces: string[] = op.produces ?? ['application/json'];
  out.responses = Object.fromEntries(
    Object.entries((op.responses ?? {}) as Record<string, JsonObject>).map(([code, r]) => [code, convertResponse(code, r, produces)]),
  );
  for (const [k, v] of Object.entries(op)) {
    if (k.startsWith('x-') || k === 'deprecated') out[k] = convertSchema(v);
  }
  return out;
}

export function convertPathItem(schemas: Schemas, item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(item)) {
    if (methods.has(k)) out[k] = convertOperation(schemas, v);
    else if (k === 'parameters') out.parameters = (v as JsonObject[]).map((p) => resolveParameter(schemas, p)).map(convertParameter);
    else out[k] = convertSchema(v);
  }
  return out;
}

/** v2 securityDefinitions → v3 securitySchemes (kube uses only an apiKey bearer scheme). */
export function convertSecuritySchemes(defs: Record<string, JsonObject>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [name, d] of Object.entries(defs)) {
    out[name] = d.type === 'basic' ? { type: 'http', scheme: 'basic' } : { ...d };
  }
  return out;
}
