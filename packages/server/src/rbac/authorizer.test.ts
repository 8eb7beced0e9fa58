/**
 * kube-apiserver's authorizer chain over stored RBAC objects: which bindings apply to a user,
 * the namespace scope of RoleBindings, kube's allow reasons and resolution errors, the
 * system:masters shortcut, ClusterRole aggregation, and the rules a user is listed.
 */
import { newAuthorizer } from './authorizer.js';
import { effectiveRules } from './aggregation.js';
import { memoryLookup } from './memory.js';
import { rbacObjectsFrom } from './source.js';
import type { Attributes, ClusterRole, PolicyRule, UserInfo } from './types.js';

const rbac = 'rbac.authorization.k8s.io';
const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({ name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) });
const userSubject = (name: string) => ({ kind: 'User', apiGroup: rbac, name });
const groupSubject = (name: string) => ({ kind: 'Group', apiGroup: rbac, name });
const readPods: PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] };

function setup() {
  const m = memoryLookup();
  const clusterRole = (name: string, rules: PolicyRule[], extra: Partial<ClusterRole> = {}) =>
    m.add(rbac, 'clusterroles', { metadata: meta(name), rules, ...extra });
  const role = (ns: string, name: string, rules: PolicyRule[]) => m.add(rbac, 'roles', { metadata: meta(name, ns), rules });
  const clusterBinding = (name: string, roleName: string, subjects: object[]) =>
    m.add(rbac, 'clusterrolebindings', { metadata: meta(name), roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: roleName }, subjects });
  const binding = (ns: string, name: string, kind: string, roleName: string, subjects: object[]) =>
    m.add(rbac, 'rolebindings', { metadata: meta(name, ns), roleRef: { apiGroup: rbac, kind, name: roleName }, subjects });
  return { m, clusterRole, role, clusterBinding, binding, authorizer: () => newAuthorizer(rbacObjectsFrom(m.lookup)) };
}

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const get = (user: UserInfo, resource: string, namespace = '', extra: Partial<Attributes> = {}): Attributes =>
  ({ user, verb: 'get', resourceRequest: true, namespace, apiGroup: '', resource, subresource: '', name: '', ...extra });

describe('bindings', () => {
  it('a ClusterRoleBinding grants everywhere, with kube\'s reason naming binding, role and subject', async () => {
    const t = setup();
    t.clusterRole('pod-reader', [readPods]);
    t.clusterBinding('readers', 'pod-reader', [groupSubject('system:authenticated')]);
    const a = t.authorizer();
    expect(await a.authorize(get(alice, 'pods', 'ns1'))).toEqual({
      decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "system:authenticated"',
    });
    expect((await a.authorize(get(alice, 'pods'))).decision).toBe('Allow');
    expect(await a.authorize(get(alice, 'secrets', 'ns1'))).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it('a RoleBinding to a ClusterRole grants it in the binding\'s namespace only', async () => {
    const t = setup();
    t.clusterRole('pod-reader', [readPods]);
    t.binding('ns1', 'read', 'ClusterRole', 'pod-reader', [userSubject('alice')]);
    const a = t.authorizer();
    expect(await a.authorize(get(alice, 'pods', 'ns1'))).toEqual({ decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "read/ns1" of ClusterRole "pod-reader" to User "alice"' });
    expect((await a.authorize(get(alice, 'pods', 'ns2'))).decision).toBe('NoOpinion');
    // Cluster scope (a list across namespaces) is not granted by a namespaced binding.
    expect((await a.authorize(get(alice, 'pods'))).decision).toBe('NoOpinion');
  });

  it('a RoleBinding to a Role reads the Role of its own namespace', async () => {
    const t = setup();
    t.role('ns1', 'r', [readPods]);
    t.role('ns2', 'r', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    t.binding('ns2', 'b', 'Role', 'r', [userSubject('alice')]);
    const a = t.authorizer();
    expect((await a.authorize(get(alice, 'secrets', 'ns2'))).decision).toBe('Allow');
    expect((await a.authorize(get(alice, 'pods', 'ns2'))).decision).toBe('NoOpinion');
  });

  it('users, groups and service accounts are told apart; an unqualified service account belongs to the binding\'s namespace', async () => {
    const t = setup();
    t.clusterRole('pod-reader', [readPods]);
    t.binding('ns1', 'sa', 'ClusterRole', 'pod-reader', [{ kind: 'ServiceAccount', name: 'builder' }]);
    t.binding('ns1', 'other-sa', 'ClusterRole', 'pod-reader', [{ kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' }]);
    const a = t.authorizer();
    const builder = { name: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts'] };
    expect((await a.authorize(get(builder, 'pods', 'ns1'))).reason).toBe('RBAC: allowed by RoleBinding "sa/ns1" of ClusterRole "pod-reader" to ServiceAccount "builder/ns1"');
    const deployer = { name: 'system:serviceaccount:ci:deployer', groups: [] };
    expect((await a.authorize(get(deployer, 'pods', 'ns1'))).reason).toBe('RBAC: allowed by RoleBinding "other-sa/ns1" of ClusterRole "pod-reader" to ServiceAccount "deployer/ci"');
    // A user named like the service account's short name is not the service account.
    expect((await a.authorize(get({ name: 'builder', groups: [] }, 'pods', 'ns1'))).decision).toBe('NoOpinion');
    // Group names are not user names.
    t.clusterBinding('g', 'pod-reader', [groupSubject('devs')]);
    expect((await t.authorizer().authorize(get({ name: 'devs', groups: [] }, 'pods', 'ns1'))).decision).toBe('NoOpinion');
  });

  it('a binding to a missing role explains the denial and does not stop other bindings from allowing', async () => {
    const t = setup();
    t.clusterBinding('a-missing', 'nope', [userSubject('alice')]);
    t.binding('ns1', 'b-missing', 'Role', 'gone', [userSubject('alice')]);
    const a = t.authorizer();
    expect(await a.authorize(get(alice, 'pods', 'ns1'))).toEqual({
      decision: 'NoOpinion', reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "nope" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
    expect((await a.authorize(get(alice, 'pods'))).reason).toBe('RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found');
    t.clusterRole('pod-reader', [readPods]);
    t.clusterBinding('z-readers', 'pod-reader', [userSubject('alice')]);
    expect((await t.authorizer().authorize(get(alice, 'pods', 'ns1'))).decision).toBe('Allow');
  });

  it('refuses role references of another kind', async () => {
    const t = setup();
    t.binding('ns1', 'b', 'Deployment', 'x', [userSubject('alice')]);
    expect((await t.authorizer().authorize(get(alice, 'pods', 'ns1'))).reason).toBe('RBAC: unsupported role reference kind: "Deployment"');
  });
});

describe('system:masters', () => {
  it('is allowed everything without any binding and without a reason', async () => {
    const t = setup();
    const admin = { name: 'ops', groups: ['system:masters'] };
    expect(await t.authorizer().authorize({ ...get(admin, 'secrets', 'kube-system'), verb: 'delete' })).toEqual({ decision: 'Allow', reason: '' });
    expect(await t.authorizer().authorize({ user: admin, verb: 'post', resourceRequest: false, path: '/anything' })).toEqual({ decision: 'Allow', reason: '' });
  });
});

describe('aggregation', () => {
  const aggregate = (label: string) => ({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] } });

  it('an aggregated ClusterRole has the rules of the roles its selectors match, not its stored ones', async () => {
    const t = setup();
    t.clusterRole('monitoring', [{ verbs: ['delete'], apiGroups: [''], resources: ['nodes'] }], aggregate('example.com/aggregate-to-monitoring'));
    t.clusterRole('monitoring-pods', [readPods], { metadata: meta('monitoring-pods', undefined, { 'example.com/aggregate-to-monitoring': 'true' }) });
    t.clusterRole('unrelated', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    t.clusterBinding('mon', 'monitoring', [userSubject('alice')]);
    const a = t.authorizer();
    expect((await a.authorize(get(alice, 'pods', 'ns1'))).reason).toBe('RBAC: allowed by ClusterRoleBinding "mon" of ClusterRole "monitoring" to User "alice"');
    expect((await a.authorize({ ...get(alice, 'nodes'), verb: 'delete' })).decision).toBe('NoOpinion');
    // A role labelled later joins at once.
    t.clusterRole('monitoring-endpoints', [{ verbs: ['list'], apiGroups: [''], resources: ['endpoints'] }],
      { metadata: meta('monitoring-endpoints', undefined, { 'example.com/aggregate-to-monitoring': 'true' }) });
    expect((await t.authorizer().authorize({ ...get(alice, 'endpoints', 'ns1'), verb: 'list' })).decision).toBe('Allow');
  });

  it('follows chains (admin ⊃ edit ⊃ view), takes roles in name order and each rule once', () => {
    const role = (name: string, rules: PolicyRule[], labels?: Record<string, string>, from?: string): ClusterRole =>
      ({ metadata: meta(name, undefined, labels), rules, ...(from ? aggregate(from) : {}) });
    const rule1: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['a'] };
    const rule2: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['b'] };
    const all = [
      role('admin', [], undefined, 'to-admin'),
      role('edit', [], { 'to-admin': 'true' }, 'to-edit'),
      role('view', [], { 'to-edit': 'true' }, 'to-view'),
      role('z-view-part', [rule2, rule1], { 'to-view': 'true' }),
      role('a-view-part', [rule1], { 'to-view': 'true' }),
      role('edit-part', [rule2, { verbs: ['update'], apiGroups: [''], resources: ['a'] }], { 'to-edit': 'true' }),
    ];
    expect(effectiveRules(all[2], all)).toEqual([rule1, rule2]);
    expect(effectiveRules(all[0], all)).toEqual([rule2, { verbs: ['update'], apiGroups: [''], resources: ['a'] }, rule1]);
  });

  it('matchExpressions select too; cycles end', () => {
    const a: ClusterRole = { metadata: meta('a', undefined, { join: 'b' }), rules: [], aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'join', operator: 'In', values: ['a'] }] }] } };
    const b: ClusterRole = { metadata: meta('b', undefined, { join: 'a' }), rules: [readPods], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { join: 'b' } }] } };
    expect(effectiveRules(a, [a, b])).toEqual([]);
    const c: ClusterRole = { metadata: meta('c', undefined, { join: 'a' }), rules: [readPods] };
    expect(effectiveRules(a, [a, b, c])).toEqual([readPods]);
  });
});

describe('rulesFor', () => {
  it('lists every rule granted in the namespace, resource and non-resource apart, with resolution errors', async () => {
    const t = setup();
    t.clusterRole('discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }]);
    t.clusterRole('pod-reader', [readPods]);
    t.clusterRole('names', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] }]);
    t.clusterBinding('discovery', 'discovery', [groupSubject('system:authenticated')]);
    t.binding('ns1', 'pods', 'ClusterRole', 'pod-reader', [userSubject('alice')]);
    t.binding('ns1', 'names', 'ClusterRole', 'names', [userSubject('alice')]);
    t.binding('ns1', 'zz', 'Role', 'missing', [userSubject('alice')]);
    t.binding('ns2', 'other', 'ClusterRole', 'pod-reader', [userSubject('alice')]);
    expect(await t.authorizer().rulesFor(alice, 'ns1')).toEqual({
      resourceRules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
      error: 'role.rbac.authorization.k8s.io "missing" not found',
    });
  });

  it('the modes answer in order: the first Allow wins, NoOpinions fall through with their reasons', async () => {
    const t = setup();
    t.clusterRole('pod-reader', [readPods]);
    t.clusterBinding('readers', 'pod-reader', [userSubject('alice')]);
    const objects = rbacObjectsFrom(t.m.lookup);
    const denyFirst = newAuthorizer(objects, ['AlwaysDeny', 'RBAC']);
    expect((await denyFirst.authorize(get(alice, 'pods', 'ns1'))).decision).toBe('Allow');
    expect(await denyFirst.authorize(get(alice, 'secrets', 'ns1'))).toEqual({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
    expect((await newAuthorizer(objects, ['AlwaysAllow']).authorize(get(alice, 'secrets', 'ns1'))).decision).toBe('Allow');
    // system:masters is allowed before any mode, AlwaysDeny included.
    expect(await newAuthorizer(objects, ['AlwaysDeny']).authorize(get({ name: 'root', groups: ['system:masters'] }, 'secrets'))).toEqual({ decision: 'Allow', reason: '' });
    expect(await newAuthorizer(objects, ['AlwaysAllow', 'RBAC']).rulesFor(alice, 'ns1')).toEqual({
      resourceRules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
      ],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });
});
