/**
 * The API server. Resource requests — every verb on every kind, the hot path — go straight
 * from the socket to RequestInfo, authentication and the verb handler over the generic Store
 * of the addressed kind, with no middleware and no body read unless the verb has one. The
 * rest (discovery, OpenAPI, health, version, the admin endpoint) is an express app.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { failure, newNotFound, newMethodNotAllowed, newMethodNotSupported, newRequestEntityTooLarge, newUnauthorized, newBadRequest, protobufMediaType } from '@windlass/machinery';
import type { Storage } from '@windlass/storage';
import { parseRequestInfo, type RequestInfo } from './requestinfo.js';
import { APIRegistry, builtinResources } from './registry/index.js';
import { defaultServiceRanges, type AdmissionLookup, type ResourceDefinition, type ServiceRanges, type StoreContext, type UserInfo } from './registry/types.js';
import { Store, systemUser } from './registry/store.js';
import { storeLookup } from './storelookup.js';
import { negotiate, setCBORServingAndStorage, type Negotiated } from './negotiation.js';
import { acceptsGzip, encodeBody, negotiatedErrors, notFoundPage, writeError, writeObject } from './respond.js';
import { maxRequestBodyBytes, readBody } from './requestbody.js';

/** The socket write buffer before backpressure: twice the largest request body, so any object's answer fits. */
const answerBufferBytes = 2 * maxRequestBodyBytes;
import { serveDiscovery } from './discoveryroutes.js';
import { refuseComputed, refuseSubresource } from './handlers/notserved.js';
import { notFoundStatus } from './discoveryroutes.js';
import { checkNamespaceDeletable, namespaceDeletionRequested, namespaceExists } from './admission/namespacelifecycle.js';
import { NamespaceController } from './controllers/namespace.js';
import { ResourceQuotaController } from './controllers/resourcequota.js';
import { PolicyStatusController } from './controllers/vapstatus.js';
import { crdType, openAPIType, type TypeResolver } from './admission/policy/typechecking.js';
import { schemaOfDefinition } from './crd/resources.js';
import { loadSchemas } from '@windlass/schemas';
import { GarbageCollector } from './controllers/garbagecollector.js';
import { applyAdmissionConfigurationFile } from './admission/admissionconfig.js';
import { getResource, listResource } from './handlers/read.js';
import { watchResource } from './handlers/watch.js';
import { createResource, patchResource, updateResource } from './handlers/write.js';
import { serveScale } from './handlers/scale.js';
import { ensureBootstrapPolicy, newAuthorizer, rbacObjectsFrom, type AuthorizationMode } from './rbac/index.js';
import { cachedRBACObjects } from './rbac/cached.js';
import { RequestGuard, anonymousUser, presentsCredentials } from './filters/authorization.js';
import { Aggregator, type ProxyClientCredentials } from './aggregator/index.js';
import { ensureDefaultServiceCIDR, ensureSystemPriorityClasses } from './bootstrapobjects.js';
import { DynamicAdmissionChain } from './admission/dynamic.js';
import { validatingPolicyStage } from './admission/policy/index.js';
import { webhookStage } from './admission/webhook/index.js';
import { ensureFlowControlBootstrap } from './bootstrapflowcontrol.js';
import { kubernetesServiceObject } from './registry/kinds/core/services.js';
import { servePodSubresource, servesPodSubresource } from './handlers/podsubresources.js';
import { ConnectHandler, serveConnect, servesConnect, type KubeletClientFiles } from './handlers/connect.js';
import { addWarnings } from './handlers/typed.js';
import { serveReview } from './handlers/review.js';
import type { MetricsJSON } from './metrics/endpoint.js';
import { deleteCollection, deleteResource } from './handlers/delete.js';
import type { RequestScope } from './handlers/scope.js';
import { openAPIRoutes } from './openapi.js';
import { nonResourceMetrics } from './metrics/nonresource.js';
import { Compactor, compactKey, defaultCompactionIntervalMs } from './controllers/compactor.js';
import { compactRoute } from './compactendpoint.js';
import { identityRoute } from './identityendpoint.js';
import { Cacher, defaultCacherOptions, type CacherOptions } from './cacher/cacher.js';
import { RegistryWatch } from './cacher/registrywatch.js';
import { CRDController, refuseCreateWhileTerminating } from './crd/controller.js';
import { ServerOperations, isLongRunning, type OperationsOptions, type ResourceHandler } from './filters/operations.js';
import { closeAfterAnswers, servedWhileDraining, writeShuttingDown } from './filters/shutdown.js';
import { healthRoutes, withTimeout, type HealthCheck } from './filters/health.js';
import { ControlPlaneObjects, builtinGroupVersions, type ControlPlaneOptions } from './controllers/controlplane.js';
import { authenticateRequest, requestUsers, serviceAccountTokenGetter, type Authenticator } from './filters/authentication.js';
import { serviceAccountIssuerDiscovery } from './filters/serviceaccountissuer.js';
import { serveServiceAccountToken, servesServiceAccountToken } from './registry/kinds/core/serviceaccounttoken.js';
import { TokenController } from './registry/kinds/core/tokencontroller.js';

export type { UserInfo } from './registry/types.js';
export type { Authenticator } from './filters/authentication.js';


export interface APIServerOptions {
  storage: Storage;
  /** Storage key prefix, kube's --etcd-prefix. */
  registryPrefix?: string;
  /** Without one, every request is allowed (tests of the API alone). */
  authenticator?: Authenticator;
  /** Where Services' ClusterIPs and NodePorts come from (default kube's 10.96.0.0/12 and 30000-32767). */
  services?: ServiceRanges;
  tls?: { cert: string; key: string };
  resources?: ResourceDefinition[];
  /** kube's --etcd-compaction-interval in ms (default 5 minutes); 0 disables periodic compaction, not POST /windlass/v1/compact. */
  compactionIntervalMs?: number;
  /** gzip large responses for clients that accept it (feature gate APIResponseCompression, on by default). */
  compression?: boolean;
  /** CBOR requests and responses (feature gate CBORServingAndStorage, off by default); process-wide, as kube's gates. */
  cbor?: boolean;
  /** Watch cache tuning (history window, snapshot window, bookmark interval, …). */
  cacher?: Partial<CacherOptions>;
  /** In-flight limits, request timeout and the store's size for metrics (kube's defaults when unset). */
  operations?: OperationsOptions;
  /** kube's --admission-control-config-file: an AdmissionConfiguration, read at start (ResourceQuota's limitedResources). */
  admissionControlConfigFile?: string;
  /**
   * With an authenticator: kube's --authorization-mode (default RBAC) and --anonymous-auth
   * (default true; off whenever AlwaysAllow is a mode, as kube resets it).
   */
  authorization?: { modes?: AuthorizationMode[]; anonymous?: boolean };
  /** The objects kube-apiserver keeps about itself (the `kubernetes` Endpoints, its identity Lease, automanaged APIServices); unset: none. */
  controlPlane?: ControlPlaneOptions;
  /** kube's --kubelet-certificate-authority, --kubelet-client-certificate and --kubelet-client-key, for logs, exec and proxies to kubelets. */
  kubeletClient?: KubeletClientFiles;
  /** The aggregation layer: kube's --proxy-client-cert-file and --proxy-client-key-file (PEM), presented to aggregated API servers. */
  aggregator?: { proxyClient?: ProxyClientCredentials; resyncMs?: number };
}

const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** The methods kube routes to resources (HEAD and OPTIONS only reach proxy subresources; others are go-restful's 405). */
const routedMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export class APIServer {
  readonly registry: APIRegistry;
  readonly app: express.Express;
  private stores = new Map<ResourceDefinition, Store>();
  private server?: http.Server | https.Server;
  private namespaceController: NamespaceController;
  readonly quotaController: ResourceQuotaController;
  readonly policyStatusController: PolicyStatusController;
  readonly garbageCollector: GarbageCollector;
  readonly compactor: Compactor;
  /** The replica's one storage watch, feeding every resource type's Cacher. */
  readonly registryWatch: RegistryWatch;
  private readonly compression: boolean;
  private address = '127.0.0.1:0';
  /** Metrics, limits, timeouts, health and shutdown around the request path. */
  readonly operations: ServerOperations;
  private readonly storage: Storage;
  private readonly serveBound: ResourceHandler = (req, res, info, query) => this.serveResource(req, res, info, query);
  private bootstrapped = false;
  /** Set once shutdown stops taking new connections: answers then close theirs. */
  private draining = false;
  /** Open client connections: shutdown has each close once its current answer is done. */
  private readonly sockets = new Set<Socket>();
  private listenerClosed?: Promise<void>;
  private readonly cachers = new Map<string, Cacher>();
  private cacherOptions!: CacherOptions;
  private ctx!: StoreContext;
  /** Serves the resources of CustomResourceDefinitions (crd/controller.ts). */
  readonly crdController: CRDController;
  /** Admission policies and webhooks: their stages add themselves here (admission/dynamic.ts). */
  readonly dynamicAdmission = new DynamicAdmissionChain();
  /** Impersonation and authorization, with an authenticator (filters/authorization.ts). */
  private readonly guard?: RequestGuard;
  /** Started by listen() when options.controlPlane is set. */
  controlPlane?: ControlPlaneObjects;
  /** Fills legacy service account token Secrets, with a signing key. */
  private readonly tokenController?: TokenController;
  /** pods/log, exec, attach, portforward and the proxy subresources (handlers/connect.ts). */
  private readonly connect: ConnectHandler;
  /** APIServices naming a Service: proxied to, checked, listed in discovery (aggregator/). */
  readonly aggregator: Aggregator;

  /**
   * Serves resources added at run time (custom resources): each gets a Store, the watch cache
   * of its key prefix (shared by its versions) joining the registry watch, and namespace admission.
   */
  addResources(defs: ResourceDefinition[]): void {
    for (const def of defs) this.registry.add(def);
    const namespaces = this.storeFor('', 'v1', 'namespaces')!;
    for (const def of defs) {
      this.operations.addResource(def);
      const storageDef = def.conversion ? this.registry.lookup(def.conversion.storageGroup ?? def.group, def.conversion.storageVersion, def.resource) : undefined;
      const store = new Store(def, this.storage, this.opts.registryPrefix ?? '/registry', storageDef);
      let cacher = this.cachers.get(store.resourcePrefix);
      if (!cacher) this.cachers.set(store.resourcePrefix, (cacher = new Cacher(store.resourcePrefix, this.storage, this.cacherOptions, this.registryWatch, store.attrsOf)));
      store.cacher = cacher;
      store.ctx = this.ctx;
      if (def.namespaced) store.addCreateAdmission(namespaceExists(namespaces));
      store.addCreateAdmission(async () => refuseCreateWhileTerminating(this.crdController, def));
      this.stores.set(def, store);
    }
  }

  /** Stops serving resources added by addResources; a key prefix no longer served drops its watch cache. */
  removeResources(defs: ResourceDefinition[]): void {
    for (const def of defs) {
      this.registry.remove(def);
      const store = this.stores.get(def);
      this.stores.delete(def);
      if (!store?.cacher || [...this.stores.values()].some((s) => s.cacher === store.cacher)) continue;
      store.cacher.stop();
      this.registryWatch.remove(store.resourcePrefix);
      this.cachers.delete(store.resourcePrefix);
    }
  }

  constructor(private opts: APIServerOptions) {
    this.registry = new APIRegistry(opts.resources ?? builtinResources);
    const prefix = opts.registryPrefix ?? '/registry';
    const cacherOptions = { ...defaultCacherOptions, ...(opts.cacher ?? {}) };
    this.compression = opts.compression ?? true;
    setCBORServingAndStorage(opts.cbor ?? false);
    this.operations = new ServerOperations(prefix, () => this.cachedResources(), opts.operations);
    for (const def of this.registry.all()) this.operations.addResource(def);
    // Every store request is timed and counted (etcd_request_duration_seconds) by one wrapper.
    const storage = (this.storage = this.operations.wrapStorage(opts.storage));
    this.registryWatch = new RegistryWatch(storage, `${prefix}/`, { consistencyWaitMs: cacherOptions.consistencyWaitMs });
    // One watch cache per stored resource per replica, all fed by one storage watch, however many
    // clients watch; the versions of a resource (autoscaling/v1 and v2) share its keys and cache.
    const cachers = this.cachers;
    this.cacherOptions = cacherOptions;
    for (const def of this.registry.all()) {
      const storageDef = def.conversion ? this.registry.lookup(def.conversion.storageGroup ?? def.group, def.conversion.storageVersion, def.resource) : undefined;
      const store = new Store(def, storage, prefix, storageDef);
      if (def.stored !== false) {
        let cacher = cachers.get(store.resourcePrefix);
        if (!cacher) cachers.set(store.resourcePrefix, (cacher = new Cacher(store.resourcePrefix, storage, cacherOptions, this.registryWatch, store.attrsOf)));
        store.cacher = cacher;
      }
      this.stores.set(def, store);
    }
    this.dynamicAdmission.add(validatingPolicyStage({
      registry: this.registry, storeFor: (g, v, r) => this.storeFor(g, v, r), lookup: (g, r) => this.admissionLookup(g, r), authorizer: () => this.ctx.authorizer,
    }));
    const ctx: StoreContext = { storage, registryPrefix: prefix, services: opts.services ?? defaultServiceRanges, lookup: (group, resource) => this.admissionLookup(group, resource), dynamicAdmission: this.dynamicAdmission };
    if (opts.authenticator) {
      const modes = opts.authorization?.modes ?? ['RBAC'];
      const rbacCache = (resource: string) => this.storeFor('rbac.authorization.k8s.io', 'v1', resource)?.cacher;
      const objects = cachedRBACObjects(() => ({
        roles: rbacCache('roles'), rolebindings: rbacCache('rolebindings'), clusterroles: rbacCache('clusterroles'), clusterrolebindings: rbacCache('clusterrolebindings'),
      }), rbacObjectsFrom(ctx.lookup));
      const authorizer = newAuthorizer(objects, modes);
      this.guard = new RequestGuard({ authorizer, anonymous: (opts.authorization?.anonymous ?? true) && !modes.includes('AlwaysAllow') });
      ctx.authorizer = authorizer;
    }
    for (const store of this.stores.values()) store.ctx = ctx;
    this.ctx = ctx;
    opts.authenticator?.useObjects?.(serviceAccountTokenGetter(ctx.lookup));
    if (opts.authenticator?.serviceAccounts?.canSign) {
      this.tokenController = new TokenController(this.storeFor('', 'v1', 'secrets')!, this.storeFor('', 'v1', 'serviceaccounts')!, opts.authenticator.serviceAccounts);
    }
    if (opts.admissionControlConfigFile) applyAdmissionConfigurationFile(ctx, opts.admissionControlConfigFile);
    const namespaces = this.storeFor('', 'v1', 'namespaces')!;
    const namespacedStores = [...this.stores.values()].filter((s) => s.def.namespaced && s.cacher);
    // Custom resources come and go with their CRDs: the controllers ask for the current stores.
    const perKeyPrefix = () => [...new Map([...this.stores.values()].filter((s) => s.def.namespaced && s.cacher).map((s) => [s.resourcePrefix, s])).values()];
    for (const s of namespacedStores) s.addCreateAdmission(namespaceExists(namespaces));
    // kube's ServiceAccount controller: every namespace gets its `default` ServiceAccount, which
    // pods run as unless they name another (the ServiceAccount admission plugin requires it).
    namespaces.addAfterCreate((ns) => this.ensureDefaultServiceAccount(ns.metadata.name!));
    this.namespaceController = new NamespaceController(namespaces, perKeyPrefix);
    this.quotaController = new ResourceQuotaController((group, resource) => this.admissionLookup(group, resource), perKeyPrefix);
    this.policyStatusController = new PolicyStatusController(this.storeFor('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!, () => this.admissionLookup('admissionregistration.k8s.io', 'validatingadmissionpolicies'), () => this.policyTypes());
    // One store per stored resource for the garbage collector, the storage version's where versions share keys.
    const gcStores = () => {
      const byPrefix = new Map<string, Store>();
      for (const s of this.stores.values()) if (s.cacher && (!byPrefix.has(s.resourcePrefix) || s.kind === s.def)) byPrefix.set(s.resourcePrefix, s);
      return [...byPrefix.values()];
    };
    this.garbageCollector = new GarbageCollector(gcStores);
    this.crdController = new CRDController(this.storeFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!, {
      addResources: (defs) => this.addResources(defs),
      removeResources: (defs) => this.removeResources(defs),
      storeOf: (def) => this.stores.get(def),
    });
    this.compactor = new Compactor({
      storage: storage, key: compactKey(prefix), intervalMs: opts.compactionIntervalMs ?? defaultCompactionIntervalMs,
      onCompacted: (revision) => this.compacted(revision),
    });
    this.dynamicAdmission.add(webhookStage({
      registry: this.registry, storeFor: (g, v, r) => this.storeFor(g, v, r), lookup: (g, r) => this.admissionLookup(g, r), crdController: this.crdController,
      authorizer: () => this.ctx.authorizer,
    }));
    this.aggregator = new Aggregator({
      storeFor: (g, v, r) => this.storeFor(g, v, r), lookup: (g, r) => this.admissionLookup(g, r),
      credentials: opts.aggregator?.proxyClient, resyncMs: opts.aggregator?.resyncMs,
    });
    this.aggregator.available.unavailableGauge.register(this.operations.registry);
    this.aggregator.available.unavailableCounter.register(this.operations.registry);
    this.connect = new ConnectHandler({ lookup: (g, r) => this.admissionLookup(g, r), authorizer: () => this.ctx.authorizer, dynamicAdmission: this.dynamicAdmission, kubeletClient: opts.kubeletClient });
    this.app = this.buildApp();
  }

  /** This process's /metrics families as JSON, for a `--workers` primary to combine. */
  metricsJSON(): Promise<MetricsJSON> {
    return this.operations.metricsJSON();
  }

  storeFor(group: string, version: string, resource: string): Store | undefined {
    const def = this.registry.lookup(group, version, resource);
    return def ? this.stores.get(def) : undefined;
  }

  /**
   * Another resource's objects for admission plugins and allocators, through its preferred
   * version's Store. Reads are kube's informer-with-live-lookup: the watch cache first, the
   * store (a consistent read) only on a miss, so an object written a moment ago is still found.
   */
  private admissionLookup(group: string, resource: string): AdmissionLookup | undefined {
    const version = this.registry.versionsOf(group)?.find((v) => this.registry.lookup(group, v, resource));
    const store = version === undefined ? undefined : this.storeFor(group, version, resource);
    return store && storeLookup(store);
  }


  private buildApp(): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use((req, res, next) => this.authenticateNonResource(req, res, next));
    app.use(express.raw({ type: () => true, limit: maxRequestBodyBytes }));
    // Who may call these is the authorizer's to say (non-resource URLs), as for every path.
    app.use(compactRoute(this.compactor));
    app.use(identityRoute());
    app.use(this.operations.metricsRoute());
    app.use(healthRoutes(
      { healthz: () => this.healthChecks('healthz'), livez: () => this.healthChecks('livez'), readyz: () => this.healthChecks('readyz') },
      // kube's InstallPathHandler instruments each root check path with an empty component.
      (path, verb, dryRun, code, seconds, bytes) => this.operations.requests.nonResourceRoute(path, '', verb, dryRun).observe(code, seconds, bytes),
    ));
    app.use(nonResourceMetrics(this.operations.requests));
    app.use(openAPIRoutes(this.registry, this.crdController, () => this.aggregator.available.openAPIDocuments()));
    app.use(serviceAccountIssuerDiscovery(this.opts.authenticator?.serviceAccounts, () => this.address));
    app.use((req, res) => serveDiscovery(req, res, this.registry, this.aggregator, this.address));
    app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
      const e = err as { type?: string; limit?: number };
      if (e.type === 'entity.too.large') return writeError(res, newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`));
      if (e.type === 'request.aborted') return res.end();
      writeError(res, err);
    });
    return app;
  }

  /** The entry point of every request. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.startsWith('/api/') || path.startsWith('/apis/')) {
      let info: RequestInfo;
      let query: URLSearchParams;
      try {
        query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
        info = parseRequestInfo(req.method ?? 'GET', path, query);
      } catch (err) {
        writeError(res, err);
        return;
      }
      if (this.draining) {
        writeShuttingDown(res, isLongRunning(info));
        return;
      }
      if (info.isResourceRequest) {
        let user: UserInfo | undefined;
        if (this.opts.authenticator) {
          const found = this.authenticate(req);
          if (found instanceof Promise) {
            found.then((u) => (u ? this.serveAuthenticated(req, res, url, info, query, u) : writeError(res, newUnauthorized())), (err: unknown) => writeError(res, err));
            return;
          }
          if (!found) {
            writeError(res, newUnauthorized());
            return;
          }
          user = found;
        }
        this.serveAuthenticated(req, res, url, info, query, user);
        return;
      }
    }
    if (this.draining) {
      if (!servedWhileDraining(path)) return writeShuttingDown(res, false);
      res.shouldKeepAlive = false;
    }
    this.app(req, res);
  };

  /** A resource request past authentication (`user` unset when the server runs without it). */
  private serveAuthenticated(req: IncomingMessage, res: ServerResponse, url: string, info: RequestInfo, query: URLSearchParams, user: UserInfo | undefined): void {
    const def = this.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (user && this.guard?.checks(user, req)) {
      void this.serveGuarded(req, res, url, info, query, user, def);
      return;
    }
    if (user) requestUsers.set(req, user);
    void this.operations.serve(req, res, url, info, query, user?.groups, def, this.serveBound);
  }

  /** The request's user: its credentials', anonymous when it presents none and --anonymous-auth allows; null for 401. */
  private authenticate(req: IncomingMessage): UserInfo | null | Promise<UserInfo | null> {
    const auth = this.opts.authenticator!;
    if (auth.authenticateRequest) {
      const found = auth.authenticateRequest(req);
      return found instanceof Promise ? found.then((u) => this.orAnonymous(u)) : this.orAnonymous(found);
    }
    const user = authenticateRequest(auth, req);
    if (user) return user;
    return this.guard?.anonymous && !presentsCredentials(req) ? anonymousUser : null;
  }

  private orAnonymous(user: UserInfo | null | undefined): UserInfo | null {
    if (user) return user;
    return user === undefined && this.guard?.anonymous ? anonymousUser : null;
  }

  /** A resource request that impersonates or is not privileged: impersonation and authorization first (kube's filter order), then the limits and the handler. */
  private async serveGuarded(req: IncomingMessage, res: ServerResponse, url: string, info: RequestInfo, query: URLSearchParams, user: UserInfo, def: ResourceDefinition | undefined): Promise<void> {
    let acting: UserInfo;
    try {
      acting = await this.guard!.resource(req, user, info, query);
    } catch (err) {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      writeError(res, err);
      return;
    }
    requestUsers.set(req, acting);
    await this.operations.serve(req, res, url, info, query, acting.groups, def, this.serveBound);
  }

  private authenticateNonResource(req: Request, res: Response, next: NextFunction): void {
    if (!this.opts.authenticator) return next();
    const found = this.authenticate(req);
    if (found instanceof Promise) {
      found.then((user) => this.authorizeNonResource(req, res, next, user), (err: unknown) => writeError(res, err));
      return;
    }
    this.authorizeNonResource(req, res, next, found);
  }

  private authorizeNonResource(req: Request, res: Response, next: NextFunction, user: UserInfo | null): void {
    if (!user) return writeError(res, newUnauthorized());
    const withUser = req as Request & { user?: UserInfo };
    if (!this.guard!.checks(user, req)) {
      withUser.user = user;
      return next();
    }
    this.guard!.nonResource(req, user, req.method, req.path).then((acting) => {
      withUser.user = acting;
      next();
    }, (err: unknown) => {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      writeError(res, err);
    });
  }

  /** kube's named checks of each health endpoint, in kube's order. */
  private healthChecks(endpoint: 'healthz' | 'livez' | 'readyz'): HealthCheck[] {
    const storage = this.storage;
    const checks: HealthCheck[] = [
      { name: 'ping', check: () => undefined },
      { name: 'log', check: () => undefined },
      // kube's --etcd-healthcheck-timeout (2s) and --etcd-readycheck-timeout (2s).
      // The read gives up waiting for an unreachable etcd with the check, not --request-timeout later.
      { name: 'etcd', check: () => withTimeout(2000, () => storage.currentRevision({ waitMs: 2000 })) },
    ];
    if (endpoint === 'readyz') {
      checks.push({ name: 'etcd-readiness', check: () => withTimeout(2000, () => storage.currentRevision({ waitMs: 2000 })) });
      checks.push({ name: 'informer-sync', check: () => { if (this.cachedResources().some((r) => !r.cacher.live)) throw new Error('watch caches not synced'); } });
    }
    checks.push({ name: 'poststarthook/start-system-namespaces-controller', check: () => { if (!this.bootstrapped) throw new Error('not finished'); } });
    if (endpoint === 'readyz') checks.push({ name: 'shutdown', check: () => { if (this.operations.shuttingDown) throw new Error('process is shutting down'); } });
    return checks;
  }

  /** Each stored resource's definition and watch cache, one per cache. */
  private cachedResources(): { def: ResourceDefinition; cacher: Cacher }[] {
    const seen = new Set<Cacher>();
    const out: { def: ResourceDefinition; cacher: Cacher }[] = [];
    for (const store of this.stores.values()) {
      if (!store.cacher || seen.has(store.cacher)) continue;
      seen.add(store.cacher);
      out.push({ def: store.def, cacher: store.cacher });
    }
    return out;
  }

  private async serveResource(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams): Promise<void> {
    const gv = info.apiGroup ? `${info.apiGroup}/${info.apiVersion}` : info.apiVersion;
    if (!this.registry.resourcesIn(gv)) {
      const remote = info.apiGroup ? this.aggregator.remote(info.apiGroup, info.apiVersion) : undefined;
      if (remote) return this.aggregator.proxy(req, res, requestUsers.get(req) ?? anonymousUser, remote);
      // A served group at a version it lacks is kube's NotFound Status, as is any path under /api
      // (go-restful's web service owns it); an unknown group gets the plain 404 page.
      if ((info.apiGroup && this.registry.hasGroup(info.apiGroup)) || info.apiPrefix === 'api') throw notFoundStatus();
      return notFoundPage(res);
    }
    const def = this.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!def) throw notFoundStatus();
    // A cluster-scoped kind has no namespaced paths (a namespace's own path names it, not a namespace).
    if (!def.namespaced && info.namespace && def.resource !== 'namespaces') {
      if (def.customResource) return notFoundPage(res);
      throw notFoundStatus();
    }
    const negotiated: Negotiated = negotiate(req.headers.accept, { watch: info.verb === 'watch', userAgent: req.headers['user-agent'], pretty: query.get('pretty'), protobuf: !def.customResource });
    negotiatedErrors(res, negotiated);
    if (info.subresource) return this.serveSubresource(req, res, info, query, def, negotiated);
    if (!routedMethods.has(req.method ?? '')) throw newMethodNotAllowed();
    if (!def.verbs.includes(info.verb)) {
      // kube installs no route for a verb the storage lacks (go-restful's 405), except a watch of a
      // kind it lists, which its list handler refuses by name.
      if (info.verb === 'watch' && def.verbs.includes('list')) throw newMethodNotSupported({ group: def.group, resource: def.resource }, info.verb);
      throw newMethodNotAllowed();
    }
    // kube adds it to every route of a deprecated kind, before the handler runs (so errors carry it too).
    if (def.deprecation) addWarnings(res, [def.deprecation]);
    if (def.stored === false) {
      if (info.verb === 'create' && def.review) return this.serveReview(req, res, info, query, def, negotiated);
      refuseComputed(def, info);
    }
    // A namespaced object is addressed inside its namespace; only list and watch span all namespaces.
    if (def.namespaced && !info.namespace && info.verb !== 'list' && info.verb !== 'watch') {
      throw notFoundStatus();
    }
    // kube routes POST only to collections and PUT/PATCH only to objects.
    if ((info.verb === 'create' && info.name) || ((info.verb === 'update' || info.verb === 'patch') && !info.name)) throw newMethodNotAllowed();
    const body = verbsWithBody.has(info.verb) ? await readBody(req, res) : noBody;
    const scope = this.scope(req, res, info, query, def, negotiated, body);
    if (info.verb === 'watch') scope.watch = this.operations.watchHooks(def);
    switch (info.verb) {
      case 'get': return getResource(scope);
      case 'list': return listResource(scope);
      case 'watch': return watchResource(scope);
      case 'create': return createResource(scope);
      case 'update': return updateResource(scope);
      case 'patch': return patchResource(scope);
      case 'delete':
        if (def.resource === 'namespaces') {
          checkNamespaceDeletable(info.name);
          namespaceDeletionRequested(info.name);
        }
        await deleteResource(scope);
        if (def.resource === 'namespaces') this.namespaceController.enqueue(info.name);
        return;
      case 'deletecollection': return deleteCollection(scope);
      default: throw failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
    }
  }

  private scope(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, def: ResourceDefinition, negotiated: Negotiated, body: Buffer): RequestScope {
    const gzip = this.compression && acceptsGzip(req.headers['accept-encoding']);
    return { req, res, info, query, def, store: this.stores.get(def)!, negotiated, body, gzip, user: requestUsers.get(req) ?? systemUser };
  }

  /**
   * Subresources: those written as the whole object (status, approval, ephemeralcontainers)
   * go through the kind's Store with the subresource's strategy; scale through the kind's
   * ScaleDefinition. Any other gets kube's 404 or 405.
   */
  private async serveSubresource(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, def: ResourceDefinition, negotiated: Negotiated): Promise<void> {
    const sub = def.subresources?.find((r) => r.name === info.subresource);
    if (sub && servesConnect(def, sub.name, req.method ?? '')) return serveConnect(this.scope(req, res, info, query, def, negotiated, noBody), this.connect);
    // Other subresources are routes of exactly {name}/{subresource}, for these methods only.
    if (info.parts.length > 3) throw notFoundStatus();
    if (!routedMethods.has(req.method ?? '')) throw newMethodNotAllowed();
    if (sub && servesPodSubresource(def, sub.name, info.verb)) {
      const body = await readBody(req, res);
      return servePodSubresource(this.scope(req, res, info, query, def, negotiated, body));
    }
    if (sub && servesServiceAccountToken(def, sub.name, info.verb)) {
      const body = await readBody(req, res);
      return serveServiceAccountToken(this.scope(req, res, info, query, def, negotiated, body), this.opts.authenticator?.serviceAccounts);
    }
    const wholeObject = sub && (sub.name === 'status' || def.subresourceStrategies?.[sub.name] !== undefined);
    const scale = sub?.name === 'scale' && def.scale !== undefined;
    if (!sub && def.customResource) throw newNotFound({ group: def.group, resource: def.resource }, info.name);
    if (!sub || !(wholeObject || scale) || !sub.verbs.includes(info.verb) || !['get', 'update', 'patch'].includes(info.verb)) return refuseSubresource(def, info);
    const body = verbsWithBody.has(info.verb) ? await readBody(req, res) : noBody;
    const scope = this.scope(req, res, info, query, def, negotiated, body);
    if (scale) return serveScale(scope);
    switch (info.verb) {
      case 'get': return getResource(scope);
      case 'update': return updateResource(scope);
      default: return patchResource(scope);
    }
  }

  /** A computed resource's create: the request object answered with its status, nothing stored. */
  private serveReview(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, def: ResourceDefinition, negotiated: Negotiated): Promise<void> {
    return serveReview({ req, res, info, query, def, negotiated }, {
      authenticator: this.opts.authenticator, authorizer: this.ctx.authorizer,
      lookup: (group, resource) => this.admissionLookup(group, resource),
      rbacCaches: () => ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((r) => this.storeFor('rbac.authorization.k8s.io', 'v1', r)?.cacher),
    });
  }

  /** Creates the system namespaces kube-apiserver creates, and resumes pending namespace deletions. */
  async bootstrap(): Promise<void> {
    const namespaces = this.storeFor('', 'v1', 'namespaces')!;
    // Concurrent writes share the embedded store's transactions: a first start commits a few times, not hundreds.
    await Promise.all(systemNamespaces.map(async (name) => {
      try {
        await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
      } catch (err) {
        if ((err as { code?: number }).code !== 409) throw err;
      }
    }));
    await this.namespaceController.resync();
    const lookup = (group: string, resource: string) => this.admissionLookup(group, resource);
    await Promise.all([
      ...systemNamespaces.map((ns) => this.ensureDefaultServiceAccount(ns)),
      // kube's rbac/bootstrap-roles post-start hook: the default roles and bindings, missing ones only.
      ensureBootstrapPolicy(lookup),
      // Its scheduling and priority-and-fairness post-start hooks, and the default ServiceCIDR controller.
      ensureSystemPriorityClasses(lookup),
      ensureFlowControlBootstrap(lookup),
      ensureDefaultServiceCIDR(lookup, this.opts.services ?? defaultServiceRanges),
    ]);
    this.bootstrapped = true;
  }

  /** After the store was compacted to `revision`: caches drop older history and snapshots. */
  compacted(revision: number): void {
    for (const store of this.stores.values()) store.cacher?.compacted(revision);
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await this.bootstrap();
    await this.compactor.start();
    await Promise.all([...this.stores.values()].map((s) => s.cacher?.whenReady()));
    this.quotaController.start();
    this.garbageCollector.start();
    this.crdController.start();
    this.policyStatusController.start();
    this.tokenController?.start();
    // A response Node cannot hand to the socket at once makes it pause the connection's parser until
    // the socket drains; a client that read the whole answer and sent its next request first (kubectl
    // applying large CRDs does) has that request's bytes delivered to the paused parser anyway (a TLS
    // socket's pause does not stop what it already decrypted), which Node 20 treats as a parse error
    // and resets the connection. A socket write buffer as large as object answers get keeps a single
    // answer from pausing the parser; watches and lists still drain as before (it is a threshold, not
    // an allocation).
    // With client CAs, clients are asked for a certificate but not required to send one (Go's RequestClientCert):
    // the request authenticator reads the TLS layer's verdict.
    const clientCA = this.opts.authenticator?.tlsClientCAs ?? this.opts.authenticator?.clientCA;
    const clientAuth = clientCA ? { ca: clientCA, requestCert: true, rejectUnauthorized: false } : {};
    // kube's MaxHeaderBytes (1 MiB) rather than Node's 16 KiB: long label selectors fit in a URL.
    const maxHeaderSize = 1 << 20;
    const server = this.opts.tls ? https.createServer({ cert: this.opts.tls.cert, key: this.opts.tls.key, maxHeaderSize, ...clientAuth }, this.handle) : http.createServer({ maxHeaderSize }, this.handle);
    server.on(this.opts.tls ? 'secureConnection' : 'connection', (socket: Socket & { _writableState?: { highWaterMark: number } }) => {
      if (socket._writableState) socket._writableState.highWaterMark = answerBufferBytes;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Watches are long-lived: no socket timeout; keep-alive sockets are reused by clients.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    // kube-apiserver's IdleTimeout (90 s, Go's transport keeps idle connections as long). Node's
    // default of 5 s closes connections Go clients still reuse: a request sent as the server
    // closes is reset, and kubectl and client-go do not retry a PATCH or POST that was.
    server.keepAliveTimeout = 90_000;
    // Requests asking for a connection upgrade (exec, attach, portforward, proxied websockets) arrive here with their socket.
    server.on('upgrade', this.connect.upgradeListener(this.handle));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    this.address = `${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`;
    await this.ensureKubernetesService(addr.port);
    if (this.opts.controlPlane) {
      this.controlPlane = new ControlPlaneObjects(this.opts.controlPlane, {
        storage: this.storage, registryPrefix: this.opts.registryPrefix ?? '/registry', securePort: addr.port,
        lookup: (g, r) => this.admissionLookup(g, r), storeFor: (g, v, r) => this.storeFor(g, v, r),
        builtinGroupVersions: builtinGroupVersions(this.registry.all()), ensureService: () => this.ensureKubernetesService(addr.port),
      });
      this.controlPlane.start();
    }
    this.aggregator.available.start();
    return addr.port;
  }

  /**
   * What the policy type checker needs of the served kinds: a group version resource's kind, and
   * a kind's type (built-in kinds' OpenAPI definitions, custom resources' schemas).
   */
  private async policyTypes(): Promise<TypeResolver> {
    const schemas = await loadSchemas();
    const stores = [...this.stores.values()];
    return {
      kindsFor: (group, version, resource) => {
        const def = this.storeFor(group, version, resource)?.def;
        return def ? [{ group: def.group, version: def.version, kind: def.kind }] : [];
      },
      typeOf: (gvk) => {
        const def = stores.find((s) => s.def.group === gvk.group && s.def.version === gvk.version && s.def.kind === gvk.kind)?.def;
        if (!def) return undefined;
        if (def.customResource) return crdType(schemaOfDefinition(def) as Record<string, unknown> | undefined, gvk.kind);
        const definition = schemas.definitionFor(gvk);
        return definition ? openAPIType(schemas, definition, gvk.kind) : undefined;
      },
    };
  }

  private async ensureDefaultServiceAccount(namespace: string): Promise<void> {
    const accounts = this.admissionLookup('', 'serviceaccounts');
    if (!accounts || (await accounts.get(namespace, 'default'))) return;
    try {
      await accounts.create(namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }

  /**
   * kube's bootstrap controller: the `kubernetes` Service in `default` holds the first address
   * of the service range and points at the secure port. Any replica may create it; the others
   * find it there.
   */
  private async ensureKubernetesService(securePort: number): Promise<void> {
    const services = this.admissionLookup('', 'services');
    if (!services) return;
    // Replicas (and --workers) start together: another one's create may be under way, holding the
    // address before its Service is stored, so a refused create is retried until one exists.
    for (let attempt = 0; ; attempt++) {
      if (await services.get('default', 'kubernetes')) return;
      try {
        await services.create('default', kubernetesServiceObject(this.opts.services ?? defaultServiceRanges, securePort));
        return;
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * Graceful shutdown, as kube-apiserver on SIGTERM: readiness fails at once, requests are
   * still served for `delayMs` (--shutdown-delay-duration, so load balancers stop sending),
   * then the listener closes, every connection closes once its current answer is done and a
   * request still arriving on one is refused (filters/shutdown.ts), open watches end cleanly
   * (the client sees the stream end and resumes elsewhere), in-flight requests finish (up to
   * the request timeout), and the server closes.
   */
  async shutdown(delayMs = 0): Promise<void> {
    this.operations.shuttingDown = true;
    // kube's pre-shutdown hook: this replica leaves the `kubernetes` Endpoints while it still serves.
    const leaving = this.controlPlane?.leave();
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    this.draining = true;
    const server = this.server;
    if (server && !this.listenerClosed) this.listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server?.closeIdleConnections();
    closeAfterAnswers(this.sockets);
    this.operations.endWatches();
    await this.operations.drained(this.operations.requestTimeoutMs || 60_000);
    await leaving;
    await this.close();
  }

  async close(): Promise<void> {
    this.operations.stop();
    this.namespaceController.stop();
    this.quotaController.stop();
    this.garbageCollector.stop();
    this.controlPlane?.stop();
    this.aggregator.available.stop();
    this.crdController.stop();
    this.policyStatusController.stop();
    this.tokenController?.stop();
    this.compactor.stop();
    this.connect.close();
    for (const store of this.stores.values()) store.cacher?.stop();
    this.registryWatch.stop();
    const server = this.server;
    if (!server) return;
    if (this.listenerClosed) {
      server.closeAllConnections();
      await this.listenerClosed;
      return;
    }
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

const verbsWithBody = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const noBody = Buffer.alloc(0);
