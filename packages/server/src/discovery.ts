/**
 * Legacy discovery documents: /api, /apis, /apis/{group}, /api/v1, /apis/{group}/{version},
 * and /version. Aggregated discovery (one document for /api, one for /apis) is in
 * aggregateddiscovery.ts; both read the same registry.
 */
import type { APIRegistry } from './registry/index.js';
import type { ResourceDefinition } from './registry/types.js';

export const serverVersion = {
  major: '1',
  minor: '35',
  emulationMajor: '1',
  emulationMinor: '35',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '34',
  gitVersion: 'v1.35.0-windlass.0.1.0',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '2026-11-21T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsc',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

export function apiVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(registry: APIRegistry, group: string) {
  const versions = (registry.versionsOf(group) ?? []).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(registry: APIRegistry): unknown {
  const groups = registry.groupNames().filter((g) => g !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => groupEntry(registry, g)) };
}

export function apiGroup(registry: APIRegistry, group: string): unknown | undefined {
  if (group === '' || !registry.hasGroup(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(registry, group) };
}

/** The resource's APIResource, then one per subresource (`pods/status`), as kube lists them. */
export function resourceEntries(d: ResourceDefinition): Record<string, unknown>[] {
  const e: Record<string, unknown> = { name: d.resource, singularName: d.singularName, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs };
  if (d.shortNames?.length) e.shortNames = d.shortNames;
  if (d.categories?.length) e.categories = d.categories;
  if (d.storageVersionHash) e.storageVersionHash = d.storageVersionHash;
  const entries = [e];
  for (const s of d.subresources ?? []) {
    const sub: Record<string, unknown> = { name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced };
    if (s.group !== undefined) sub.group = s.group;
    if (s.version !== undefined) sub.version = s.version;
    sub.kind = s.kind;
    sub.verbs = s.verbs;
    entries.push(sub);
  }
  return entries;
}

export function apiResourceList(registry: APIRegistry, gv: string): unknown | undefined {
  const defs = registry.resourcesIn(gv);
  if (!defs) return undefined;
  const list: Record<string, unknown> = { kind: 'APIResourceList' };
  // kube's core list carries no apiVersion; group lists do.
  if (gv.includes('/')) list.apiVersion = 'v1';
  list.groupVersion = gv;
  list.resources = defs.flatMap(resourceEntries);
  return list;
}
