/**
 * Where a webhook's service reference is reached. kube-apiserver dials the service (its ClusterIP,
 * or with --enable-aggregator-routing an endpoint, kube-aggregator's ResolveEndpoint). Windlass
 * runs outside any cluster network, so it resolves as aggregator routing does: the service port
 * named by number, then a ready address of the service's EndpointSlices (v1 Endpoints when it has
 * none, as no slice mirroring runs here) on the matching target port; with neither, the
 * ClusterIP, which is reachable only where the host routes it. ExternalName services resolve to
 * their external name.
 */
import { failure } from '@windlass/machinery';
import type { AdmissionLookup, KubeObject } from '../../registry/types.js';
import type { ResolvedAddress, ServiceResolver } from './client.js';

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;

interface ServicePort { name?: string; port: number; targetPort?: number | string; protocol?: string }
interface SlicePort { name?: string; port?: number; protocol?: string }
interface SliceEndpoint { addresses?: string[]; conditions?: { ready?: boolean } }

const unavailable = (message: string) => failure(503, 'ServiceUnavailable', message);

export function endpointServiceResolver(lookup: Lookup): ServiceResolver {
  return {
    async resolve(namespace, name, port): Promise<ResolvedAddress> {
      const svc = await lookup('', 'services')?.get(namespace, name);
      if (!svc) throw failure(404, 'NotFound', `service "${name}" not found`);
      const spec = (svc.spec ?? {}) as { type?: string; externalName?: string; clusterIP?: string; ports?: ServicePort[] };
      if (spec.type === 'ExternalName') return { host: spec.externalName ?? '', port };
      const svcPort = (spec.ports ?? []).find((p) => p.port === port);
      if (!svcPort) throw unavailable(`no service port ${port} found for service "${name}"`);
      const fromSlices = await sliceAddress(lookup, namespace, name, svcPort);
      if (fromSlices) return fromSlices;
      const fromEndpoints = await endpointsAddress(lookup, namespace, name, svcPort);
      if (fromEndpoints) return fromEndpoints;
      if (spec.clusterIP && spec.clusterIP !== 'None') return { host: spec.clusterIP, port };
      throw unavailable(`no endpoints available for service "${name}"`);
    },
  };
}

const pick = <T>(items: T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

async function sliceAddress(lookup: Lookup, namespace: string, service: string, svcPort: ServicePort): Promise<ResolvedAddress | undefined> {
  const slices = ((await lookup('discovery.k8s.io', 'endpointslices')?.list(namespace)) ?? [])
    .filter((s: KubeObject) => s.metadata.labels?.['kubernetes.io/service-name'] === service);
  const candidates: ResolvedAddress[] = [];
  for (const slice of slices) {
    const port = ((slice.ports ?? []) as SlicePort[]).find((p) => (p.name ?? '') === (svcPort.name ?? ''));
    if (port?.port === undefined) continue;
    for (const ep of (slice.endpoints ?? []) as SliceEndpoint[]) {
      if (ep.conditions?.ready === false) continue;
      for (const address of ep.addresses ?? []) candidates.push({ host: address, port: port.port });
    }
  }
  return pick(candidates);
}

async function endpointsAddress(lookup: Lookup, namespace: string, service: string, svcPort: ServicePort): Promise<ResolvedAddress | undefined> {
  const endpoints = await lookup('', 'endpoints')?.get(namespace, service);
  const candidates: ResolvedAddress[] = [];
  for (const subset of (endpoints?.subsets ?? []) as Array<{ addresses?: Array<{ ip: string }>; ports?: SlicePort[] }>) {
    const port = (subset.ports ?? []).find((p) => (p.name ?? '') === (svcPort.name ?? ''));
    if (port?.port === undefined) continue;
    for (const a of subset.addresses ?? []) candidates.push({ host: a.ip, port: port.port });
  }
  return pick(candidates);
}
