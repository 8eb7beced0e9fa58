/**
 * The aggregation layer (kube-aggregator) in front of this server's own APIs: APIServices that
 * name a Service are proxied to (proxy.ts), checked for availability (available.ts), and listed
 * in discovery (discovery.ts). Services resolve as kube does with --enable-aggregator-routing:
 * a ready endpoint of the service, an ExternalName's name, else the ClusterIP (Windlass runs
 * outside any cluster network; see admission/webhook/serviceresolver.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceResolver } from '../admission/webhook/client.js';
import { endpointServiceResolver } from '../admission/webhook/serviceresolver.js';
import type { Store } from '../registry/store.js';
import type { AdmissionLookup, UserInfo } from '../registry/types.js';
import { apiServiceInfo, sortedByGroupAndVersion, type APIServiceInfo } from './apiservice.js';
import { AvailableConditionController, cachedAPIServices } from './available.js';
import { mergedGroupOrder, remoteAPIGroup, remoteGroupDiscovery } from './discovery.js';
import { proxyToAPIService } from './proxy.js';
import type { ProxyClientCredentials } from './transport.js';

export type { ProxyClientCredentials } from './transport.js';

export interface AggregatorOptions {
  storeFor: (group: string, version: string, resource: string) => Store | undefined;
  lookup: (group: string, resource: string) => AdmissionLookup | undefined;
  /** The front-proxy client certificate presented to backends. */
  credentials?: ProxyClientCredentials;
  /** How often every APIService is checked again (kube: 30 s). */
  resyncMs?: number;
}

type Named = { name?: string };

export class Aggregator {
  readonly resolver: ServiceResolver;
  readonly available: AvailableConditionController;

  constructor(private readonly o: AggregatorOptions) {
    this.resolver = endpointServiceResolver(o.lookup);
    this.available = new AvailableConditionController({
      apiServices: () => this.apiServices(),
      watched: () => [o.storeFor('', 'v1', 'services'), o.storeFor('discovery.k8s.io', 'v1', 'endpointslices')],
      lookup: o.lookup, resolver: this.resolver, credentials: o.credentials, resyncMs: o.resyncMs,
    });
  }

  private apiServices(): Store | undefined {
    return this.o.storeFor('apiregistration.k8s.io', 'v1', 'apiservices');
  }

  /** The APIService that sends `group/version` to a Service, from the watch cache. */
  remote(group: string, version: string): APIServiceInfo | undefined {
    const store = this.apiServices();
    if (!store?.cacher || group === '') return undefined;
    const cached = store.cacher.cache.tree.get(store.objectKey('', `${version}.${group}`));
    if (!cached) return undefined;
    const info = apiServiceInfo(cached.object);
    return info.service ? info : undefined;
  }

  proxy(req: IncomingMessage, res: ServerResponse, user: UserInfo, apiService: APIServiceInfo): Promise<void> {
    return proxyToAPIService(req, res, user, { apiService, resolver: this.resolver, credentials: this.o.credentials });
  }

  /** An /apis APIGroupList with the remote groups placed among the local ones. */
  mergeGroupList(list: unknown): unknown {
    const doc = list as { groups: Named[] };
    const local = new Map(doc.groups.map((g) => [g.name ?? '', g]));
    doc.groups = mergedGroupOrder(cachedAPIServices(this.apiServices()), [...local.keys()])
      .map((g) => (typeof g === 'string' ? local.get(g)! : remoteAPIGroup(g)));
    return doc;
  }

  /** The aggregated /apis document with the remote groups placed among the local ones. */
  mergeAggregated(list: unknown): unknown {
    const doc = list as { items: { metadata: Named }[] };
    const local = new Map(doc.items.map((g) => [g.metadata.name ?? '', g]));
    doc.items = mergedGroupOrder(cachedAPIServices(this.apiServices()), [...local.keys()])
      .map((g) => (typeof g === 'string' ? local.get(g)! : remoteGroupDiscovery(g, (name) => this.available.discoveryOf(name)) as { metadata: Named }));
    return doc;
  }

  /** /apis/<group> of a group only remote APIServices serve. */
  remoteGroup(group: string): Record<string, unknown> | undefined {
    const [versions] = sortedByGroupAndVersion(cachedAPIServices(this.apiServices()).filter((s) => s.group === group && s.service));
    return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...remoteAPIGroup({ name: group, versions }) } : undefined;
  }
}
