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

export function parseRequestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const path = rawPath;
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
  let parts = path.replace(/^\/+|\/+$/g, '').split('/').filter((p) => p !== '');
  if (parts.length < 3 || !apiPrefixes.has(parts[0])) return info;
  info.apiPrefix = parts[0];
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 3) return info; // /apis/{group} and /apis/{group}/{version} are discovery
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  info.isResourceRequest = true;

  switch (method.toUpperCase()) {
    case 'POST': info.verb = 'create'; break;
    case 'GET': case 'HEAD': info.verb = 'get'; break;
    case 'PUT': info.verb = 'update'; break;
    case 'PATCH': info.verb = 'patch'; break;
    case 'DELETE': info.verb = 'delete'; break;
    default: info.verb = '';
  }
  // The legacy /watch/ prefix makes a watch of whatever follows, including a single object.
  if (parts[0] === 'watch' && info.verb === 'get') {
    info.verb = 'watch';
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = decodeURIComponent(parts[1]);
      // /namespaces/{name} and /namespaces/{name}/{status|finalize} address the namespace itself.
      if (parts.length > 2 && !namespaceSubresources.has(parts[2])) parts = parts.slice(2);
    }
  }
  info.parts = parts.map((p) => decodeURIComponent(p));
  if (info.parts.length >= 3) info.subresource = info.parts[2];
  if (info.parts.length >= 2) info.name = info.parts[1];
  if (info.parts.length >= 1) info.resource = info.parts[0];

  // A namespace object is addressed as /api/v1/namespaces/{name}; it has no namespace itself.
  if (info.resource === 'namespaces') info.namespace = '';

  if (info.name === '' && info.verb === 'get') info.verb = isWatchQuery(query) ? 'watch' : 'list';
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
