/**
 * kube's authorization filter (k8s.io/apiserver endpoints/filters/authorization.go) and what
 * runs before it on the request path: anonymous authentication and impersonation. A request's
 * authorizer.Attributes come from its RequestInfo (resource requests) or its method and path
 * (non-resource requests); a request the chain does not allow is answered 403 with kube's
 * Status (responsewriters.ForbiddenStatusError).
 */
import type { IncomingMessage } from 'node:http';
import { failure, goQuote, parseFieldSelector, type StatusDetails, type StatusError } from '@windlass/machinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS, parseBearerToken } from '@windlass/auth';
import type { Attributes, ChainAuthorizer, UserInfo } from '../rbac/index.js';
import { systemPrivilegedGroup } from '../rbac/types.js';
import type { RequestInfo } from '../requestinfo.js';
import { hasImpersonationHeaders, impersonate } from './impersonation.js';

/** The user of a request without credentials, when --anonymous-auth allows it (kube's anonymous authenticator). */
export const anonymousUser: UserInfo = Object.freeze({ name: ANONYMOUS, uid: '', groups: Object.freeze([ALL_UNAUTHENTICATED]) as string[] });

/**
 * Whether the request presents credentials: a bearer token kube's authenticator would read. A
 * request that presents none is anonymous (when allowed); one whose credentials fail is 401,
 * never anonymous (kube's union.NewFailOnError around the anonymous authenticator).
 */
export function presentsCredentials(req: IncomingMessage): boolean {
  return parseBearerToken(req.headers.authorization).token !== null;
}

/** path.IsValidPathSegmentName: what may stand in a URL path segment as an object's name. */
const validPathSegmentName = (name: string) => name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');

/**
 * A list or watch selecting one object by `metadata.name` is authorized as that name, as kube's
 * RequestInfoFactory sets it (so `resourceNames` rules allow `kubectl get pod x --watch`).
 */
function selectedName(info: RequestInfo, query: URLSearchParams): string {
  if (info.name || (info.verb !== 'list' && info.verb !== 'watch')) return info.name;
  const raw = query.get('fieldSelector');
  if (!raw) return '';
  try {
    const name = parseFieldSelector(raw).requiresExactMatch('metadata.name');
    return name !== undefined && validPathSegmentName(name) ? name : '';
  } catch {
    return '';
  }
}

/** filters.GetAuthorizerAttributes of a resource request. */
export function resourceAttributes(user: UserInfo, info: RequestInfo, query: URLSearchParams): Attributes {
  return {
    user, verb: info.verb, resourceRequest: true, path: info.path, apiGroup: info.apiGroup, apiVersion: info.apiVersion,
    resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: selectedName(info, query),
  };
}

/** Of a non-resource request: its path and its method, lowercased, as the verb. */
export function nonResourceAttributes(user: UserInfo, method: string, path: string): Attributes {
  return { user, verb: method.toLowerCase(), resourceRequest: false, path };
}

/** kube keeps authorization messages from looking like HTML. */
const sanitize = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function forbiddenMessage(a: Attributes): string {
  const who = goQuote(a.user.name);
  if (!a.resourceRequest) return `User ${who} cannot ${a.verb} path ${goQuote(a.path ?? '')}`;
  const resource = a.subresource ? `${a.resource ?? ''}/${a.subresource}` : (a.resource ?? '');
  const scope = a.namespace ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope';
  return `User ${who} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup ?? '')} ${scope}`;
}

/**
 * responsewriters.ForbiddenStatusError: apierrors.NewForbidden of the request's group and
 * resource (none for a non-resource path) and name, the reason after the message when given.
 */
export function forbidden(a: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  const err = reason ? `${msg}: ${reason}` : msg;
  const group = a.resourceRequest ? (a.apiGroup ?? '') : '';
  const resource = a.resourceRequest ? (a.resource ?? '') : '';
  const name = a.resourceRequest ? (a.name ?? '') : '';
  const qualified = group ? `${resource}.${group}` : resource;
  const message = !group && !resource ? `forbidden: ${err}` : name ? `${qualified} ${goQuote(name)} is forbidden: ${err}` : `${qualified} is forbidden: ${err}`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return failure(403, 'Forbidden', message, details);
}

export interface RequestGuardOptions {
  authorizer: ChainAuthorizer;
  /** kube's --anonymous-auth: requests without credentials are system:anonymous rather than 401. */
  anonymous: boolean;
}

/**
 * Impersonation and authorization of one server's requests. A member of system:masters (or,
 * under AlwaysAllow, anyone) not impersonating is allowed without looking: `checks` says when
 * the request path must call in at all, so the admin's requests cost one group scan.
 */
export class RequestGuard {
  readonly authorizer: ChainAuthorizer;
  readonly anonymous: boolean;

  constructor(opts: RequestGuardOptions) {
    this.authorizer = opts.authorizer;
    this.anonymous = opts.anonymous;
  }

  /** Whether the request needs impersonation or an authorization decision. */
  checks(user: UserInfo, req: IncomingMessage): boolean {
    if (hasImpersonationHeaders(req)) return true;
    return !this.authorizer.allowsEverything && !user.groups.includes(systemPrivilegedGroup);
  }

  /** The user the request acts as (impersonation applied), once it is authorized; throws kube's 400 or 403 Status. */
  async resource(req: IncomingMessage, user: UserInfo, info: RequestInfo, query: URLSearchParams): Promise<UserInfo> {
    const acting = await impersonate(this.authorizer, user, req);
    await this.authorize(resourceAttributes(acting, info, query));
    return acting;
  }

  async nonResource(req: IncomingMessage, user: UserInfo, method: string, path: string): Promise<UserInfo> {
    const acting = await impersonate(this.authorizer, user, req);
    await this.authorize(nonResourceAttributes(acting, method, path));
    return acting;
  }

  private async authorize(attrs: Attributes): Promise<void> {
    // The privileged group needs no lookup (an impersonated system:masters member lands here).
    if (attrs.user.groups.includes(systemPrivilegedGroup)) return;
    const { decision, reason } = await this.authorizer.authorize(attrs);
    if (decision !== 'Allow') throw forbidden(attrs, reason);
  }
}
