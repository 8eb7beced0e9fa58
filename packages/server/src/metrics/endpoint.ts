/**
 * GET /metrics in Prometheus' text format: the server's own families and the process and
 * Node runtime metrics prom-client collects (process_*, nodejs_*). Until RBAC exists, only
 * members of system:masters may read it (kube: `get` on the non-resource URL /metrics).
 */
import { Router, type Request } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { failure } from '@windlass/machinery';
import { writeError } from '../respond.js';

export const metricsPath = '/metrics';
const adminGroup = 'system:masters';

let processRegistry: Registry | undefined;

/** One per process: the process and runtime figures are the same for every server in it. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function metricsRoute(registry: Registry, opts: { authenticating: boolean }): Router {
  const router = Router();
  router.get(metricsPath, (req, res) => {
    const user = (req as Request & { user?: { name: string; groups: string[] } }).user;
    if (opts.authenticating && !user?.groups.includes(adminGroup)) {
      const who = user?.name ?? 'system:anonymous';
      return writeError(res, failure(403, 'Forbidden', `forbidden: User ${JSON.stringify(who)} cannot get path "${metricsPath}"`, {}));
    }
    Promise.all([registry.metrics(), processMetrics().metrics()]).then(
      ([own, proc]) => {
        res.writeHead(200, { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE });
        res.end(own + proc);
      },
      (err) => writeError(res, err),
    );
  });
  return router;
}
