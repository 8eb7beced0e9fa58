/** /openapi/v2 and /openapi/v3: kubectl reads them to validate fields and compute strategic patches. */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { buildOpenAPIV2, buildOpenAPIV3, loadSchemas, openAPIV3Hash, openAPIV3Index } from '@windlass/schemas';
import type { APIRegistry } from './registry/index.js';

/** The schema data is loaded at the first request that needs it, not at start. */
const route = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};

/** http.ServeContent's If-None-Match test: `*`, or any listed tag equal to ours under weak comparison. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === etag);
}

/**
 * A group version's document as kube-openapi's handler3 answers it: its hash as the ETag,
 * 304 to a matching If-None-Match; with `?hash=` the answer is immutable, or a 301 to the
 * current hash's URL when the asked one is stale (kubectl's cache keys on it).
 */
function writeGroupVersion(req: Request, res: Response, path: string, doc: string, hash: string): void {
  const etag = `"${hash}"`;
  res.setHeader('Vary', 'Accept');
  res.setHeader('Etag', etag);
  const asked = typeof req.query.hash === 'string' ? req.query.hash : '';
  if (asked !== '' && asked !== hash) {
    res.redirect(301, `${path}?hash=${hash}`);
    return;
  }
  if (asked !== '') {
    res.setHeader('Cache-Control', 'public, immutable');
    const expires = new Date();
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    res.setHeader('Expires', expires.toUTCString().replace(/GMT$/, 'UTC'));
  } else {
    res.setHeader('Cache-Control', 'no-cache, private');
  }
  if (noneMatch(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').end(doc);
}

export function openAPIRoutes(registry: APIRegistry): Router {
  const router = Router();
  const served = () => registry.all().map((d) => ({ group: d.group, version: d.version, kind: d.kind, resource: d.resource, namespaced: d.namespaced }));
  // Documents are built once: the served kinds do not change while the process runs.
  let v2: string | undefined;
  let v3Index: string | undefined;
  const v3 = new Map<string, { doc: string; hash: string }>();
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
    let built = v3.get(gv);
    if (!built) {
      const doc = buildOpenAPIV3(schemas, gv, served());
      built = { doc: JSON.stringify(doc), hash: openAPIV3Hash(doc) };
      v3.set(gv, built);
    }
    writeGroupVersion(req, res, req.path, built.doc, built.hash);
  }));
  return router;
}
