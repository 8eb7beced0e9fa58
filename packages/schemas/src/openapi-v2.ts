/** The `/openapi/v2` document for the served resources, from the extracted Kubernetes data. */
import { collectRefs, type Schemas } from './definitions.js';
import { servedPaths } from './paths.js';
import type { JsonObject, ServedResource } from './types.js';

const refName = (ref: string) => ref.replace(/^#\/(definitions|parameters)\//, '');

export function buildOpenAPIV2(schemas: Schemas, served: readonly ServedResource[]): JsonObject {
  const extracted = schemas.data;
  const paths: Record<string, JsonObject> = {};
  for (const p of servedPaths(schemas, served)) paths[p] = extracted.paths[p];

  const refs = collectRefs(paths);
  const parameters: Record<string, JsonObject> = {};
  for (const ref of refs) {
    if (ref.startsWith('#/parameters/')) parameters[refName(ref)] = extracted.parameters[refName(ref)];
  }
  const roots = new Set<string>();
  for (const ref of [...refs, ...collectRefs(parameters)]) {
    if (ref.startsWith('#/definitions/')) roots.add(refName(ref));
  }
  for (const r of served) {
    for (const kind of [r.kind, `${r.kind}List`]) {
      const name = schemas.definitionNameFor({ group: r.group, version: r.version, kind });
      if (name) roots.add(name);
    }
  }
  // The API machinery's own types (Status, DeleteOptions, WatchEvent …) are always described.
  for (const name of Object.keys(extracted.definitions)) {
    if (name.startsWith('io.k8s.apimachinery.')) roots.add(name);
  }
  const definitions: Record<string, JsonObject> = {};
  for (const name of schemas.definitionClosure(roots)) definitions[name] = extracted.definitions[name];

  return {
    definitions,
    info: extracted.info,
    parameters,
    paths,
    security: extracted.security,
    securityDefinitions: extracted.securityDefinitions,
    swagger: extracted.swagger,
  };
}
