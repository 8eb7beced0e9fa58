/**
 * /healthz, /livez and /readyz as kube's healthz package serves them: named checks, `ok` when
 * all pass (`?verbose` lists them, `?exclude=name` skips one), every check listed with
 * `[-]name failed: reason withheld` and 500 when one fails, and /readyz/<name> for one check.
 */
import { Router, type Request, type Response } from 'express';
import { sliMetrics } from '../metrics/endpoint.js';
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

function plain(res: Response, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** Records one answer of a root health endpoint (kube instruments /healthz, /livez and /readyz). */
export type HealthObserver = (path: string, code: number, seconds: number, bodyBytes: number) => void;

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
    observe?.(`/${name}`, code, (performance.now() - start) / 1000, Buffer.byteLength(body));
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

/** Routes for each endpoint name (healthz, livez, readyz) and its checks, in kube's order. */
export function healthRoutes(endpoints: Partial<Record<HealthcheckType, () => HealthCheck[]>>, observe?: HealthObserver): Router {
  const router = Router();
  for (const [name, checks] of Object.entries(endpoints) as Array<[HealthcheckType, () => HealthCheck[]]>) {
    router.get(`/${name}`, (req, res) => void serveRoot(name, checks(), req, res, observe));
    router.get(`/${name}/*check`, (req, res, next) => {
      const checkName = (req.params as { check: string[] }).check.join('/');
      const c = checks().find((x) => x.name === checkName);
      if (!c) return next();
      void failed(c).then((err) => (err ? plain(res, 500, `internal server error: ${err.message}\n`) : plain(res, 200, 'ok')));
    });
  }
  return router;
}

/** Rejects after `ms` with kube's message for a check that did not answer. */
export function withTimeout(ms: number, run: () => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`context deadline exceeded (${ms} ms)`)), ms);
    run().then(() => { clearTimeout(timer); resolve(); }, (err) => { clearTimeout(timer); reject(err); });
  });
}
