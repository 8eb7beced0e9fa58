/**
 * The `/openapi/v3` index and the per-group-version documents kubectl reads: the
 * client-side apply patcher looks for a PATCH operation with the kind's
 * `x-kubernetes-group-version-kind` accepting strategic merge patch, and
 * QueryParamVerifierV3 for a `fieldValidation` query parameter on it.
 */
import { createHash } from 'node:crypto';
import { collectRefs, type Schemas } from './definitions.js';
import { convertPathItem, convertSchema, convertSecuritySchemes } from './openapi-v3-convert.js';
import { servedPaths, v3Key, v3KeyOfPath } from './paths.js';
import type { JsonObject, ServedResource } from './types.js';

/**
 * The OpenAPI 3.0 document of one group version (`v1`, `apps/v1`) or other v3 key
 * (`api`, `apis`, `version`), limited to the served resources.
 */
export function buildOpenAPIV3(schemas: Schemas, groupVersion: string, served: readonly ServedResource[]): JsonObject {
  const extracted = schemas.data;
  const key = v3Key(groupVersion);
  const paths: Record<string, JsonObject> = {};
  for (const p of servedPaths(schemas, served)) {
    if (v3KeyOfPath(p) === key) paths[p] = convertPathItem(schemas, extracted.paths[p]);
  }
  const roots = [...collectRefs(paths)]
    .filter((r) => r.startsWith('#/components/schemas/'))
    .map((r) => r.slice('#/components/schemas/'.length));
  const components: Record<string, JsonObject> = {};
  for (const name of schemas.definitionClosure(roots)) components[name] = convertSchema(extracted.definitions[name]);
  return {
    openapi: '3.0.0',
    info: extracted.info,
    paths,
    components: {
      schemas: components,
      securitySchemes: convertSecuritySchemes(extracted.securityDefinitions),
    },
    security: extracted.security,
  };
}

/** kube's ETag-style hash of a served document: SHA-512 of its JSON, upper-case hex. */
export function openAPIV3Hash(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

/**
 * The `/openapi/v3` index. Given `served`, each hash is that of the document
 * buildOpenAPIV3 returns, so clients' caches follow content changes; without it the
 * hash only follows the extracted schema data.
 */
export function openAPIV3Index(schemas: Schemas, groupVersions: readonly string[], served?: readonly ServedResource[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const gv of [...groupVersions].sort((a, b) => v3Key(a).localeCompare(v3Key(b)))) {
    const key = v3Key(gv);
    const hash = served
      ? openAPIV3Hash(buildOpenAPIV3(schemas, gv, served))
      : createHash('sha512').update(`${schemas.data.source.sha256}\n${key}`).digest('hex').toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}
