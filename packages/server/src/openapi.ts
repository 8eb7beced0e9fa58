/** /openapi/v2 and /openapi/v3: kubectl reads them to validate fields and compute strategic patches. */
import { Router } from 'express';
import { buildOpenAPIV2, buildOpenAPIV3, openAPIV3Index } from '@windlass/schemas';
import type { APIRegistry } from './registry/index.js';

export function openAPIRoutes(registry: APIRegistry): Router {
  const router = Router();
  const served = () => registry.all().map((d) => ({ group: d.group, version: d.version, kind: d.kind, resource: d.resource, namespaced: d.namespaced }));
  // Documents are built once: the served kinds do not change while the process runs.
  let v2: string | undefined;
  let v3Index: string | undefined;
  const v3 = new Map<string, string>();
  router.get('/openapi/v2', (_req, res) => {
    v2 ??= JSON.stringify(buildOpenAPIV2(served()));
    res.type('application/json').end(v2);
  });
  router.get('/openapi/v3', (_req, res) => {
    v3Index ??= JSON.stringify(openAPIV3Index(registry.groupVersions(), served()));
    res.type('application/json').end(v3Index);
  });
  router.get(/^\/openapi\/v3\/(apis?)\/(.+)$/, (req, res) => {
    const m = /^\/openapi\/v3\/(apis?)\/(.+)$/.exec(req.path)!;
    const gv = m[2];
    const defs = registry.resourcesIn(gv);
    if (!defs || (m[1] === 'api') !== !gv.includes('/')) {
      res.status(404).type('text/plain').end('404 page not found\n');
      return;
    }
    let doc = v3.get(gv);
    if (!doc) {
      doc = JSON.stringify(buildOpenAPIV3(gv, served()));
      v3.set(gv, doc);
    }
    res.type('application/json').end(doc);
  });
  return router;
}
