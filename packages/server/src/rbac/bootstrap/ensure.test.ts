/**
 * The default policy created at server start: every default role and binding once, with kube's
 * labels, aggregated roles filled, existing objects reconciled, and the permissions kube's
 * defaults give (discovery for authenticated users, view/edit/admin through RoleBindings).
 */
import { newAuthorizer } from '../authorizer.js';
import { memoryLookup } from '../memory.js';
import { rbacObjectsFrom } from '../source.js';
import type { Attributes, ClusterRole, UserInfo } from '../types.js';
import { bootstrapPolicy, ensureBootstrapPolicy } from './ensure.js';

const rbac = 'rbac.authorization.k8s.io';

describe('ensureBootstrapPolicy', () => {
  it('creates the default policy once', async () => {
    const m = memoryLookup();
    const first = await ensureBootstrapPolicy(m.lookup);
    const policy = bootstrapPolicy();
    expect(first.created.clusterroles).toHaveLength(policy.clusterRoles.length);
    expect(first.created.clusterrolebindings).toHaveLength(policy.clusterRoleBindings.length);
    expect(first.created.roles).toEqual(expect.arrayContaining(['kube-system/extension-apiserver-authentication-reader', 'kube-public/system:controller:bootstrap-signer']));
    expect(first.created.rolebindings).toContain('kube-system/system::leader-locking-kube-scheduler');
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:controller:namespace-controller']) {
      expect(first.created.clusterroles).toContain(name);
    }
    // The namespaces of the namespaced roles exist.
    expect(await m.lookup('', 'namespaces')!.get('', 'kube-public')).toBeDefined();
    const again = await ensureBootstrapPolicy(m.lookup);
    expect(Object.values(again.created).flat()).toEqual([]);
  });

  it('stores kube\'s labels and annotations, and aggregated rules in admin, edit and view', async () => {
    const m = memoryLookup();
    await ensureBootstrapPolicy(m.lookup);
    const view = (await m.lookup(rbac, 'clusterroles')!.get('', 'view')) as unknown as ClusterRole & { apiVersion: string; kind: string };
    expect(view.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(view.kind).toBe('ClusterRole');
    expect(view.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
    expect(view.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect(view.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
    expect(view.rules).toContainEqual({
      verbs: ['get', 'list', 'watch'], apiGroups: [''],
      resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers',
        'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'],
    });
    const admin = (await m.lookup(rbac, 'clusterroles')!.get('', 'admin')) as unknown as ClusterRole;
    expect(admin.rules).toContainEqual({ verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], apiGroups: [rbac], resources: ['rolebindings', 'roles'] });
    expect(admin.rules!.length).toBeGreaterThan(view.rules!.length);
    const binding = await m.lookup(rbac, 'clusterrolebindings')!.get('', 'system:discovery');
    expect(binding).toMatchObject({ roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'system:discovery' }, subjects: [{ apiGroup: rbac, kind: 'Group', name: 'system:authenticated' }] });
    expect((await m.lookup(rbac, 'clusterrolebindings')!.get('', 'system:node'))!.subjects).toBeUndefined();
  });

  it('reconciles existing defaults as kube does: what they lack is added, what users added is kept', async () => {
    const m = memoryLookup();
    const roles = m.lookup(rbac, 'clusterroles')!;
    const bindings = m.lookup(rbac, 'clusterrolebindings')!;
    // An older server's edit of the defaults: discovery's rules cut down, a user's rule and label added.
    m.add(rbac, 'clusterroles', {
      apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'system:discovery', labels: { team: 'a' }, resourceVersion: '7' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }, { verbs: ['get'], nonResourceURLs: ['/custom'] }],
    });
    // A user's copy of a default that must not be touched.
    m.add(rbac, 'clusterroles', {
      apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'system:basic-user', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' }, resourceVersion: '8' }, rules: [],
    });
    // A binding pointing elsewhere is recreated; one missing its subject gets it back, keeping the user's.
    m.add(rbac, 'clusterrolebindings', {
      apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'system:public-info-viewer', resourceVersion: '9' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'view' }, subjects: [],
    });
    m.add(rbac, 'clusterrolebindings', {
      apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'system:discovery', resourceVersion: '10' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'system:discovery' }, subjects: [{ kind: 'User', apiGroup: rbac, name: 'alice' }],
    });
    const r = await ensureBootstrapPolicy(m.lookup);
    expect(r.created.clusterroles).not.toContain('system:discovery');
    expect(r.updated.clusterroles).toEqual(['system:discovery']);
    expect(r.updated.clusterrolebindings).toEqual(['system:discovery', 'system:public-info-viewer']);

    const discovery = (await roles.get('', 'system:discovery')) as unknown as ClusterRole;
    expect(discovery.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', team: 'a' });
    expect(discovery.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    // The existing rules first, then the default's uncovered ones, one verb and URL each (kube's BreakdownRule).
    expect(discovery.rules!.slice(0, 2)).toEqual([{ verbs: ['get'], nonResourceURLs: ['/api'] }, { verbs: ['get'], nonResourceURLs: ['/custom'] }]);
    expect(discovery.rules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/apis'] });
    expect(discovery.rules!.filter((x) => x.nonResourceURLs?.[0] === '/api')).toHaveLength(1);

    expect(((await roles.get('', 'system:basic-user')) as unknown as ClusterRole).rules).toEqual([]);
    expect(await bindings.get('', 'system:public-info-viewer')).toMatchObject({ roleRef: { name: 'system:public-info-viewer' }, subjects: [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }] });
    expect((await bindings.get('', 'system:discovery'))!.subjects).toEqual([{ kind: 'User', apiGroup: rbac, name: 'alice' }, { kind: 'Group', apiGroup: rbac, name: 'system:authenticated' }]);

    const again = await ensureBootstrapPolicy(m.lookup);
    expect(Object.values(again.created).flat()).toEqual([]);
    expect(Object.values(again.updated).flat()).toEqual([]);
  });
});

describe('the default policy, as kube-apiserver enforces it', () => {
  const setup = async () => {
    const m = memoryLookup();
    await ensureBootstrapPolicy(m.lookup);
    return { m, authorizer: newAuthorizer(rbacObjectsFrom(m.lookup)) };
  };
  const res = (user: UserInfo, verb: string, resource: string, namespace: string, group = ''): Attributes =>
    ({ user, verb, resourceRequest: true, namespace, apiGroup: group, resource, subresource: '', name: '' });
  const url = (user: UserInfo, path: string): Attributes => ({ user, verb: 'get', resourceRequest: false, path });
  const viewer: UserInfo = { name: 'viewer', groups: ['system:authenticated'] };
  const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

  it('authenticated users discover the API; everyone reads health and version', async () => {
    const { authorizer } = await setup();
    expect(await authorizer.authorize(url(viewer, '/openapi/v2'))).toEqual({
      decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    expect((await authorizer.authorize(url(anonymous, '/healthz'))).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"');
    expect((await authorizer.authorize(url(anonymous, '/apis'))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(res(viewer, 'create', 'selfsubjectaccessreviews', '', 'authorization.k8s.io'))).decision).toBe('Allow');
    expect((await authorizer.authorize(res(viewer, 'list', 'pods', 'default'))).decision).toBe('NoOpinion');
  });

  it('view, edit and admin through RoleBindings', async () => {
    const { m, authorizer } = await setup();
    const bind = (name: string, role: string) => m.add(rbac, 'rolebindings', {
      metadata: { name, namespace: 'team' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', apiGroup: rbac, name }],
    });
    bind('v', 'view');
    bind('e', 'edit');
    bind('a', 'admin');
    const u = (name: string): UserInfo => ({ name, groups: ['system:authenticated'] });
    expect((await authorizer.authorize(res(u('v'), 'get', 'configmaps', 'team'))).reason).toBe('RBAC: allowed by RoleBinding "v/team" of ClusterRole "view" to User "v"');
    expect((await authorizer.authorize(res(u('v'), 'get', 'secrets', 'team'))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(res(u('v'), 'delete', 'configmaps', 'team'))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(res(u('e'), 'get', 'secrets', 'team'))).decision).toBe('Allow');
    expect((await authorizer.authorize(res(u('e'), 'create', 'deployments', 'team', 'apps'))).decision).toBe('Allow');
    expect((await authorizer.authorize(res(u('e'), 'create', 'rolebindings', 'team', rbac))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(res(u('a'), 'create', 'rolebindings', 'team', rbac))).decision).toBe('Allow');
    expect((await authorizer.authorize(res(u('a'), 'create', 'rolebindings', 'other', rbac))).decision).toBe('NoOpinion');
  });

  it('system:masters holds cluster-admin: every rule listed', async () => {
    const { authorizer } = await setup();
    const r = await authorizer.rulesFor({ name: 'admin', groups: ['system:masters', 'system:authenticated'] }, 'default');
    expect(r.resourceRules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] },
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], resourceNames: [] },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], resourceNames: [] },
    ]);
    expect(r.nonResourceRules).toEqual([
      { verbs: ['*'], nonResourceURLs: ['*'] },
      { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
    ]);
  });
});
