/**
 * RequestInfo: what a request addresses, parsed from its path and method as
 * k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory does.
 */

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

function isWatchQuery(query: URLSearchParams): boolean {
  const w = query.get('watch');
  if (w === null) return false;
  // kube's query decoding treats "", "1", "true" (any case) as true for watch.
  return w === '' || w === '1' || w.toLowerCase() === 'true';
}

function segments(path: string): string[] {
  const parts = path.split('/');
  let n = 0;
  for (let i = 0; i < parts.length; i++) if (parts[i] !== '') parts[n++] = parts[i];
  parts.length = n;
  return parts;
}

function decode(p: string): string {
  return p.includes('%') ? decodeURIComponent(p) : p;
}

const verbOfMethod: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
  const all = segments(path);
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
    info.namespace = decode(all[i + 1]);
    // /namespaces/{name} and /namespaces/{name}/{status|finalize} address the namespace itself.
    if (all.length - i > 2 && !namespaceSubresources.has(all[i + 2])) i += 2;
  }
  const parts: string[] = [];
  for (; i < all.length; i++) parts.push(decode(all[i]));
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
