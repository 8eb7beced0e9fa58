/** Which extracted paths belong to which served resource and to which OpenAPI v3 document. */
import type { Schemas } from './definitions.js';
import type { ServedResource } from './types.js';

interface ParsedPath {
  /** `api/v1` or `apis/<group>/<version>`. */
  prefix: string;
  resource: string;
}

export function parseResourcePath(path: string): ParsedPath | undefined {
  const m = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/(.*)$/.exec(path);
  if (!m) return undefined;
  let segs = m[2].split('/').filter(Boolean);
  if (segs[0] === 'watch') segs = segs.slice(1);
  if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
  if (segs.length === 0) return undefined;
  return { prefix: m[1], resource: segs[0] };
}

/** `v1` → `api/v1`, `apps/v1` → `apis/apps/v1`; keys such as `api`, `apis`, `version` pass through. */
export function v3Key(groupVersion: string): string {
  if (/^(api|apis|version)(\/|$)/.test(groupVersion)) return groupVersion.replace(/\/$/, '');
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

/** The OpenAPI v3 document a path belongs to: its first segments up to the version. */
export function v3KeyOfPath(path: string): string {
  const segs = path.split('/').filter(Boolean);
  if (segs[0] === 'api') return segs.slice(0, 2).join('/');
  if (segs[0] === 'apis') return segs.slice(0, 3).join('/');
  return segs[0] ?? '';
}

const prefixOf = (r: ServedResource) => (r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`);

/** Extracted paths for the served resources, plus the discovery paths of their groups. */
export function servedPaths(schemas: Schemas, served: readonly ServedResource[]): string[] {
  const prefixes = new Set(served.map(prefixOf));
  const groups = new Set(served.filter((r) => r.group !== '').map((r) => `/apis/${r.group}/`));
  return Object.keys(schemas.data.paths).filter((p) => {
    if (p === '/apis/' || p === '/version/') return true;
    if (p === '/api/') return served.some((r) => r.group === '');
    if (groups.has(p)) return true;
    if (p.endsWith('/') && prefixes.has(p.slice(1, -1))) return true;
    const parsed = parseResourcePath(p);
    return !!parsed && served.some((r) => prefixOf(r) === parsed.prefix && r.resource === parsed.resource);
  });
}
