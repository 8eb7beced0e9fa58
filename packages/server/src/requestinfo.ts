/**
 * RequestInfo: what a request addresses, parsed from its path and method as
 * k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory does.
 */
import { goQuote, newBadRequest } from '@windlass/machinery';
import { boolParam } from './registry/queryparams.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const apiPrefixes = new Set(['api', 'apis']);
const namespaceSubresources = new Set(['status', 'finalize']);

const isWatchQuery = (query: URLSearchParams) => boolParam(query, 'watch') === true;

function segments(path: string): string[] {
  const parts = path.split('/');
  let n = 0;
  for (let i = 0; i < parts.length; i++) if (parts[i] !== '') parts[n++] = parts[i];
  parts.length = n;
  return parts;
}

/**
 * A path segment with its escapes decoded. A malformed escape (`%zz`) is refused as Go's HTTP
 * server refuses the request line (url.ParseRequestURI: 400, `invalid URL escape "%zz"`),
 * before any handler; decodeURIComponent's URIError would otherwise be a 500.
 */
function decode(p: string): string {
  if (!p.includes('%')) return p;
  try {
    return decodeURIComponent(p);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2}).{0,2}/.exec(p)?.[0];
    if (bad !== undefined) throw newBadRequest(`invalid URL escape ${goQuote(bad)}`);
  }
  // Well-formed escapes of bytes that are not UTF-8 (`%ff`): Go keeps the bytes.
  const bytes: number[] = [];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '%') {
      bytes.push(parseInt(p.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(p[i], 'latin1'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const verbOfMethod: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
  // As kube's RequestInfoFactory, which splits the decoded URL.Path: `%2F` separates segments too.
  const all = segments(decode(path));
  if (all.length < 3 || !apiPrefixes.has(all[0])) return info;
  info.apiPrefix = all[0];
  let i = 1;
  if (info.apiPrefix === 'apis') {
    if (all.length < 4) return info; // /apis/{group} and /apis/{group}/{version} are discovery
    info.apiGroup = all[i++];
  }
  info.apiVersion = all[i++];
  info.isResourceRequest = true;
  info.verb = verbOfMethod[method.toUpperCase()] ?? '';
  // The legacy /watch/ prefix makes a watch of whatever follows, including a single object.
  if (all[i] === 'watch' && info.verb === 'get') {
    info.verb = 'watch';
    i++;
  }
  if (all[i] === 'namespaces' && all.length - i > 1) {
    info.namespace = all[i + 1];
    // /namespaces/{name} and /namespaces/{name}/{status|finalize} address the namespace itself.
    if (all.length - i > 2 && !namespaceSubresources.has(all[i + 2])) i += 2;
  }
  const parts: string[] = [];
  for (; i < all.length; i++) parts.push(all[i]);
  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];

  // A namespace object is addressed as /api/v1/namespaces/{name}; it has no namespace itself.
  if (info.resource === 'namespaces') info.namespace = '';

  if (info.name === '' && info.verb === 'get') info.verb = isWatchQuery(query) ? 'watch' : 'list';
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
