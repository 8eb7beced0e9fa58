/** /openapi/v2 and /openapi/v3: kubectl reads them to validate fields and compute strategic patches. */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { buildOpenAPIV2, buildOpenAPIV3, loadSchemas, openAPIV3Index } from '@windlass/schemas';
import type { APIRegistry } from './registry/index.js';

/** The schema data is loaded at the first request that needs it, not at start. */
const route = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};

export function openAPIRoutes(registry: APIRegistry): Router {
  const router = Router();
  const served = () => registry.all().map((d) => ({ group: d.group, version: d.version, kind: d.kind, resource: d.resource, namespaced: d.namespaced }));
  // Documents are built once: the served kinds do not change while the process runs.
  let v2: string | undefined;
  let v3Index: string | undefined;
  const v3 = new Map<string, string>();
  router.get('/openapi/v2', route(async (_req, res) => {
    const schemas = await loadSchemas();
    v2 ??= JSON.stringify(buildOpenAPIV2(schemas, served()));
    res.type('application/json').end(v2);
  }));
  router.get('/openapi/v3', route(async (_req, res) => {
    const schemas = await loadSchemas();
    v3Index ??= JSON.stringify(openAPIV3Index(schemas, registry.groupVersions(), served()));
    res.type('application/json').end(v3Index);
  }));
  router.get(/^\/openapi\/v3\/(apis?)\/(.+)$/, route(async (req, res) => {
    const m = /^\/openapi\/v3\/(apis?)\/(.+)$/.exec(req.path)!;
    const gv = m[2];
    const defs = registry.resourcesIn(gv);
    if (!defs || (m[1] === 'api') !== !gv.includes('/')) {
      res.status(404).type('text/plain').end('404 page not found\n');
      return;
    }
    const schemas = await loadSchemas();
    let doc = v3.get(gv);
    if (!doc) {
      doc = JSON.stringify(buildOpenAPIV3(schemas, gv, served()));
      v3.set(gv, doc);
    }
    res.type('application/json').end(doc);
  }));
  return router;
}
