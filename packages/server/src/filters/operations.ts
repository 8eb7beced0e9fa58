/**
 * What running Windlass in production adds around the request path: kube's metrics, the
 * in-flight limits, the request timeout, health checks and graceful shutdown. The APIServer
 * calls into it at a few points; everything it does per request is a counter update or a
 * numeric Map lookup.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import type { Storage } from '@windlass/storage';
import type { ResourceDefinition } from '../registry/types.js';
import type { RequestInfo } from '../requestinfo.js';
import { RequestMetrics, Route, dryRunIndex, isReadOnlyVerb, reportedVerbIndex, scopeIndex, type WatchEventSeries } from '../metrics/requestmetrics.js';
import { MeteredStorage, StorageMetrics, type CachedResource, type StorageSize } from '../metrics/storagemetrics.js';
import { localMetricsJSON, metricsRoute, type MetricsJSON } from '../metrics/endpoint.js';
import { InflightLimiter, defaultInflightLimits, writeTooManyRequests, type InflightLimits } from './inflight.js';
import { RequestDeadlines, defaultRequestTimeoutMs, requestTimeoutParam } from './timeout.js';
import { bodyLength, writeError } from '../respond.js';

export interface OperationsOptions extends Partial<InflightLimits> {
  /** kube's --request-timeout in ms (default 60 s); 0: none. */
  requestTimeoutMs?: number;
  /** The store's size on disk, for apiserver_storage_size_bytes. */
  storageSize?: () => Promise<StorageSize[]>;
  /**
   * For a worker of several behind one port: the whole server's /metrics text, given this
   * worker's own (the primary sums every worker's).
   */
  gatherMetrics?: () => Promise<string>;
}

/** The server's resource handler; one function per server, so a request allocates no closure for it. */
export type ResourceHandler = (req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams) => Promise<void>;

/** Handed to a watch handler: where it counts events, and how shutdown ends it cleanly. */
export interface WatchHooks {
  events: WatchEventSeries;
  /** Functions that end an open watch (a clean end of its stream); a watch removes itself when it ends. */
  open: Set<() => void>;
}

function seconds(start: number): number {
  return (performance.now() - start) / 1000;
}

export class ServerOperations {
  readonly registry = new Registry();
  readonly requests = new RequestMetrics();
  readonly storageMetrics: StorageMetrics;
  readonly limiter: InflightLimiter;
  readonly deadlines: RequestDeadlines<Route>;
  readonly requestTimeoutMs: number;
  /** Readiness fails from the moment shutdown begins. */
  shuttingDown = false;
  private readonly openWatches = new Set<() => void>();
  /** Watch responses not yet closed (their end still being written). */
  private watchResponses = 0;

  constructor(registryPrefix: string, resources: () => CachedResource[], opts: OperationsOptions = {}) {
    this.storageMetrics = new StorageMetrics(registryPrefix, resources, opts.storageSize);
    this.requests.register(this.registry);
    this.storageMetrics.register(this.registry);
    this.limiter = new InflightLimiter({ ...defaultInflightLimits, ...definedLimits(opts) }, { readOnly: this.requests.readOnlyInflight, mutating: this.requests.mutatingInflight });
    this.requestTimeoutMs = opts.requestTimeoutMs ?? defaultRequestTimeoutMs;
    this.deadlines = new RequestDeadlines<Route>(this.requestTimeoutMs, (route) => route.terminated(504));
    this.gatherMetrics = opts.gatherMetrics;
  }

  private readonly gatherMetrics?: () => Promise<string>;

  wrapStorage(storage: Storage): Storage {
    return new MeteredStorage(storage, this.storageMetrics);
  }

  addResource(def: ResourceDefinition): void {
    this.storageMetrics.addResource(def);
  }

  metricsRoute() {
    return metricsRoute(this.registry, { gather: this.gatherMetrics });
  }

  /** This process's metrics, for a primary aggregating its workers. */
  metricsJSON(): Promise<MetricsJSON> {
    return localMetricsJSON(this.registry);
  }

  watchHooks(def: ResourceDefinition): WatchHooks {
    return { events: this.requests.watchEventSeries(def), open: this.openWatches };
  }

  /**
   * Serves one resource request through the filters: in-flight limit, timeout, metrics.
   * `serve` writes the answer (errors included); def is the addressed resource, if known.
   */
  async serve(req: IncomingMessage, res: ServerResponse, url: string, info: RequestInfo, query: URLSearchParams, groups: readonly string[] | undefined,
    addressed: ResourceDefinition | undefined, serve: ResourceHandler): Promise<void> {
    const start = performance.now();
    // A subresource the kind lacks has no route in kube, so nothing instruments it.
    const def = info.subresource && !addressed?.subresources?.some((r) => r.name === info.subresource) ? undefined : addressed;
    const route = this.requests.route(def, reportedVerbIndex(info, req.headers['content-type']), scopeIndex(info, def), dryRunIndex(url, query), info.subresource);
    if (isLongRunning(info)) return this.serveLongRunning(req, res, info, query, route, def, start, serve);
    const mutating = !isReadOnlyVerb(info.verb);
    let ownTimeoutMs: number;
    try {
      ownTimeoutMs = requestTimeoutParam(query);
    } catch (err) {
      writeError(res, err);
      return;
    }
    const admission = this.limiter.tryAcquire(mutating, groups, start);
    if (admission === null) {
      route.terminated(429);
      writeTooManyRequests(res);
      return;
    }
    this.deadlines.start(res, start, route, ownTimeoutMs);
    try {
      await serve(req, res, info, query);
    } catch (err) {
      writeError(res, err);
    } finally {
      const end = performance.now();
      this.limiter.release(mutating, admission, end);
      // Requests to resources the server does not serve are not counted (kube: no instrumented route).
      if (this.deadlines.end(res) && def) route.observe(res.statusCode, (end - start) / 1000, bodyLength(res));
    }
  }

  private async serveLongRunning(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, route: Route,
    def: ResourceDefinition | undefined, start: number, serve: ResourceHandler): Promise<void> {
    const gauge = route.longRunning;
    gauge.inc();
    // Shutdown waits for watches, which it ends itself; a tunnel (exec, port-forward) is closed with the server instead.
    const watch = info.verb === 'watch';
    if (watch) this.watchResponses++;
    try {
      await serve(req, res, info, query);
    } catch (err) {
      writeError(res, err);
    }
    let open = true;
    const ended = () => {
      if (!open) return;
      open = false;
      gauge.dec();
      if (watch) this.watchResponses--;
      if (def) route.observe(res.statusCode, seconds(start), -1);
    };
    if (res.writableFinished || res.destroyed) return ended();
    // An upgraded connection (exec, attach, port-forward) leaves its response unclosed: its socket's end is the request's.
    const socket = req.socket;
    socket?.once('close', ended);
    res.once('close', () => {
      socket?.off('close', ended);
      ended();
    });
  }

  /** Ends every open watch with a clean end of its stream. */
  endWatches(): void {
    for (const end of [...this.openWatches]) end();
  }

  /** Resolves once no request is in flight and every watch response is closed, or after timeoutMs. */
  async drained(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.limiter.inflight > 0 || this.watchResponses > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  stop(): void {
    this.limiter.stop();
    this.deadlines.stop();
  }
}

/**
 * kube's BasicLongRunningRequestCheck (watch, and the connect subresources): no in-flight slot and
 * no request timeout, however long the stream or tunnel stays open.
 */
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return info.verb === 'watch' || longRunningSubresources.has(info.subresource);
}

function definedLimits(o: Partial<InflightLimits>): Partial<InflightLimits> {
  const out: Partial<InflightLimits> = {};
  if (o.maxRequestsInflight !== undefined) out.maxRequestsInflight = o.maxRequestsInflight;
  if (o.maxMutatingRequestsInflight !== undefined) out.maxMutatingRequestsInflight = o.maxMutatingRequestsInflight;
  return out;
}
