/**
 * The groups of remote APIServices in this server's discovery documents, as kube-aggregator
 * merges them: /apis lists every group an APIService names (available or not) in
 * SortedByGroupAndVersion order, /apis/<group> lists its versions, and the aggregated document
 * carries each version's resources as its backend last listed them (converted from the legacy
 * APIResourceList as kube's ConvertGroupVersionIntoToDiscovery does), `Stale` when the last
 * check did not reach it. Groups this server serves itself are left as they are.
 */
import { sortedByGroupAndVersion, type APIServiceInfo } from './apiservice.js';
import type { RemoteDiscovery } from './available.js';

export interface RemoteGroup {
  name: string;
  /** In kube's order, preferred first. */
  versions: APIServiceInfo[];
}

/** The groups of `all` that only remote APIServices serve, placed among `local` by kube's order; `local` keeps its order. */
export function mergedGroupOrder(all: APIServiceInfo[], local: string[]): (string | RemoteGroup)[] {
  const served = new Set(local);
  const sorted = sortedByGroupAndVersion(all.filter((s) => s.group !== ''));
  const out: (string | RemoteGroup)[] = [...local];
  for (let i = 0; i < sorted.length; i++) {
    const versions = sorted[i];
    const name = versions[0].group;
    if (served.has(name) || !versions.some((s) => s.service)) continue;
    const remote: RemoteGroup = { name, versions: versions.filter((s) => s.service) };
    // Before the first group kube sorts after it that is listed already.
    const next = sorted.slice(i + 1).map((g) => g[0].group).find((g) => served.has(g));
    const at = next === undefined ? -1 : out.findIndex((g) => g === next);
    if (at < 0) out.push(remote);
    else out.splice(at, 0, remote);
  }
  return out;
}

/** convertToDiscoveryAPIGroup. */
export function remoteAPIGroup(g: RemoteGroup): { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } } {
  const versions = g.versions.map((s) => ({ groupVersion: `${s.group}/${s.version}`, version: s.version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

interface LegacyResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** kube's ConvertGroupVersionIntoToDiscovery: resources, then their subresources under them. */
export function convertToDiscovery(list: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const parents = new Map<string, Record<string, unknown>>();
  const scopeOf = (r: LegacyResource) => (r.namespaced ? 'Namespaced' : 'Cluster');
  for (const r of list as LegacyResource[]) {
    if (!r.name || r.name.includes('/')) continue;
    const d: Record<string, unknown> = { resource: r.name, responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' }, scope: scopeOf(r) };
    if (r.singularName) d.singularResource = r.singularName;
    d.verbs = r.verbs ?? [];
    if (r.shortNames?.length) d.shortNames = r.shortNames;
    if (r.categories?.length) d.categories = r.categories;
    out.push(d);
    parents.set(r.name, d);
  }
  for (const r of list as LegacyResource[]) {
    const slash = r.name?.indexOf('/') ?? -1;
    if (!r.name || slash < 0) continue;
    const parentName = r.name.slice(0, slash);
    let parent = parents.get(parentName);
    if (!parent) {
      parent = { resource: parentName, scope: scopeOf(r), verbs: [] };
      out.push(parent);
      parents.set(parentName, parent);
    }
    if (parent.scope !== scopeOf(r)) continue;
    const sub: Record<string, unknown> = { subresource: r.name.slice(slash + 1) };
    sub.responseKind = r.kind ? { group: r.group ?? '', version: r.version ?? '', kind: r.kind } : { group: '', version: '', kind: '' };
    sub.verbs = r.verbs ?? [];
    ((parent.subresources ??= []) as unknown[]).push(sub);
  }
  return out;
}

/** A remote group's entry of the aggregated (apidiscovery.k8s.io/v2) document. */
export function remoteGroupDiscovery(g: RemoteGroup, discoveryOf: (name: string) => RemoteDiscovery | undefined): Record<string, unknown> {
  return {
    metadata: { name: g.name, creationTimestamp: null },
    versions: g.versions.map((s) => {
      const d = discoveryOf(s.name);
      const v: Record<string, unknown> = { version: s.version };
      if (d && d.resources.length > 0) v.resources = convertToDiscovery(d.resources);
      v.freshness = d?.fresh ? 'Current' : 'Stale';
      return v;
    }),
  };
}
