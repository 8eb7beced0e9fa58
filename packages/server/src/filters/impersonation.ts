/**
 * kube's impersonation filter (k8s.io/apiserver endpoints/filters/impersonation): a request with
 * Impersonate-User (and Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>) acts as that
 * user once the requester may `impersonate` each of them: users, groups, serviceaccounts (a
 * system:serviceaccount:<ns>:<name> user), uids and userextras/<key> (authentication.k8s.io).
 * 1.35's ConstrainedImpersonation is alpha and off, so this is the legacy mode.
 */
import type { IncomingMessage } from 'node:http';
import { newBadRequest } from '@windlass/machinery';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS } from '@windlass/auth';
import type { Attributes, Authorizer, UserInfo } from '../rbac/index.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../registry/names.js';
import { forbidden } from './authorization.js';

const userHeader = 'impersonate-user';
const groupHeader = 'impersonate-group';
const uidHeader = 'impersonate-uid';
const extraPrefix = 'impersonate-extra-';
const authenticationGroup = 'authentication.k8s.io';
const serviceAccountPrefix = 'system:serviceaccount:';

/** One thing asked for, as kube's v1.ObjectReference (FieldPath holds an extra's key). */
interface Wanted {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** Whether a request asks to act as someone else (any Impersonate-* header). */
export function hasImpersonationHeaders(req: IncomingMessage): boolean {
  const h = req.headers;
  if (h[userHeader] !== undefined || h[groupHeader] !== undefined || h[uidHeader] !== undefined) return true;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].length > extraPrefix.length && req.rawHeaders[i].toLowerCase().startsWith(extraPrefix)) return true;
  }
  return false;
}

/** serviceaccount.SplitUsername: the namespace and name of a well-formed service account user name. */
function splitServiceAccount(user: string): [string, string] | undefined {
  if (!user.startsWith(serviceAccountPrefix)) return undefined;
  const parts = user.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (nameIsDNSLabel(namespace, false).length > 0 || nameIsDNSSubdomain(name, false).length > 0) return undefined;
  return [namespace, name];
}

/** url.PathUnescape, keeping a key that does not unescape as sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, '%2B'));
  } catch {
    return key;
  }
}

/** Go's %v of an ObjectReference: its seven fields in order, space-separated. */
const goReference = (w: Wanted) => `{${[w.kind, w.namespace, w.name, '', w.apiVersion, '', w.fieldPath].join(' ')}}`;

/** buildImpersonationRequests: what the headers ask for, in kube's order; 400 when they ask for more than a user without one. */
function wantedFrom(req: IncomingMessage): Wanted[] {
  const wanted: Wanted[] = [];
  const headers = req.headersDistinct;
  const user = headers[userHeader]?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccount(user);
    wanted.push(sa ? { kind: 'ServiceAccount', namespace: sa[0], name: sa[1], apiVersion: '', fieldPath: '' } : { kind: 'User', namespace: '', name: user, apiVersion: '', fieldPath: '' });
  }
  const groups = headers[groupHeader] ?? [];
  for (const g of groups) wanted.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  let extras = false;
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(extraPrefix) || values === undefined) continue;
    extras = true;
    const key = unescapeExtraKey(name.slice(extraPrefix.length));
    for (const v of values) wanted.push({ kind: 'UserExtra', namespace: '', name: v, apiVersion: `${authenticationGroup}/v1`, fieldPath: key });
  }
  const uid = headers[uidHeader]?.[0] ?? '';
  if (uid) wanted.push({ kind: 'UID', namespace: '', name: uid, apiVersion: `${authenticationGroup}/v1`, fieldPath: '' });
  if ((groups.length > 0 || extras || uid) && !user) {
    throw newBadRequest(`requested [${wanted.map(goReference).join(' ')}] without impersonating a user`);
  }
  return wanted;
}

/**
 * The user a request acts as: the requester when it impersonates no one, otherwise the
 * impersonated user once every part is allowed (403 naming the first refused part).
 */
export async function impersonate(authorizer: Authorizer, requestor: UserInfo, req: IncomingMessage): Promise<UserInfo> {
  if (!hasImpersonationHeaders(req)) return requestor;
  const wanted = wantedFrom(req);
  if (wanted.length === 0) return requestor;
  // Groups given are the whole list (system:authenticated included or not); a service account's are implied otherwise.
  const groupsSpecified = (req.headersDistinct[groupHeader] ?? []).length > 0;
  let username = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const w of wanted) {
    const attrs: Attributes = {
      user: requestor, verb: 'impersonate', resourceRequest: true, apiGroup: w.apiVersion ? authenticationGroup : '',
      apiVersion: w.apiVersion ? 'v1' : '', namespace: w.namespace, name: w.name, resource: '', subresource: '',
    };
    switch (w.kind) {
      case 'ServiceAccount':
        attrs.resource = 'serviceaccounts';
        username = `${serviceAccountPrefix}${w.namespace}:${w.name}`;
        if (!groupsSpecified) groups.push('system:serviceaccounts', `system:serviceaccounts:${w.namespace}`);
        break;
      case 'User':
        attrs.resource = 'users';
        username = w.name;
        break;
      case 'Group':
        attrs.resource = 'groups';
        groups.push(w.name);
        break;
      case 'UserExtra':
        attrs.resource = 'userextras';
        attrs.subresource = w.fieldPath;
        (extra[w.fieldPath] ??= []).push(w.name);
        break;
      case 'UID':
        attrs.resource = 'uids';
        uid = w.name;
        break;
    }
    const { decision, reason } = await authorizer.authorize(attrs);
    if (decision !== 'Allow') throw forbidden(attrs, reason);
  }
  // A user other than anonymous is authenticated unless a catch-all group was given; anonymous is unauthenticated.
  if (username !== ANONYMOUS) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  return { name: username, uid, groups, extra };
}
