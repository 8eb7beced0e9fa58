/**
 * Aggregated discovery (apidiscovery.k8s.io/v2): every group, version, resource and
 * subresource of /api or /apis in one document, which kubectl and client-go ask for first
 * (`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`) instead of
 * one request per group version. Answered with a Content-Type carrying the same parameters.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { protobufMediaType } from '@windlass/machinery';
import type { APIRegistry } from './registry/index.js';
import type { ResourceDefinition } from './registry/types.js';

export const aggregatedDiscoveryMediaType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const aggregatedDiscoveryProtobufType = `${protobufMediaType};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`;

/**
 * The media type of the v2 aggregated document the Accept header asks for first (as JSON or
 * protobuf), or undefined when it asks for none (kubectl lists fallbacks after it).
 */
export function aggregatedDiscoveryType(accept: string | undefined): string | undefined {
  if (!accept || !accept.includes('APIGroupDiscoveryList')) return undefined;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    if (type !== 'application/json' && type !== '*/*' && type !== protobufMediaType) continue;
    const p = new Map(params.map((kv) => {
      const eq = kv.indexOf('=');
      return [kv.slice(0, eq).trim(), kv.slice(eq + 1).trim()] as [string, string];
    }));
    if (p.get('g') === 'apidiscovery.k8s.io' && p.get('v') === 'v2' && p.get('as') === 'APIGroupDiscoveryList') {
      return type === protobufMediaType ? aggregatedDiscoveryProtobufType : aggregatedDiscoveryMediaType;
    }
  }
  return undefined;
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

/** kube's calculateETag: SHA-512 of the document's JSON in upper-case hex, quoted as an ETag. */
export function discoveryETag(doc: unknown): string {
  return `"${createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase()}"`;
}

/**
 * Answers with the aggregated document as kube's ServeHTTPWithETag: ETag, `Vary: Accept` and
 * `Cache-Control: public` (replacing the server's "no-cache, private") on every answer, and
 * 304 without a body when If-None-Match is exactly that ETag (client-go's discovery cache).
 */
export function writeAggregatedDiscovery(req: IncomingMessage, res: ServerResponse, doc: unknown, body: string | Buffer, mediaType = aggregatedDiscoveryMediaType): void {
  const etag = discoveryETag(doc);
  const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(200, { ...headers, 'Content-Type': mediaType, 'Content-Length': bytes.length });
  res.end(bytes);
}
