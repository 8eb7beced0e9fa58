/**
 * /openapi/v2 and /openapi/v3: kubectl reads them to validate fields and compute strategic
 * patches. Answered as kube-apiserver 1.35 answers them, for every method (kube serves them
 * from its path mux, which does not look at methods):
 *
 * - /openapi/v2: kube-openapi's handler behind kube-aggregator, wrapped in gziphandler: the
 *   first Accept clause it can serve, the document's SHA-512 as ETag, http.ServeContent's
 *   conditional requests and ranges, gzip from 1400 bytes, 406 when nothing acceptable.
 * - /openapi/v3: kube-aggregator's specProxier: the index through http.ServeContent with no
 *   ETag and no Content-Type (Go sniffs JSON as `text/plain; charset=utf-8`), modified "now";
 *   a key the index lacks is a bare 404; a known key goes to kube-openapi's handler3.
 *
 * /openapi/v2 also comes as gnostic's protobuf (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`,
 * and the `…spec.v2@v1.0+protobuf` kubectl asks for; openapiv2proto.ts), with its own ETag. The
 * v3 protobuf twin is not served: v3 clauses asking only for it get 406, as kubectl never does.
 */
import type { NextFunction, Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { buildOpenAPIV2, buildOpenAPIV3, loadSchemas, openAPIV3Hash, openAPIV3Index } from '@windlass/schemas';
import { openAPIV2Protobuf } from './openapiv2proto.js';
import type { APIRegistry } from './registry/index.js';
import type { ResourceDefinition } from './registry/types.js';
import { customOpenAPIV2, customOpenAPIV3 } from './crd/openapi.js';
import { schemaOfDefinition } from './crd/resources.js';

/** The custom resources served, and a counter that changes whenever they do. */
export interface CustomResourcesOpenAPI {
  readonly generation: number;
  definitions(): ResourceDefinition[];
}
import type { OpenAPIDocuments } from './aggregator/available.js';
import { gziphandlerAcceptsGzip, parseAccept, serveContent, writeEmpty, type AcceptClause } from './servecontent.js';

/** A document as kube-openapi caches it: its JSON bytes, their hash, and when they were built. */
interface Built {
  body: Buffer;
  etag: string;
  modified: Date;
}

function built(json: string, etag?: string): Built {
  return builtBytes(Buffer.from(json), etag);
}

function builtBytes(body: Buffer, etag?: string): Built {
  return { body, etag: etag ?? createHash('sha512').update(body).digest('hex').toUpperCase(), modified: new Date() };
}

/** kube's WithCacheControl filter: every answer not choosing its own caching is `no-cache, private`. */
function defaultCacheControl(res: Response): void {
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-cache, private');
}

function addVary(res: Response, value: string): void {
  const prev = res.getHeader('Vary');
  res.setHeader('Vary', prev === undefined ? value : [...(Array.isArray(prev) ? prev : [String(prev)]), value]);
}

/** The clauses in kube's order; an absent Accept is `*\/*`. */
function clauses(req: Request): AcceptClause[] {
  const accept = req.headers.accept;
  return parseAccept(accept === undefined || accept === '' ? '*/*' : accept);
}

/** Whether a clause accepts `application/json`. */
const acceptsJSON = (c: AcceptClause) => (c.type === 'application' || c.type === '*') && (c.subType === 'json' || c.subType === '*');

/** kube-openapi's v2 media types in its order: JSON, then protobuf under both subtypes, answered as the dotted one. */
const v2Forms: { subType: string; contentType: string; protobuf: boolean }[] = [
  { subType: 'json', contentType: 'application/json', protobuf: false },
  { subType: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', contentType: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', protobuf: true },
  { subType: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', contentType: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', protobuf: true },
];

/** Go's Request.URL.Query().Get: the first value, or "". */
function queryValue(req: Request, name: string): string {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  return q < 0 ? '' : (new URLSearchParams(url.slice(q + 1)).get(name) ?? '');
}

/**
 * kube-openapi's OpenAPIService for /openapi/v2: gziphandler adds `Vary: Accept-Encoding`
 * first, the handler `Vary: Accept`, then the first clause it can serve decides.
 */
function serveV2(req: Request, res: Response, doc: Built, protobufDoc: () => Built): void {
  res.setHeader('Vary', 'Accept-Encoding');
  const gzip = gziphandlerAcceptsGzip(req.headers['accept-encoding']);
  addVary(res, 'Accept');
  for (const c of clauses(req)) {
    if (c.type !== 'application' && c.type !== '*') continue;
    const form = v2Forms.find((f) => c.subType === f.subType || c.subType === '*');
    if (!form) continue;
    const served = form.protobuf ? protobufDoc() : doc;
    res.setHeader('Content-Type', form.contentType);
    res.setHeader('Etag', `"${served.etag}"`);
    serveContent(req, res, served.modified, served.body, { gzip });
    return;
  }
  writeEmpty(res, 406);
}

/**
 * handler3's HandleGroupVersion: its hash as the ETag; with `?hash=` the answer is immutable
 * for a year, or a 301 to the current hash's URL when the asked one is stale (kubectl's cache
 * keys on it). An Accept with no parsable clause gets an empty 200, as handler3 returns early.
 */
function serveGroupVersion(req: Request, res: Response, key: string, doc: Built): void {
  addVary(res, 'Accept');
  const cs = clauses(req);
  if (cs.length === 0) {
    res.setHeader('Content-Length', 0);
    res.writeHead(200);
    res.end();
    return;
  }
  if (!cs.some(acceptsJSON)) return writeEmpty(res, 406);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Etag', `"${doc.etag}"`);
  const hash = queryValue(req, 'hash');
  if (hash !== '') {
    if (hash !== doc.etag) {
      // http.Redirect writes no body when the handler already chose a Content-Type.
      res.setHeader('Location', `/openapi/v3/${key}?hash=${doc.etag}`);
      return writeEmpty(res, 301);
    }
    res.setHeader('Cache-Control', 'public, immutable');
    const expires = new Date();
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    // Go's time.RFC1123 in the server's zone, UTC here.
    res.setHeader('Expires', expires.toUTCString().replace(/GMT$/, 'UTC'));
  }
  serveContent(req, res, doc.modified, doc.body);
}

/** JSON with object keys in Go's map order (bytewise), as json.Marshal writes the index's map. */
function sortedIndex(index: { paths: Record<string, unknown> }): string {
  const keys = Object.keys(index.paths).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ paths: Object.fromEntries(keys.map((k) => [k, index.paths[k]])) });
}

/** Aggregated API servers' OpenAPI documents (aggregator/available.ts). */
export type RemoteOpenAPI = () => OpenAPIDocuments;

export function openAPIRoutes(registry: APIRegistry, custom?: CustomResourcesOpenAPI, remote?: RemoteOpenAPI): (req: Request, res: Response, next: NextFunction) => void {
  const isCustom = (d: ResourceDefinition) => custom?.definitions().includes(d) === true;
  const served = () => registry.all().filter((d) => !isCustom(d)).map((d) => ({ group: d.group, version: d.version, kind: d.kind, resource: d.resource, namespaced: d.namespaced }));
  // Documents are built at the first request that needs them, again once custom resources changed.
  let v2: { json: Built; doc: unknown; protobuf?: Built } | undefined;
  let v3Index: { json: string; keys: Set<string>; modified: Date } | undefined;
  /** The whole second the last index was built in. */
  let indexSecond = 0;
  const v3 = new Map<string, Built>();
  let generation = custom?.generation;
  let remoteGeneration = remote?.().generation;
  const customGV = (gv: string) => custom?.definitions().filter((d) => `${d.group}/${d.version}` === gv) ?? [];
  const customV3 = async (gv: string) => customOpenAPIV3(customGV(gv), (d) => schemaOfDefinition(d), buildOpenAPIV3(await loadSchemas(), 'autoscaling/v1', served()));
  const index = async () => {
    if (!v3Index) {
      const doc = openAPIV3Index(await loadSchemas(), registry.groupVersions(), served()) as { paths: Record<string, unknown> };
      for (const gv of new Set(custom?.definitions().map((d) => `${d.group}/${d.version}`) ?? [])) {
        doc.paths[`apis/${gv}`] = { serverRelativeURL: `/openapi/v3/apis/${gv}?hash=${openAPIV3Hash(await customV3(gv))}` };
      }
      // An aggregated server's group version, unless this server serves it too.
      for (const [key, spec] of remote?.().documents ?? []) {
        if (!doc.paths[key]) doc.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${openAPIV3Hash(spec as Parameters<typeof openAPIV3Hash>[0])}` };
      }
      // Its Last-Modified is when it was built, a later whole second than the one before (kube
      // sends "now"): a client revalidating a copy from the same second as a change (kubectl's
      // disk cache, If-Modified-Since) would be told 304 and keep the old index.
      indexSecond = Math.max(Math.floor(Date.now() / 1000), indexSecond + 1);
      v3Index = { json: sortedIndex(doc), keys: new Set(Object.keys(doc.paths)), modified: new Date(indexSecond * 1000) };
    }
    return v3Index;
  };
  const serve = async (req: Request, res: Response): Promise<boolean> => {
    const path = req.path;
    const remoteNow = remote?.().generation;
    if ((custom && custom.generation !== generation) || remoteNow !== remoteGeneration) {
      generation = custom?.generation;
      remoteGeneration = remoteNow;
      v2 = undefined;
      v3Index = undefined;
      v3.clear();
    }
    if (path === '/openapi/v2') {
      const schemas = await loadSchemas();
      if (!v2) {
        const doc = buildOpenAPIV2(schemas, served()) as { definitions: Record<string, unknown>; paths: Record<string, unknown> };
        if (custom) {
          const extra = customOpenAPIV2(custom.definitions(), (d) => schemaOfDefinition(d));
          Object.assign(doc.definitions, extra.definitions);
          Object.assign(doc.paths, extra.paths);
        }
        // Aggregated servers' documents: their paths and definitions, where this server has none of that name.
        for (const spec of remote?.().v2 ?? []) {
          const r = spec as { definitions?: Record<string, unknown>; paths?: Record<string, unknown> };
          for (const [k, v] of Object.entries(r.definitions ?? {})) if (!(k in doc.definitions)) doc.definitions[k] = v;
          for (const [k, v] of Object.entries(r.paths ?? {})) if (!(k in doc.paths)) doc.paths[k] = v;
        }
        v2 = { json: built(JSON.stringify(doc)), doc };
      }
      const current = v2;
      defaultCacheControl(res);
      serveV2(req, res, current.json, () => (current.protobuf ??= builtBytes(openAPIV2Protobuf(current.doc as Record<string, unknown>))));
      return true;
    }
    if (path === '/openapi/v3') {
      const { json, modified } = await index();
      defaultCacheControl(res);
      // specProxier's handleDiscovery: no ETag, no Content-Type (sniffed).
      serveContent(req, res, modified, Buffer.from(json));
      return true;
    }
    if (!path.startsWith('/openapi/v3/')) return false;
    defaultCacheControl(res);
    const key = path.slice('/openapi/v3/'.length);
    const { keys } = await index();
    const gv = key.replace(/^apis?\//, '');
    const remoteSpec = registry.resourcesIn(gv) ? undefined : remote?.().documents.get(key);
    if (!keys.has(key) || (!registry.resourcesIn(gv) && remoteSpec === undefined)) {
      // specProxier: no group version matches, `w.WriteHeader(404)` and nothing else.
      writeEmpty(res, 404);
      return true;
    }
    let doc = v3.get(key);
    if (!doc) {
      const spec = (remoteSpec ?? (customGV(gv).length > 0 ? await customV3(gv) : buildOpenAPIV3(await loadSchemas(), gv, served()))) as Parameters<typeof openAPIV3Hash>[0];
      doc = built(JSON.stringify(spec), openAPIV3Hash(spec));
      v3.set(key, doc);
    }
    serveGroupVersion(req, res, key, doc);
    return true;
  };
  return (req, res, next) => {
    if (!req.path.startsWith('/openapi/')) return next();
    serve(req, res).then((done) => { if (!done) next(); }, next);
  };
}
