/**
 * The discovery documents and /version, outside the resource hot path: the legacy and
 * aggregated discovery of every served group, merged with the aggregated APIServices'.
 */
import type { Request, Response } from 'express';
import { failure, newMethodNotAllowed, protobufMediaType } from '@windlass/machinery';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion } from './discovery.js';
import { aggregatedDiscovery, aggregatedDiscoveryType, writeAggregatedDiscovery } from './aggregateddiscovery.js';
import type { Aggregator } from './aggregator/index.js';
import { anonymousUser } from './filters/authorization.js';
import { negotiate, type Negotiated } from './negotiation.js';
import type { APIRegistry } from './registry/index.js';
import type { UserInfo } from './registry/types.js';
import { encodeBody, notFoundPage, writeError, writeObject } from './respond.js';

/** go-restful's answer for a path under its web services that no route matches. */
export const notFoundStatus = () => failure(404, 'NotFound', 'the server could not find the requested resource', {});

/**
 * Discovery and /version, routed as kube-apiserver 1.35's handlers are: /apis, /apis/ and
 * /apis/<group>[/] on kube-aggregator's path mux answer every method; /api[/<version>],
 * /apis/<group>/<version> and /version are go-restful web services with one GET route, so
 * another method (HEAD included) is go-restful's 405 as a Status, and a path under them
 * that no route matches is its 404 Status. Anything else is the plain 404 page.
 */
export function serveDiscovery(req: Request, res: Response, registry: APIRegistry, aggregator: Aggregator, address: string): void {
  // kube's WithCacheControl, for every answer that does not choose its own caching.
  res.setHeader('Cache-Control', 'no-cache, private');
  const pretty = typeof req.query.pretty === 'string' ? req.query.pretty : null;
  const path = req.path;
  const parts = path.split('/').filter(Boolean);
  const get = req.method === 'GET';
  const aggregated = path === '/apis' || ((path === '/api' || path === '/api/') && get) ? aggregatedDiscoveryType(req.headers.accept) : undefined;
  if (aggregated) {
    const { pretty: p } = negotiate(undefined, { userAgent: req.headers['user-agent'], pretty });
    const local = aggregatedDiscovery(registry, parts[0] === 'api');
    const doc = parts[0] === 'api' ? local : aggregator.mergeAggregated(local);
    const mediaType = aggregated.startsWith(protobufMediaType) ? protobufMediaType : 'application/json';
    return writeAggregatedDiscovery(req, res, doc, encodeBody(doc, { mediaType, pretty: p }), aggregated);
  }
  let doc: unknown;
  let restful = false;
  if (parts[0] === 'version' && parts.length === 1) {
    if (!get) return writeError(res, newMethodNotAllowed());
    return writeObject(res, 200, serverVersion, { mediaType: 'application/json', pretty: true });
  }
  if (parts[0] === 'api') {
    // go-restful's /api and /api/<version> web services own every path under /api.
    restful = true;
    if (parts.length === 1) doc = apiVersions(address);
    else if (parts.length === 2) doc = apiResourceList(registry, parts[1]);
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) doc = aggregator.mergeGroupList(apiGroupList(registry));
    else if (parts.length === 2) doc = apiGroup(registry, parts[1]) ?? aggregator.remoteGroup(parts[1]);
    else if (registry.hasGroup(parts[1])) {
      restful = true;
      if (parts.length === 3) doc = apiResourceList(registry, `${parts[1]}/${parts[2]}`);
    } else if (parts.length === 3) {
      // A remote APIService's group version: its discovery document is its server's.
      const remote = aggregator.remote(parts[1], parts[2]);
      if (remote) {
        void aggregator.proxy(req, res, (req as Request & { user?: UserInfo }).user ?? anonymousUser, remote);
        return;
      }
    }
  }
  if (doc === undefined) return restful ? writeError(res, notFoundStatus()) : notFoundPage(res);
  if (restful && !get) return writeError(res, newMethodNotAllowed());
  let n: Negotiated;
  try {
    n = negotiate(req.headers.accept, { userAgent: req.headers['user-agent'], pretty, protobuf: true });
  } catch (err) {
    return writeError(res, err);
  }
  writeObject(res, 200, doc, n);
}
