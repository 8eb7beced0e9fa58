/**
 * The non-resource endpoints kube-apiserver 1.35 counts in apiserver_request_total and the
 * request histograms: the handlers it wraps in metrics.InstrumentHandlerFunc, with the labels
 * they were wrapped with.
 *
 * - aggregated discovery (k8s.io/apiserver endpoints/discovery/aggregated, NewResourceManager):
 *   the document of `/api` and `/apis`, subresource "api" / "apis" (no slash), component
 *   "apiserver". Only requests whose Accept asks for the aggregated document reach it: legacy
 *   discovery (/api, /apis, /api/v1, /apis/<group>[/<version>]) is go-restful routes and
 *   handlers no one instruments, so it is not counted. `/api/` is the same go-restful route
 *   as `/api`; `/apis/` is the aggregator's unwrapped legacy handler.
 * - OpenAPI v3 (kube-aggregator's openapiv3 specProxier.register): `/openapi/v3` as
 *   "openapi/v3" and everything under `/openapi/v3/` as "openapi/v3/", component empty,
 *   whatever the answer (304s and 404s included).
 * - /openapi/v2 is kube-openapi's handler, not instrumented: not counted.
 * - /healthz, /livez, /readyz: counted by the health routes themselves (filters/health.ts).
 *
 * As MonitorRequest, the reported verb is cleanVerb(CanonicalVerb(method, scope "")): HEAD is
 * GET, `?watch` makes WATCH, an apply patch APPLY, methods kube does not know "other"; dry_run
 * follows the query as for resources. Requests refused before the handler (401) never get here.
 */
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { aggregatedDiscoveryType } from '../aggregateddiscovery.js';
import { component, dryRunIndex, type RequestMetrics } from './requestmetrics.js';

interface Instrumented {
  subresource: string;
  component: string;
}

/** The route kube would have instrumented for this request, if any. */
export function instrumentedNonResource(method: string, path: string, accept: string | undefined): Instrumented | undefined {
  if (path === '/openapi/v3') return { subresource: 'openapi/v3', component: '' };
  if (path.startsWith('/openapi/v3/')) return { subresource: 'openapi/v3/', component: '' };
  // NonGoRestfulMux serves /apis to every method; the /api web service has only its GET route.
  if ((path === '/apis' || ((path === '/api' || path === '/api/') && method === 'GET')) && aggregatedDiscoveryType(accept) !== undefined) {
    return { subresource: path === '/apis' ? 'apis' : 'api', component };
  }
  return undefined;
}

/** HTTP methods kube's metrics know (validRequestMethods among what Node's parser accepts). */
const knownMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT']);

/** kube's cleanVerb for a request without RequestInfo's resource: the method, refined. */
export function nonResourceVerb(method: string, query: URLSearchParams, contentType: string | undefined): string {
  const verb = method === 'HEAD' ? 'GET' : method;
  // kube's getVerbIfWatch looks at the request's own method: a HEAD with ?watch stays GET.
  if (method === 'GET') {
    const watch = query.get('watch');
    if (watch !== null && watch.toLowerCase() !== '0' && watch.toLowerCase() !== 'false') return 'WATCH';
  }
  if (verb === 'PATCH' && contentType === 'application/apply-patch+yaml') return 'APPLY';
  return knownMethods.has(verb) ? verb : 'other';
}

/**
 * What a handler wrote as its body, as kube's ResponseWriterDelegator counts it: the bytes
 * passed to write and end (compressed, when the handler compressed them).
 */
function countBody(res: ServerResponse): () => number {
  let bytes = 0;
  const add = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    add(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') add(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  return () => bytes;
}

/** Middleware recording the requests kube instruments among those the app serves after it. */
export function nonResourceMetrics(requests: RequestMetrics): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const method = req.method.toUpperCase();
    const target = instrumentedNonResource(method, req.path, req.headers.accept);
    if (!target) return next();
    const start = performance.now();
    const url = req.originalUrl;
    const q = url.indexOf('?');
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const route = requests.nonResourceRoute(target.subresource, target.component, nonResourceVerb(method, query, req.headers['content-type']), dryRunIndex(url, query));
    const written = countBody(res);
    // A client gone before the answer was written is not counted (kube records when its handler returns).
    res.once('finish', () => route.observe(res.statusCode, (performance.now() - start) / 1000, written()));
    next();
  };
}
