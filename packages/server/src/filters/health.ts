/**
 * /healthz, /livez and /readyz as kube's healthz package serves them: named checks, `ok` when
 * all pass (`?verbose` lists them, `?exclude=name` skips one), every check listed with
 * `[-]name failed: reason withheld` and 500 when one fails, and /readyz/<name> for one check.
 * kube registers them on its path mux, which matches exact paths and any method: HEAD and
 * POST /healthz answer as GET does, /healthz/ is not found.
 */
import type { NextFunction, Request, Response } from 'express';
import { sliMetrics } from '../metrics/endpoint.js';
import { nonResourceVerb } from '../metrics/nonresource.js';
import { dryRunIndex } from '../metrics/requestmetrics.js';
import type { HealthcheckType } from '../metrics/slis.js';

export interface HealthCheck {
  name: string;
  /** Throws (or rejects) when unhealthy; the message goes to the individual check's page only. */
  check(): void | Promise<void>;
}

function queryList(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

/**
 * The handler's body with the headers kube's chain gives it: `Cache-Control` from
 * WithCacheControl, `nosniff` only where the handler (or http.Error) sets it, and the
 * Content-Length Go computes for a short body (a HEAD's too: Go counts what it discards).
 */
function plain(res: Response, code: number, body: string, nosniff = true): void {
  const headers: Record<string, string | number> = { 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(body), 'Content-Type': 'text/plain; charset=utf-8' };
  if (nosniff) headers['X-Content-Type-Options'] = 'nosniff';
  res.writeHead(code, headers);
  res.end(body);
}

/**
 * Records one answer of a root health endpoint (kube instruments /healthz, /livez and /readyz
 * with InstrumentHandlerFunc): `verb` and `dryRun` as MonitorRequest reports the request.
 */
export type HealthObserver = (path: string, verb: string, dryRun: number, code: number, seconds: number, bodyBytes: number) => void;

/**
 * MonitorRequest's labels for a request without resource: cleanVerb of the method (HEAD is
 * GET, `?watch` on a GET is WATCH, an apply-patch PATCH is APPLY, unknown methods "other") and
 * cleanDryRun of the query.
 */
function reported(req: Request): { verb: string; dryRun: number } {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const method = req.method.toUpperCase();
  return {
    verb: nonResourceVerb(method, query, req.headers['content-type']),
    dryRun: dryRunIndex(url, query),
  };
}

async function failed(c: HealthCheck): Promise<Error | null> {
  try {
    await c.check();
    return null;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

async function serveRoot(name: HealthcheckType, checks: HealthCheck[], req: Request, res: Response, observe?: HealthObserver): Promise<void> {
  const start = performance.now();
  const answer = (code: number, body: string) => {
    plain(res, code, body);
    const { verb, dryRun } = reported(req);
    observe?.(`/${name}`, verb, dryRun, code, (performance.now() - start) / 1000, Buffer.byteLength(body));
  };
  const excluded = new Set(queryList(req.query.exclude));
  let out = '';
  let anyFailed = false;
  const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? null : failed(c))));
  checks.forEach((c, i) => {
    if (excluded.delete(c.name)) {
      out += `[+]${c.name} excluded: ok\n`;
      return;
    }
    const err = results[i];
    // kube's healthz handler records each check it ran (kubernetes_healthcheck{,s_total} on /metrics/slis).
    sliMetrics.observe(c.name, name, !err);
    if (err) {
      anyFailed = true;
      out += `[-]${c.name} failed: reason withheld\n`;
    } else out += `[+]${c.name} ok\n`;
  });
  if (excluded.size > 0) out += `warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((e) => `"${e}"`).join(',')}\n`;
  // kube is always verbose on failure (http.Error adds the newline).
  if (anyFailed) return answer(500, `${out}${name} check failed\n`);
  if (req.query.verbose === undefined) return answer(200, 'ok');
  answer(200, `${out}${name} check passed\n`);
}

/** Handlers for each endpoint name (healthz, livez, readyz) and its checks, in kube's order, at their exact paths. */
export function healthRoutes(endpoints: Partial<Record<HealthcheckType, () => HealthCheck[]>>, observe?: HealthObserver): (req: Request, res: Response, next: NextFunction) => void {
  const names = new Set(Object.keys(endpoints) as HealthcheckType[]);
  return (req, res, next) => {
    const path = req.path;
    const slash = path.indexOf('/', 1);
    const name = (slash < 0 ? path.slice(1) : path.slice(1, slash)) as HealthcheckType;
    if (!names.has(name)) return next();
    const checks = endpoints[name]!();
    if (slash < 0) return void serveRoot(name, checks, req, res, observe);
    // /readyz/<check>: kube's adaptCheckToHandler, `ok` through Go's sniffer, errors through http.Error.
    const c = checks.find((x) => x.name === path.slice(slash + 1));
    if (!c) return next();
    void failed(c).then((err) => (err ? plain(res, 500, `internal server error: ${err.message}\n`) : plain(res, 200, 'ok', false)));
  };
}

/** Rejects after `ms` with kube's message for a check that did not answer. */
export function withTimeout(ms: number, run: () => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`context deadline exceeded (${ms} ms)`)), ms);
    run().then(() => { clearTimeout(timer); resolve(); }, (err) => { clearTimeout(timer); reject(err); });
  });
}
