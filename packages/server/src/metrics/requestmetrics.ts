/**
 * kube-apiserver's request metrics (k8s.io/apiserver/pkg/endpoints/metrics), with its names,
 * labels and buckets. Label values come only from the registry's resource definitions and
 * from small fixed sets (verbs, scopes, dry-run values, status codes): never from a request's
 * path, names, namespaces or other user input, so cardinality is bounded by the API surface.
 *
 * The series of one (resource, verb, scope, dry run) are found with two numeric Map lookups
 * and kept together in a Route, so recording a request builds no strings.
 */
import type { ResourceDefinition } from '../registry/types.js';
import type { RequestInfo } from '../requestinfo.js';
import { Counter, Gauge, Histogram, exponentialBuckets, type CounterSeries, type GaugeSeries, type HistogramSeries } from './series.js';
import { RequestKindSeries, readVsWriteFamily } from './flowcontrol.js';
import type { Registry } from 'prom-client';

export const component = 'apiserver';

const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const sliBuckets = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** Verbs as kube reports them: the HTTP method, GET split into GET/LIST/WATCH, PATCH into PATCH/APPLY. */
const verbNames = ['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'other'] as const;
const verbIndex: Record<string, number> = { get: 0, list: 1, watch: 2, create: 3, update: 4, patch: 5, delete: 7, deletecollection: 7 };
const applyIndex = 6;
const otherIndex = 8;

const scopeNames = ['resource', 'namespace', 'cluster'] as const;
const dryRunNames = ['', 'All', 'invalid'] as const;

export function reportedVerbIndex(info: RequestInfo, contentType: string | undefined): number {
  const i = verbIndex[info.verb];
  if (i === undefined) return otherIndex;
  if (i === 5 && contentType !== undefined && contentType.startsWith('application/apply-patch')) return applyIndex;
  return i;
}

/** kube's installer: a named object or a create is "resource", a namespaced collection "namespace", the rest "cluster". */
export function scopeIndex(info: RequestInfo, def: ResourceDefinition | undefined): number {
  if (info.name !== '' || info.verb === 'create') return 0;
  if (def?.namespaced && info.namespace !== '') return 1;
  return 2;
}

/** kube's cleanDryRun: "" without dryRun, "All" for valid values, "invalid" otherwise. */
export function dryRunIndex(url: string, query: URLSearchParams): number {
  if (!url.includes('dryRun')) return 0;
  const values = query.getAll('dryRun');
  if (values.length === 0) return 0;
  return values.every((v) => v === 'All') ? 1 : 2;
}

export function isReadOnlyVerb(verb: string): boolean {
  return verb === 'get' || verb === 'list' || verb === 'watch';
}

/** The series one kind of request records into. */
export class Route {
  private readonly codes = new Map<number, CounterSeries>();
  private readonly terminationCodes = new Map<number, CounterSeries>();
  readonly duration: HistogramSeries;
  /** kube observes the SLI only for requests that are not dry runs. */
  readonly sli?: HistogramSeries;
  /** Only GET and LIST (kube: "we are only interested in response sizes of read requests"). */
  readonly sizes?: HistogramSeries;
  private longRunningSeries?: GaugeSeries;

  /**
   * `comp`: the component label (kube leaves it empty on some non-resource endpoints).
   * `sized`: whether response sizes are observed; kube decides by the verb its route was
   * installed with, which for non-resource endpoints is GET whatever the reported verb.
   */
  constructor(private readonly m: RequestMetrics, private readonly labels: readonly string[], private readonly comp: string = component, sized?: boolean) {
    const [verb, dryRun, group, version, resource, subresource, scope] = labels;
    this.duration = m.requestDuration.child(verb, dryRun, group, version, resource, subresource, scope, this.comp);
    // The families without a dry_run label share one series between a route and its dry-run twins.
    if (dryRun === '') this.sli = m.shared(m.requestSli, verb, group, version, resource, subresource, scope, this.comp);
    if (sized ?? (verb === 'GET' || verb === 'LIST')) this.sizes = m.shared(m.responseSizes, verb, group, version, resource, subresource, scope, this.comp);
  }

  count(code: number): CounterSeries {
    let s = this.codes.get(code);
    if (!s) {
      const [verb, dryRun, group, version, resource, subresource, scope] = this.labels;
      s = this.m.requestTotal.child(verb, dryRun, group, version, resource, subresource, scope, this.comp, String(code));
      this.codes.set(code, s);
    }
    return s;
  }

  /** A request that ran to its end. */
  observe(code: number, seconds: number, bodyBytes: number): void {
    this.count(code).inc();
    this.duration.observe(seconds);
    this.sli?.observe(seconds);
    if (this.sizes && bodyBytes >= 0) this.sizes.observe(bodyBytes);
  }

  /** A request the server ended in self-defense (429, 504): request_total and request_terminations_total. */
  terminated(code: number): void {
    this.count(code).inc();
    let s = this.terminationCodes.get(code);
    if (!s) {
      const [verb, , group, version, resource, subresource, scope] = this.labels;
      s = this.m.shared(this.m.requestTerminations, verb, group, version, resource, subresource, scope, this.comp, String(code));
      this.terminationCodes.set(code, s);
    }
    s.inc();
  }

  get longRunning(): GaugeSeries {
    if (!this.longRunningSeries) {
      const [verb, , group, version, resource, subresource, scope] = this.labels;
      this.longRunningSeries = this.m.shared(this.m.longRunning, verb, group, version, resource, subresource, scope, this.comp);
    }
    return this.longRunningSeries;
  }
}

const noResource = {} as ResourceDefinition;

export class RequestMetrics {
  readonly requestTotal = new Counter('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code']);
  readonly requestDuration = new Histogram('apiserver_request_duration_seconds', 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], latencyBuckets);
  readonly requestSli = new Histogram('apiserver_request_sli_duration_seconds', 'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.', ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], sliBuckets);
  readonly responseSizes = new Histogram('apiserver_response_sizes', 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.', ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], exponentialBuckets(1000, 10, 7));
  readonly longRunning = new Gauge('apiserver_longrunning_requests', 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.', ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component']);
  readonly requestTerminations = new Counter('apiserver_request_terminations_total', 'Number of requests which apiserver terminated in self-defense.', ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code']);
  readonly inflight = new Gauge('apiserver_current_inflight_requests', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', ['request_kind']);
  /** The max-in-flight filter's one flowcontrol family (flowcontrol.ts: why no other applies). */
  readonly readVsWrite = readVsWriteFamily();
  readonly readOnlyInflight = new RequestKindSeries('readOnly', this.inflight.child('readOnly'), this.readVsWrite);
  readonly mutatingInflight = new RequestKindSeries('mutating', this.inflight.child('mutating'), this.readVsWrite);
  readonly watchEvents = new Counter('apiserver_watch_events_total', 'Number of events sent in watch clients', ['group', 'version', 'kind']);
  readonly watchEventsSizes = new Histogram('apiserver_watch_events_sizes', 'Watch event size distribution in bytes', ['group', 'version', 'kind'], exponentialBuckets(1024, 2, 8));

  private readonly routes = new Map<ResourceDefinition, Map<number, Route>>();
  private readonly watchSeries = new Map<ResourceDefinition, WatchEventSeries>();

  register(registry: Registry): void {
    for (const f of [this.requestTotal, this.requestDuration, this.requestSli, this.responseSizes, this.longRunning, this.requestTerminations, this.inflight, this.readVsWrite, this.watchEvents, this.watchEventsSizes]) f.register(registry);
  }

  /**
   * def undefined: a request the server refused before knowing its resource (its labels stay
   * empty). `subresource` is labelled only when the kind has it (kube instruments the routes it
   * installs; the caller leaves others uncounted), so the label's values stay bounded.
   */
  route(def: ResourceDefinition | undefined, verb: number, scope: number, dryRun: number, subresource = ''): Route {
    const d = def ?? noResource;
    let byKey = this.routes.get(d);
    if (!byKey) {
      byKey = new Map();
      this.routes.set(d, byKey);
    }
    const sub = subresource && def?.subresources ? def.subresources.findIndex((r) => r.name === subresource) + 1 : 0;
    const key = ((sub * verbNames.length + verb) * 3 + scope) * 3 + dryRun;
    let r = byKey.get(key);
    if (!r) {
      r = new Route(this, [verbNames[verb], dryRunNames[dryRun], def?.group ?? '', def?.version ?? '', def?.resource ?? '', sub > 0 ? subresource : '', scopeNames[scope]]);
      byKey.set(key, r);
    }
    return r;
  }

  private readonly sharedSeries = new Map<object, Map<string, unknown>>();

  /**
   * The series of `family` with these label values, made once: routes differing only in labels
   * the family lacks (dry_run) record into the same series, never into duplicates of it.
   */
  shared<S>(family: { child(...values: string[]): S }, ...values: string[]): S {
    let byLabels = this.sharedSeries.get(family);
    if (!byLabels) this.sharedSeries.set(family, (byLabels = new Map()));
    const key = values.join('\u0000');
    let s = byLabels.get(key) as S | undefined;
    if (s === undefined) byLabels.set(key, (s = family.child(...values)));
    return s;
  }

  private readonly nonResource = new Map<string, Route>();

  /**
   * A non-resource endpoint kube instruments with InstrumentHandlerFunc (health, aggregated
   * discovery, OpenAPI v3): every resource label empty, `path` as kube names it in the
   * subresource label, the verb as kube's cleanVerb reports the method (nonresource.ts).
   * Paths, verbs and dry-run values come from fixed sets, so the series stay bounded.
   */
  nonResourceRoute(path: string, comp: string, verb = 'GET', dryRun = 0): Route {
    const key = `${comp} ${verb} ${dryRun} ${path}`;
    let r = this.nonResource.get(key);
    // kube observes response sizes by the route's own verb, GET, whatever the request's method.
    if (!r) this.nonResource.set(key, (r = new Route(this, [verb, dryRunNames[dryRun], '', '', '', path, ''], comp, true)));
    return r;
  }

  watchEventSeries(def: ResourceDefinition): WatchEventSeries {
    let s = this.watchSeries.get(def);
    if (!s) {
      s = new WatchEventSeries(this.watchEvents.child(def.group, def.version, def.kind), this.watchEventsSizes.child(def.group, def.version, def.kind));
      this.watchSeries.set(def, s);
    }
    return s;
  }
}

/** What a watch records per event sent to its client. */
export class WatchEventSeries {
  constructor(private readonly total: CounterSeries, private readonly sizes: HistogramSeries) {}
  sent(bytes: number): void {
    this.total.inc();
    this.sizes.observe(bytes);
  }
}
