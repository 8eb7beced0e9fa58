/**
 * Aggregated discovery (apidiscovery.k8s.io/v2): every group, version, resource and
 * subresource of /api or /apis in one document, which kubectl and client-go ask for first
 * (`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`) instead of
 * one request per group version. Answered with a Content-Type carrying the same parameters.
 */
import type { APIRegistry } from './registry/index.js';
import type { ResourceDefinition } from './registry/types.js';

export const aggregatedDiscoveryMediaType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** True when the Accept header asks for the v2 aggregated document as JSON (in any position: kubectl lists fallbacks after it). */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept || !accept.includes('APIGroupDiscoveryList')) return false;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    if (type !== 'application/json' && type !== '*/*') continue;
    const p = new Map(params.map((kv) => {
      const eq = kv.indexOf('=');
      return [kv.slice(0, eq).trim(), kv.slice(eq + 1).trim()] as [string, string];
    }));
    if (p.get('g') === 'apidiscovery.k8s.io' && p.get('v') === 'v2' && p.get('as') === 'APIGroupDiscoveryList') return true;
  }
  return false;
}

const emptyKind = (kind: string) => ({ group: '', version: '', kind });

function resourceDiscovery(d: ResourceDefinition): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: d.resource,
    responseKind: emptyKind(d.kind),
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singularName,
    verbs: d.verbs,
  };
  if (d.shortNames?.length) r.shortNames = d.shortNames;
  if (d.categories?.length) r.categories = d.categories;
  if (d.subresources?.length) {
    r.subresources = d.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind },
      verbs: s.verbs,
    }));
  }
  return r;
}

function groupDiscovery(registry: APIRegistry, group: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null };
  const versions = (registry.versionsOf(group) ?? []).map((version) => ({
    version,
    resources: (registry.resourcesIn(group ? `${group}/${version}` : version) ?? []).map(resourceDiscovery),
    freshness: 'Current',
  }));
  return { metadata, versions };
}

/** The APIGroupDiscoveryList of /api (legacy = true: the core group) or /apis (every other group). */
export function aggregatedDiscovery(registry: APIRegistry, legacy: boolean): unknown {
  const groups = registry.groupNames().filter((g) => (g === '') === legacy);
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: groups.map((g) => groupDiscovery(registry, g)) };
}
