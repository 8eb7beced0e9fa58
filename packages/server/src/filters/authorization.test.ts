/**
 * The request path's authorization pieces: attributes from RequestInfo, kube's Forbidden
 * Status for every kind of request, and impersonation's checks, user and 400.
 */
import type { IncomingMessage } from 'node:http';
import { isStatusError } from '@windlass/machinery';
import { memoryLookup, newAuthorizer, rbacObjectsFrom, type Attributes, type UserInfo } from '../rbac/index.js';
import { parseRequestInfo } from '../requestinfo.js';
import { forbidden, resourceAttributes } from './authorization.js';
import { impersonate } from './impersonation.js';

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

function attrs(method: string, url: string): Attributes {
  const [path, q = ''] = url.split('?');
  const query = new URLSearchParams(q);
  return resourceAttributes(alice, parseRequestInfo(method, path, query), query);
}

describe('forbidden', () => {
  it('words resource requests as kube, by scope, subresource and name', () => {
    expect(forbidden(attrs('GET', '/api/v1/namespaces/ns/configmaps'), '').status).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { kind: 'configmaps' },
      message: 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "ns"',
    });
    expect(forbidden(attrs('PATCH', '/apis/apps/v1/namespaces/ns/deployments/web/scale'), '').status.message)
      .toBe('deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments/scale" in API group "apps" in the namespace "ns"');
    expect(forbidden(attrs('DELETE', '/api/v1/nodes'), 'Everything is forbidden.').status.message)
      .toBe('nodes is forbidden: User "alice" cannot deletecollection resource "nodes" in API group "" at the cluster scope: Everything is forbidden.');
  });

  it('a list or watch selecting metadata.name is authorized as that name', () => {
    const a = attrs('GET', '/api/v1/namespaces/ns/pods?watch=1&fieldSelector=metadata.name%3Dweb');
    expect([a.verb, a.name]).toEqual(['watch', 'web']);
    expect(attrs('GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name!%3Dweb').name).toBe('');
    expect(forbidden(a, '').status).toMatchObject({ message: 'pods "web" is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "ns"', details: { name: 'web', kind: 'pods' } });
  });

  it('a non-resource path has no group or resource, and HTML-like text is escaped', () => {
    expect(forbidden({ user: alice, verb: 'get', resourceRequest: false, path: '/a<b>&' }, '').status).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: {},
      message: 'forbidden: User "alice" cannot get path "/a&lt;b&gt;&amp;"',
    });
  });
});

describe('impersonate', () => {
  const rbac = 'rbac.authorization.k8s.io';
  const setup = () => {
    const m = memoryLookup();
    m.add(rbac, 'clusterroles', { metadata: { name: 'imp' }, rules: [
      { verbs: ['impersonate'], apiGroups: [''], resources: ['users', 'groups'] },
      { verbs: ['impersonate'], apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes', 'uids'] },
    ] });
    m.add(rbac, 'clusterrolebindings', { metadata: { name: 'imp' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'imp' }, subjects: [{ kind: 'User', name: 'alice' }] });
    return newAuthorizer(rbacObjectsFrom(m.lookup));
  };
  const req = (headers: Record<string, string | string[]>) => {
    const distinct: Record<string, string[]> = {};
    const raw: string[] = [];
    for (const [k, v] of Object.entries(headers)) {
      distinct[k] = Array.isArray(v) ? v : [v];
      for (const one of distinct[k]) raw.push(k, one);
    }
    return { headers: Object.fromEntries(Object.entries(distinct).map(([k, v]) => [k, v.join(', ')])), headersDistinct: distinct, rawHeaders: raw } as unknown as IncomingMessage;
  };

  it('acts as the user with the groups, extras and uid asked for, system:authenticated added', async () => {
    expect(await impersonate(setup(), alice, req({ 'impersonate-user': 'bob', 'impersonate-group': ['g1', 'g2'], 'impersonate-extra-scopes': ['a', 'b'], 'impersonate-uid': 'u1' })))
      .toEqual({ name: 'bob', uid: 'u1', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });
    expect(await impersonate(setup(), alice, req({ 'impersonate-user': 'system:anonymous' }))).toMatchObject({ groups: ['system:unauthenticated'] });
    expect(await impersonate(setup(), alice, req({}))).toBe(alice);
  });

  it('refuses the first part not allowed, and groups without a user', async () => {
    const sa = await impersonate(setup(), alice, req({ 'impersonate-user': 'system:serviceaccount:ns:builder' })).catch((e: unknown) => e);
    expect(isStatusError(sa) && sa.status.message).toBe('serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"');
    const extra = await impersonate(setup(), alice, req({ 'impersonate-user': 'bob', 'impersonate-extra-other': 'x' })).catch((e: unknown) => e);
    expect(isStatusError(extra) && extra.status).toMatchObject({
      message: 'userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope',
      details: { name: 'x', group: 'authentication.k8s.io', kind: 'userextras' },
    });
    const noUser = await impersonate(setup(), alice, req({ 'impersonate-group': 'g', 'impersonate-uid': 'u' })).catch((e: unknown) => e);
    expect(isStatusError(noUser) && [noUser.status.code, noUser.status.message])
      .toEqual([400, 'requested [{Group  g    } {UID  u  authentication.k8s.io/v1  }] without impersonating a user']);
  });
});
