import { roles } from './roles.js';
import { clusterRoles } from './clusterroles.js';
import { create, object } from '../networking/testing.js';

describe('Role and ClusterRole', () => {
  it('need verbs, API groups and resources in resource rules', () => {
    expect(create(roles, object({ rules: [{ resources: ['pods'], verbs: ['get'] }, {}] }))).toEqual([
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].verbs: Required value: verbs must contain at least one value',
      'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].resources: Required value: resource rules must supply at least one resource',
    ]);
  });

  it('allow non-resource URLs in cluster roles only, never mixed with resources', () => {
    expect(create(roles, object({ rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] })))
      .toEqual(['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs']);
    expect(create(clusterRoles, object({ rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }))).toEqual([]);
    expect(create(clusterRoles, object({ rules: [{ nonResourceURLs: ['/x'], resources: ['pods'], verbs: ['get'] }] })))
      .toEqual(['rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs']);
  });

  it('validate aggregation rule selectors', () => {
    expect(create(clusterRoles, object({ aggregationRule: {} })))
      .toEqual(['aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil']);
    expect(create(clusterRoles, object({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } })))
      .toEqual(['aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']);
  });
});
