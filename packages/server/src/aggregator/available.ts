/**
 * kube-aggregator's AvailableConditionControllers: a local APIService is always Available; for
 * each APIService that names a Service, whether the service is there, listens on the port, has ready endpoints (for a
 * ClusterIP service), and answers `GET /apis/<group>/<version>` (as `system:kube-aggregator` in
 * `system:masters`, up to 5 tries at once, 5 s each); the outcome is its `Available` condition,
 * with kube's reasons and messages, written only when it changes. Every APIService is checked
 * again every 30 s (kube's resync), whenever an APIService changes, and whenever a Service or
 * EndpointSlice an APIService names does.
 *
 * The same answer is the APIService's discovery (its APIResourceList), which the merged
 * discovery documents list (discovery.ts); a failed check keeps the last one, marked stale. A
 * passed check also reads the server's OpenAPI v3 document of the group version, which
 * /openapi/v3 then lists and serves, and its v2 document, merged into /openapi/v2 (openapi.ts).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { ResolvedAddress, ServiceResolver } from '../admission/webhook/client.js';
import { goNetError, urlError } from '../handlers/connectnet.js';
import type { Store } from '../registry/store.js';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import { semanticEqual } from '../registry/semanticequal.js';
import { apiServiceInfo, conditionsOf, type APIServiceCondition, type APIServiceInfo } from './apiservice.js';
import { backendRequest, hostPort, setAuthProxyHeaders, type ProxyClientCredentials } from './transport.js';
import { cachedObjects, StoreFollower } from '../controllers/follower.js';
import { Counter, Gauge, type CounterSeries } from '../metrics/series.js';

export interface RemoteDiscovery {
  /** The APIResourceList's resources, as the backend listed them. */
  resources: Record<string, unknown>[];
  /** The last check reached the backend (kube's Current; Stale otherwise). */
  fresh: boolean;
}

export interface OpenAPIDocuments {
  /** Changes whenever a document does. */
  generation: number;
  /** OpenAPI v3 documents by `apis/<group>/<version>`. */
  documents: Map<string, unknown>;
  /** The servers' whole v2 documents. */
  v2: unknown[];
}

export interface AvailabilityHost {
  apiServices: () => Store | undefined;
  /** Services and EndpointSlices: a change to one an APIService names brings a check. */
  watched: () => (Store | undefined)[];
  lookup: (group: string, resource: string) => AdmissionLookup | undefined;
  resolver: ServiceResolver;
  credentials?: ProxyClientCredentials;
  /** kube's resync period (30 s). */
  resyncMs?: number;
}

const attempts = 5;
const checkTimeoutMs = 5000;
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** The APIServices of the cache, decoded. */
export function cachedAPIServices(store: Store | undefined): APIServiceInfo[] {
  return [...cachedObjects(store)].map(apiServiceInfo);
}

export class AvailableConditionController {
  private readonly discovery = new Map<string, RemoteDiscovery>();
  private readonly openapi = new Map<string, { key: string; url: string; doc: unknown }>();
  private readonly openapiV2 = new Map<string, { etag?: string; doc: unknown }>();
  private openapiGeneration = 0;
  private openapiSnapshot?: OpenAPIDocuments;
  private readonly follower: StoreFollower;
  /** kube's aggregator metrics, read by kubernetes-mixin's AggregatedAPIDown and AggregatedAPIErrors. */
  readonly unavailableGauge = new Gauge('aggregator_unavailable_apiservice', 'Gauge of APIServices which are marked as unavailable broken down by APIService name.', ['name']).aggregate('max');
  readonly unavailableCounter = new Counter('aggregator_unavailable_apiservice_total', 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.', ['name', 'reason']).aggregate('max');
  private readonly unavailableSeries = new Map<string, CounterSeries>();
  private resync?: NodeJS.Timeout;
  private pending = false;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly h: AvailabilityHost) {
    // Every APIService at each scrape, as the remote and local controllers keep it: 1 while not Available.
    this.unavailableGauge.collect = () => {
      this.unavailableGauge.reset();
      for (const a of cachedAPIServices(h.apiServices())) this.unavailableGauge.child(a.name).set(a.available ? 0 : 1);
    };
    this.follower = new StoreFollower(() => [h.apiServices(), ...h.watched()], {
      // A Service or EndpointSlice matters only to the APIServices that name its service (kube's
      // controller queues just those); any APIService change is looked at.
      event: (store, _type, o) => {
        if (store === h.apiServices() || this.namesService(o.object, store.def.resource === 'endpointslices')) this.enqueue();
      },
      attached: () => this.enqueue(),
    });
  }

  start(): void {
    this.follower.start();
    this.resync = setInterval(() => this.enqueue(), this.h.resyncMs ?? 30_000);
    this.resync.unref();
    this.enqueue();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
    clearInterval(this.resync);
  }

  /** Resolves once no pass is under way or queued (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Whether a remote APIService names the service of this Service or EndpointSlice. */
  private namesService(o: KubeObject, slice: boolean): boolean {
    const namespace = o.metadata.namespace ?? '';
    const name = slice ? o.metadata.labels?.['kubernetes.io/service-name'] : o.metadata.name;
    // Every EndpointSlice change of the cluster asks: the cached objects are read, not decoded.
    for (const a of cachedObjects(this.h.apiServices())) {
      const svc = (a.spec as { service?: { namespace?: string; name?: string } } | undefined)?.service;
      if (svc && svc.namespace === namespace && svc.name === name) return true;
    }
    return false;
  }

  /** What the APIService's backend last listed, if it was ever reached. */
  discoveryOf(name: string): RemoteDiscovery | undefined {
    return this.discovery.get(name);
  }

  enqueue(): void {
    this.pending = true;
    if (!this.running) this.running = this.drain().finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    while (this.pending && !this.stopped) {
      this.pending = false;
      const all = cachedAPIServices(this.h.apiServices());
      const names = new Set(all.filter((s) => s.service).map((s) => s.name));
      for (const name of this.discovery.keys()) if (!names.has(name)) this.discovery.delete(name);
      for (const name of this.openapi.keys()) if (!names.has(name)) (this.openapi.delete(name), this.openapiGeneration++);
      for (const name of this.openapiV2.keys()) if (!names.has(name)) (this.openapiV2.delete(name), this.openapiGeneration++);
      await Promise.all(all.map((s) => this.sync(s).catch((err: unknown) => {
        if (!this.stopped) console.error(`apiservice ${s.name}: ${(err as Error).message}`);
      })));
    }
  }

  private async sync(s: APIServiceInfo): Promise<void> {
    const condition = await this.check(s);
    const current = structuredClone(s.object);
    const conditions = conditionsOf(current);
    const existing = conditions.find((c) => c.type === 'Available');
    const next = existing
      ? { ...existing, reason: condition.reason, message: condition.message, ...(existing.status !== condition.status ? { status: condition.status, lastTransitionTime: condition.lastTransitionTime } : {}) }
      : condition;
    const status = { ...((current.status ?? {}) as Record<string, unknown>), conditions: existing ? conditions.map((c) => (c === existing ? next : c)) : [...conditions, next] };
    if (semanticEqual(current.status ?? {}, status)) return;
    const lookup = this.h.lookup('apiregistration.k8s.io', 'apiservices');
    await lookup?.updateStatus?.('', s.name, (latest: KubeObject) => {
      const latestConditions = conditionsOf(latest).filter((c) => c.type !== 'Available');
      const prior = conditionsOf(latest).find((c) => c.type === 'Available');
      const merged = prior && prior.status === next.status ? { ...next, lastTransitionTime: prior.lastTransitionTime } : next;
      return { ...latest, status: { ...((latest.status ?? {}) as Record<string, unknown>), conditions: [...latestConditions, merged] } };
    });
    // SetUnavailableCounter: a written change from Available to not.
    if (s.available && next.status !== 'True') {
      const key = `${s.name}\n${next.reason ?? 'UnknownReason'}`;
      let series = this.unavailableSeries.get(key);
      if (!series) this.unavailableSeries.set(key, (series = this.unavailableCounter.child(s.name, next.reason ?? 'UnknownReason')));
      series.inc();
    }
  }

  /** kube's sync: the first check that fails names the condition; all passing is Available. */
  private async check(s: APIServiceInfo): Promise<APIServiceCondition> {
    // kube's local AvailableConditionController: served here, always available (an APIService that
    // stopped naming a Service loses the condition its service had).
    if (!s.service) return { type: 'Available', status: 'True', lastTransitionTime: now(), reason: 'Local', message: 'Local APIServices are always available' };
    const { namespace, name, port } = s.service;
    const unavailable = (reason: string, message: string, status = 'False'): APIServiceCondition => ({ type: 'Available', status, lastTransitionTime: now(), reason, message });
    let svc: KubeObject | undefined;
    try {
      svc = await this.h.lookup('', 'services')?.get(namespace, name);
    } catch (err) {
      return unavailable('ServiceAccessError', `service/${name} in "${namespace}" cannot be checked due to: ${(err as Error).message}`, 'Unknown');
    }
    if (!svc) return unavailable('ServiceNotFound', `service/${name} in "${namespace}" is not present`);
    const spec = (svc.spec ?? {}) as { type?: string; ports?: { name?: string; port?: number }[] };
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = (spec.ports ?? []).find((p) => p.port === port);
      if (!servicePort) return unavailable('ServicePortError', `service/${name} in "${namespace}" is not listening on port ${port}`);
      const portName = servicePort.name ?? '';
      let slices: KubeObject[];
      try {
        slices = ((await this.h.lookup('discovery.k8s.io', 'endpointslices')?.list(namespace)) ?? [])
          .filter((sl) => sl.metadata.labels?.['kubernetes.io/service-name'] === name);
      } catch (err) {
        return unavailable('EndpointsAccessError', `service/${name} in "${namespace}" cannot be checked due to: ${(err as Error).message}`, 'Unknown');
      }
      if (slices.length === 0) return unavailable('EndpointsNotFound', `cannot find endpointslices for service/${name} in "${namespace}"`);
      if (!hasAvailableEndpoint(portName, slices)) return unavailable('MissingEndpoints', `endpointslices for service/${name} in "${namespace}" have no addresses with port name "${portName}"`);
    }
    const results = await Promise.all(Array.from({ length: attempts }, () => this.discover(s)));
    const success = results.find((r): r is { resources: Record<string, unknown>[]; to: ResolvedAddress } => typeof r !== 'string');
    const previous = this.discovery.get(s.name);
    if (success === undefined) {
      if (previous) previous.fresh = false;
      else this.discovery.set(s.name, { resources: [], fresh: false });
      return unavailable('FailedDiscoveryCheck', results[results.length - 1] as string);
    }
    this.discovery.set(s.name, { resources: success.resources, fresh: true });
    await this.fetchOpenAPI(s, success.to);
    return { type: 'Available', status: 'True', lastTransitionTime: now(), reason: 'Passed', message: 'all checks passed' };
  }

  /** One GET of the group version's discovery document: its resources, or kube's error text. */
  private async discover(s: APIServiceInfo): Promise<{ resources: Record<string, unknown>[]; to: ResolvedAddress } | string> {
    const { namespace, name, port } = s.service!;
    let to: ResolvedAddress;
    try {
      to = await this.h.resolver.resolve(namespace, name, port);
    } catch (err) {
      return (err as Error).message;
    }
    const path = s.name === 'v1.' ? `/api/${s.version}` : `/apis/${s.group}/${s.version}`;
    const url = `https://${hostPort(to)}${path}`;
    const got = await this.get(s, to, path);
    if (typeof got === 'string') return `failing or missing response from ${url}: ${got}`;
    if (got.status < 200 || got.status >= 300) return `failing or missing response from ${url}: bad status from ${url}: ${got.status}`;
    let resources: Record<string, unknown>[] = [];
    try {
      const doc = JSON.parse(got.body.toString('utf8')) as { resources?: unknown };
      if (Array.isArray(doc.resources)) resources = doc.resources as Record<string, unknown>[];
    } catch {
      // A 2xx the aggregator cannot read still passes kube's check; discovery lists nothing for it.
    }
    return { resources, to };
  }

  /** A GET to the backend as the aggregator (system:masters), within 5 s: its status, body and ETag, or Go's error text. */
  private get(s: APIServiceInfo, to: ResolvedAddress, path: string, extra: OutgoingHttpHeaders = {}): Promise<{ status: number; body: Buffer; etag?: string } | string> {
    const url = `https://${hostPort(to)}${path}`;
    return new Promise((resolve) => {
      const headers: OutgoingHttpHeaders = { accept: 'application/json', ...extra };
      setAuthProxyHeaders(headers, { name: 'system:kube-aggregator', groups: ['system:masters'] });
      const out = backendRequest(s, this.h.credentials, to, 'GET', path, headers);
      const timer = setTimeout(() => {
        out.destroy();
        resolve(urlError('GET', url, 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'));
      }, checkTimeoutMs);
      out.on('error', (err) => {
        clearTimeout(timer);
        resolve(urlError('GET', url, goNetError(err, hostPort(to))));
      });
      out.on('response', (back) => {
        const chunks: Buffer[] = [];
        back.on('data', (c: Buffer) => chunks.push(c));
        back.on('error', () => undefined);
        back.on('end', () => {
          clearTimeout(timer);
          resolve({ status: back.statusCode ?? 0, body: Buffer.concat(chunks), etag: back.headers.etag });
        });
      });
      out.end();
    });
  }

  /**
   * The group version's OpenAPI v3 document from its server (kube's openapiv3 aggregator): the
   * server's /openapi/v3 index names it; fetched again only when the index's URL (its hash) changed.
   */
  private async fetchOpenAPI(s: APIServiceInfo, to: ResolvedAddress): Promise<void> {
    await this.fetchOpenAPIV2(s, to);
    const key = `apis/${s.group}/${s.version}`;
    const prior = this.openapi.get(s.name);
    const index = await this.get(s, to, '/openapi/v3');
    if (typeof index === 'string' || index.status !== 200) return;
    let url: string | undefined;
    try {
      url = (JSON.parse(index.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: string }> }).paths?.[key]?.serverRelativeURL;
    } catch {
      return;
    }
    if (!url) {
      if (prior) (this.openapi.delete(s.name), this.openapiGeneration++);
      return;
    }
    if (prior?.url === url) return;
    const doc = await this.get(s, to, url);
    if (typeof doc === 'string' || doc.status !== 200) return;
    try {
      this.openapi.set(s.name, { key, url, doc: JSON.parse(doc.body.toString('utf8')) as unknown });
      this.openapiGeneration++;
    } catch {
      // Not JSON: nothing to serve for it.
    }
  }

  /**
   * The server's whole OpenAPI v2 document (kube's v2 aggregator merges it into /openapi/v2), asked
   * again with the last ETag so an unchanged one is not read again.
   */
  private async fetchOpenAPIV2(s: APIServiceInfo, to: ResolvedAddress): Promise<void> {
    const prior = this.openapiV2.get(s.name);
    const got = await this.get(s, to, '/openapi/v2', prior?.etag ? { 'if-none-match': prior.etag } : {});
    if (typeof got === 'string' || got.status === 304) return;
    if (got.status !== 200) {
      if (prior) (this.openapiV2.delete(s.name), this.openapiGeneration++);
      return;
    }
    try {
      this.openapiV2.set(s.name, { etag: got.etag, doc: JSON.parse(got.body.toString('utf8')) as unknown });
      this.openapiGeneration++;
    } catch {
      // Not JSON: nothing to merge.
    }
  }

  /** Remote group versions' OpenAPI v3 documents by `apis/<group>/<version>`, their servers' v2 documents, and a number that changes with them. */
  openAPIDocuments(): OpenAPIDocuments {
    // Asked on every /openapi request: made again only when a document changed.
    if (this.openapiSnapshot?.generation !== this.openapiGeneration) {
      this.openapiSnapshot = {
        generation: this.openapiGeneration,
        documents: new Map([...this.openapi.values()].map((o) => [o.key, o.doc])),
        v2: [...this.openapiV2.values()].map((o) => o.doc),
      };
    }
    return this.openapiSnapshot;
  }
}

/** kube's hasAvailableEndpoint: a slice with the port's name and an endpoint not marked unready. */
function hasAvailableEndpoint(portName: string, slices: KubeObject[]): boolean {
  for (const slice of slices) {
    const ports = (slice.ports ?? []) as { name?: string }[];
    if (!ports.some((p) => (p.name ?? '') === portName)) continue;
    for (const ep of (slice.endpoints ?? []) as { conditions?: { ready?: boolean } }[]) {
      if (ep.conditions?.ready !== false) return true;
    }
  }
  return false;
}
