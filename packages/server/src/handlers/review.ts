/**
 * The review kinds (SubjectAccessReview and friends, TokenReview, SelfSubjectReview): a create
 * that stores nothing and answers the review, as kube's review registries do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cacher } from '../cacher/cacher.js';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import { managerOrUserAgent } from '../fieldmanager/managedfields.js';
import type { Authenticator } from '../filters/authentication.js';
import { requestUsers } from '../filters/authentication.js';
import type { Negotiated } from '../negotiation.js';
import { systemUser } from '../registry/store.js';
import type { ResourceDefinition, StoreContext } from '../registry/types.js';
import type { RequestInfo } from '../requestinfo.js';
import { readBody } from '../requestbody.js';
import { writeObject } from '../respond.js';
import { decodeObjectBody } from './body.js';
import { parseModifyOptions } from './options.js';
import { decodeTyped, typedDecoder } from './typed.js';

export interface ReviewRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  def: ResourceDefinition;
  negotiated: Negotiated;
}

export interface ReviewServer {
  authenticator?: Authenticator;
  authorizer: StoreContext['authorizer'];
  lookup: StoreContext['lookup'];
  /** The four RBAC resources' watch caches. */
  rbacCaches(): (Cacher | undefined)[];
}

export async function serveReview({ req, res, info, query, def, negotiated }: ReviewRequest, server: ReviewServer): Promise<void> {
  const opts = parseModifyOptions(query, 'CreateOptions');
  const obj = decodeObjectBody(await readBody(req, res), req.headers['content-type'], def);
  decodeTyped(await typedDecoder(def), obj, def, opts.fieldValidation, res);
  // kube's create handler records the request's fields before the review answers it.
  (await fieldManagerFor(def))?.update(undefined, obj, managerOrUserAgent(opts.fieldManager, req.headers['user-agent']), '');
  // Access reviews answer from the RBAC caches: they first catch up with every write acknowledged
  // before the review (a binding created just before is counted, as a consistent read would).
  if (def.group === 'authorization.k8s.io') await cachesFresh(server.rbacCaches());
  const auth = server.authenticator;
  const answer = await def.review!(obj, {
    user: requestUsers.get(req) ?? systemUser, namespace: info.namespace,
    authenticate: auth ? (token) => auth.authenticate(`Bearer ${token}`) : undefined,
    reviewToken: auth?.reviewToken ? (token, audiences) => auth.reviewToken!(token, audiences) : undefined,
    lookup: server.lookup,
    authorizer: server.authorizer,
  });
  writeObject(res, 201, answer, negotiated);
}

async function cachesFresh(cachers: (Cacher | undefined)[]): Promise<void> {
  await Promise.all(cachers.map(async (cacher) => {
    const revision = await cacher?.consistentRevision();
    // A cache that cannot catch up in time answers as it is, as the request path's authorizer does.
    if (cacher && revision) await cacher.waitUntilFresh(revision).catch(() => undefined);
  }));
}
