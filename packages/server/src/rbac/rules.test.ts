/**
 * One PolicyRule against one request, as kube's RuleAllows decides: verbs, API groups,
 * resources with subresources and `*` forms, resource names, non-resource URLs.
 */
import { ruleAllows } from './rules.js';
import type { Attributes, PolicyRule } from './types.js';

const user = { name: 'u', groups: [] };
const res = (verb: string, resource: string, extra: Partial<Attributes> = {}): Attributes =>
  ({ user, verb, resourceRequest: true, apiGroup: '', resource, subresource: '', name: '', namespace: 'ns', ...extra });
const url = (verb: string, path: string): Attributes => ({ user, verb, resourceRequest: false, path });

describe('verbs', () => {
  const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
  it('matches a listed verb only', () => {
    expect(ruleAllows(res('get', 'pods'), rule)).toBe(true);
    expect(ruleAllows(res('list', 'pods'), rule)).toBe(true);
    expect(ruleAllows(res('delete', 'pods'), rule)).toBe(false);
    expect(ruleAllows(res('GET', 'pods'), rule)).toBe(false);
  });
  it('* matches every verb, custom ones included', () => {
    const all: PolicyRule = { verbs: ['*'], apiGroups: [''], resources: ['serviceaccounts'] };
    expect(ruleAllows(res('impersonate', 'serviceaccounts'), all)).toBe(true);
  });
  it('a rule without verbs allows nothing', () => {
    expect(ruleAllows(res('get', 'pods'), { verbs: [], apiGroups: [''], resources: ['pods'] })).toBe(false);
  });
});

describe('API groups', () => {
  const apps: PolicyRule = { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] };
  it('compares the group exactly; the core group is ""', () => {
    expect(ruleAllows(res('get', 'deployments', { apiGroup: 'apps' }), apps)).toBe(true);
    expect(ruleAllows(res('get', 'deployments', { apiGroup: 'extensions' }), apps)).toBe(false);
    expect(ruleAllows(res('get', 'deployments'), apps)).toBe(false);
    expect(ruleAllows(res('get', 'pods'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(true);
  });
  it('* matches every group; a rule without groups matches no resource request', () => {
    expect(ruleAllows(res('get', 'widgets', { apiGroup: 'example.com' }), { verbs: ['get'], apiGroups: ['*'], resources: ['widgets'] })).toBe(true);
    expect(ruleAllows(res('get', 'pods'), { verbs: ['get'], resources: ['pods'] })).toBe(false);
  });
});

describe('resources and subresources', () => {
  it('a resource does not grant its subresources, and a subresource not its resource', () => {
    const pods: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    const log: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] };
    expect(ruleAllows(res('get', 'pods', { subresource: 'log' }), pods)).toBe(false);
    expect(ruleAllows(res('get', 'pods', { subresource: 'log' }), log)).toBe(true);
    expect(ruleAllows(res('get', 'pods'), log)).toBe(false);
  });
  it('* matches every resource and subresource', () => {
    const all: PolicyRule = { verbs: ['get'], apiGroups: ['*'], resources: ['*'] };
    expect(ruleAllows(res('get', 'pods', { subresource: 'status' }), all)).toBe(true);
    expect(ruleAllows(res('get', 'nodes'), all)).toBe(true);
  });
  it('*/scale matches the scale subresource of any resource, nothing else', () => {
    const scale: PolicyRule = { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] };
    expect(ruleAllows(res('get', 'deployments', { apiGroup: 'apps', subresource: 'scale' }), scale)).toBe(true);
    expect(ruleAllows(res('get', 'deployments', { apiGroup: 'apps' }), scale)).toBe(false);
    expect(ruleAllows(res('get', 'deployments', { apiGroup: 'apps', subresource: 'status' }), scale)).toBe(false);
  });
  it('pods/* is not a wildcard', () => {
    expect(ruleAllows(res('get', 'pods', { subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] })).toBe(false);
  });
});

describe('resourceNames', () => {
  const named: PolicyRule = { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] };
  it('restricts to the listed names; a request without a name (list, create) does not match', () => {
    expect(ruleAllows(res('get', 'configmaps', { name: 'a' }), named)).toBe(true);
    expect(ruleAllows(res('get', 'configmaps', { name: 'c' }), named)).toBe(false);
    expect(ruleAllows(res('get', 'configmaps'), named)).toBe(false);
  });
  it('an empty list matches every name', () => {
    expect(ruleAllows(res('get', 'configmaps', { name: 'z' }), { ...named, resourceNames: [] })).toBe(true);
  });
});

describe('non-resource URLs', () => {
  const discovery: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/version'] };
  it('matches exact paths, and a trailing * as a prefix', () => {
    expect(ruleAllows(url('get', '/api'), discovery)).toBe(true);
    expect(ruleAllows(url('get', '/api/v1'), discovery)).toBe(true);
    expect(ruleAllows(url('get', '/api/'), discovery)).toBe(true);
    expect(ruleAllows(url('get', '/apis'), discovery)).toBe(false);
    expect(ruleAllows(url('get', '/version/'), discovery)).toBe(false);
    expect(ruleAllows(url('post', '/api'), discovery)).toBe(false);
  });
  it('* matches every path; trailing stars all count as one wildcard', () => {
    expect(ruleAllows(url('get', '/anything/at/all'), { verbs: ['*'], nonResourceURLs: ['*'] })).toBe(true);
    expect(ruleAllows(url('get', '/healthz/etcd'), { verbs: ['get'], nonResourceURLs: ['/healthz**'] })).toBe(true);
  });
  it('resource rules never match a URL, URL rules never match a resource', () => {
    expect(ruleAllows(url('get', '/api'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(false);
    expect(ruleAllows(res('get', 'pods'), { verbs: ['*'], nonResourceURLs: ['*'] })).toBe(false);
  });
});
