/**
 * GET /metrics in Prometheus' text format: the server's own families, kubernetes_build_info
 * and the process and Node runtime metrics prom-client collects (process_*, nodejs_*); GET
 * /metrics/slis: the health check SLIs (slis.ts). Who may read them is the authorizer's to
 * say (`get` on the non-resource URLs: kube's system:monitoring role, or system:masters).
 */
import { Router, type Response } from 'express';
import { AggregatorRegistry, collectDefaultMetrics, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { writeError } from '../respond.js';
import { serverVersion } from '../discovery.js';
import { Gauge } from './series.js';
import { SliMetrics } from './slis.js';
import { registerProcessCollectors, replacedDefaults } from './process.js';

export const metricsPath = '/metrics';
export const slisPath = '/metrics/slis';

let processRegistry: Registry | undefined;

/** kube's version collector: a constant 1 labelled with what /version reports. */
function buildInfo(): Gauge {
  const g = new Gauge('kubernetes_build_info', "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    ['major', 'minor', 'git_version', 'git_commit', 'git_tree_state', 'build_date', 'go_version', 'compiler', 'platform']);
  const v = serverVersion;
  g.child(v.major, v.minor, v.gitVersion, v.gitCommit, v.gitTreeState, v.buildDate, v.goVersion, v.compiler, v.platform).set(1);
  return g.aggregate('first');
}

/** One per process: the process and runtime figures are the same for every server in it. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    buildInfo().register(processRegistry);
    collectDefaultMetrics({ register: processRegistry });
    // CPU and start time as client_golang's process collector: from the process's start (process.ts).
    for (const name of replacedDefaults) processRegistry.removeSingleMetric(name);
    registerProcessCollectors(processRegistry);
  }
  return processRegistry;
}

/** Health check SLIs, per process as kube's (its legacy registry); the health endpoints record into it. */
export const sliMetrics = new SliMetrics();
let sliRegistry: Registry | undefined;

function slis(): Registry {
  if (!sliRegistry) {
    sliRegistry = new Registry();
    sliMetrics.register(sliRegistry);
  }
  return sliRegistry;
}

/** One process's metrics as prom-client's JSON: what a `--workers` primary sums over its workers. */
export type MetricsJSON = Array<MetricObjectWithValues<MetricValue<string>>>;

/** This process's /metrics families (the server's and the process's), as JSON. */
export async function localMetricsJSON(registry: Registry): Promise<MetricsJSON> {
  return [...(await registry.getMetricsAsJSON()), ...(await processMetrics().getMetricsAsJSON())] as MetricsJSON;
}

/**
 * Several processes' metrics as one endpoint's text: each family combined as its aggregator
 * says (counters and histograms summed; the state every worker sees alike, such as object
 * counts, taken once).
 */
export function aggregateMetrics(perProcess: MetricsJSON[]): Promise<string> {
  return AggregatorRegistry.aggregate(perProcess).metrics();
}

/**
 * `gather`: where /metrics comes from when this process is one of several behind the port
 * (`--workers`): the primary's sum over every worker, rather than whichever one a scrape reached.
 */
export function metricsRoute(registry: Registry, opts: { gather?: () => Promise<string> } = {}): Router {
  const router = Router();
  const send = (res: Response, texts: Promise<string[]>) => texts.then(
    (parts) => {
      res.writeHead(200, { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE });
      res.end(parts.join(''));
    },
    (err) => writeError(res, err),
  );
  router.get(metricsPath, (_req, res) => {
    void send(res, opts.gather ? opts.gather().then((text) => [text]) : Promise.all([registry.metrics(), processMetrics().metrics()]));
  });
  router.get(slisPath, (_req, res) => {
    void send(res, Promise.all([slis().metrics()]));
  });
  return router;
}
