/** kube's reconciliation of roles and bindings (union), rule coverage as kube's Covers computes it. */
import type { ClusterRole, RoleBinding } from '../types.js';
import { bootstrapPolicy } from './ensure.js';
import { breakdownRule, reconcileBinding, reconcileRole, uncoveredRules } from './reconcile.js';

const rbac = 'rbac.authorization.k8s.io';

describe('rule coverage', () => {
  it('breaks rules down to one verb on one resource, name or URL', () => {
    expect(breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] })).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['b'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['b'] },
    ]);
    expect(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/a', '/b'] })).toEqual([{ verbs: ['get'], nonResourceURLs: ['/a'] }, { verbs: ['get'], nonResourceURLs: ['/b'] }]);
  });

  it('stars, subresource stars, names and URL prefixes cover what they grant', () => {
    expect(uncoveredRules([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['delete'], apiGroups: ['apps'], resources: ['deployments'] }])).toEqual([]);
    expect(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status', 'pods'] }]))
      .toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    // A rule limited to names does not cover one on every name; one on every name covers a named one.
    expect(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])).toHaveLength(1);
    expect(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }])).toEqual([]);
    expect(uncoveredRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps', '/api'] }])).toEqual([{ verbs: ['get'], nonResourceURLs: ['/api'] }]);
  });
  it('a default role covers itself, and lacks exactly the atomic rules of a rule taken out', () => {
    for (const role of bootstrapPolicy().clusterRoles) {
      const rules = role.rules ?? [];
      expect(uncoveredRules(rules, rules)).toEqual([]);
      if (rules.length < 2) continue;
      const [first, ...rest] = rules;
      const lacking = breakdownRule(first).filter((sub) => uncoveredRules(rest, [sub]).length > 0);
      expect(uncoveredRules(rest, rules)).toEqual(lacking);
    }
  });
});

describe('reconcileRole', () => {
  const role = (meta: Partial<ClusterRole['metadata']>, rest: Partial<ClusterRole> = {}): ClusterRole => ({ metadata: { name: 'r', ...meta }, ...rest });

  it('adds missing rules after the existing ones and merges labels and annotations, existing values first', () => {
    const r = reconcileRole(
      role({ labels: { a: 'mine' } }, { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }),
      role({ labels: { a: 'default', b: 'x' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }, { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] }),
    );
    expect(r).toEqual({ op: 'update', role: role({ labels: { a: 'mine', b: 'x' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }, {
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
    }) });
  });

  it('leaves a role that holds everything, or one annotated autoupdate "false"', () => {
    const expected = role({}, { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    expect(reconcileRole(role({}, { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }), expected)).toEqual({ op: 'none' });
    expect(reconcileRole(role({ annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, { rules: [] }), expected)).toEqual({ op: 'none' });
  });

  it('adds missing aggregation selectors, and drops an aggregation rule the default does not have', () => {
    const sel = (k: string) => ({ matchLabels: { [k]: 'true' } });
    const r = reconcileRole(role({}, { aggregationRule: { clusterRoleSelectors: [sel('mine')] } }), role({}, { aggregationRule: { clusterRoleSelectors: [sel('default')] } }));
    expect(r).toEqual({ op: 'update', role: role({}, { aggregationRule: { clusterRoleSelectors: [sel('mine'), sel('default')] } }) });
    expect(reconcileRole(role({}, { aggregationRule: { clusterRoleSelectors: [sel('mine')] } }), role({}))).toEqual({ op: 'update', role: role({}, { aggregationRule: null }) });
  });
});

describe('reconcileBinding', () => {
  const binding = (roleName: string, subjects: RoleBinding['subjects']): RoleBinding => ({ metadata: { name: 'b' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: roleName }, subjects });
  const group = (name: string) => ({ kind: 'Group', apiGroup: rbac, name });

  it('adds missing subjects, keeps the others', () => {
    expect(reconcileBinding(binding('r', [group('mine')]), binding('r', [group('default')]))).toEqual({ op: 'update', binding: binding('r', [group('mine'), group('default')]) });
    expect(reconcileBinding(binding('r', [group('default'), group('mine')]), binding('r', [group('default')]))).toEqual({ op: 'none' });
  });

  it('recreates a binding whose roleRef differs (roleRef is immutable)', () => {
    expect(reconcileBinding(binding('other', [group('mine')]), binding('r', [group('default')]))).toEqual({ op: 'recreate', binding: binding('r', [group('default')]) });
  });
});
