/**
 * RBAC's escalation check as kube's policy comparator: broken-down rules, `*` and `*\/sub`
 * coverage, resource names, URL prefixes, and the refusal's wording with compacted rules.
 */
import { compactRules, compactString, confirmNoEscalation, covers } from './escalation.js';
import { memoryLookup } from './memory.js';
import { RuleResolver } from './resolver.js';
import { rbacObjectsFrom } from './source.js';
import type { PolicyRule } from './types.js';

const rule = (verbs: string[], resources: string[], extra: Partial<PolicyRule> = {}): PolicyRule => ({ verbs, apiGroups: [''], resources, ...extra });

describe('covers', () => {
  it('breaks the servant rules down and returns each uncovered piece', () => {
    expect(covers([rule(['get', 'list'], ['pods'])], [rule(['get', 'list', 'delete'], ['pods', 'secrets'])]).missing).toEqual([
      rule(['delete'], ['pods']), rule(['get'], ['secrets']), rule(['list'], ['secrets']), rule(['delete'], ['secrets']),
    ]);
    expect(covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [rule(['get'], ['pods/log'], { apiGroups: ['apps'] })]).covered).toBe(true);
  });

  it('a `*/sub` owner rule covers that subresource of any resource, not the resource', () => {
    const owner = [rule(['get'], ['*/status'])];
    expect(covers(owner, [rule(['get'], ['pods/status', 'nodes/status'])]).covered).toBe(true);
    expect(covers(owner, [rule(['get'], ['pods'])]).covered).toBe(false);
  });

  it('resource names: an owner without names covers any; with names only those; a servant without names needs an owner without', () => {
    expect(covers([rule(['get'], ['cm'])], [rule(['get'], ['cm'], { resourceNames: ['a'] })]).covered).toBe(true);
    expect(covers([rule(['get'], ['cm'], { resourceNames: ['a', 'b'] })], [rule(['get'], ['cm'], { resourceNames: ['b'] })]).covered).toBe(true);
    expect(covers([rule(['get'], ['cm'], { resourceNames: ['a'] })], [rule(['get'], ['cm'])]).covered).toBe(false);
  });

  it('non-resource URLs match exactly or by a trailing-star prefix', () => {
    const owner: PolicyRule[] = [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] }];
    expect(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/apps'] }]).covered).toBe(true);
    expect(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]).missing).toEqual([{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]);
  });
});

describe('the refusal', () => {
  it('compacts simple rules by resource, verbs in order, and prints them as CompactString', () => {
    expect(compactRules([rule(['get'], ['pods']), rule(['list'], ['pods']), { verbs: ['get'], nonResourceURLs: ['/x'] }]))
      .toEqual([{ verbs: ['get'], nonResourceURLs: ['/x'] }, rule(['get', 'list'], ['pods'])]);
    expect(compactString(rule(['get', 'list'], ['pods'], { resourceNames: ['a'] }))).toBe('{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}');
    expect(compactString({ verbs: ['*'], nonResourceURLs: ['*'] })).toBe('{NonResourceURLs:["*"], Verbs:["*"]}');
  });

  it('names the user and groups, lists the missing rules sorted, and adds resolution errors', async () => {
    const m = memoryLookup();
    const rbac = 'rbac.authorization.k8s.io';
    m.add(rbac, 'roles', { metadata: { name: 'pods', namespace: 'ns' }, rules: [rule(['get'], ['pods'])] });
    m.add(rbac, 'rolebindings', { metadata: { name: 'a', namespace: 'ns' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'pods' }, subjects: [{ kind: 'User', name: 'alice' }] });
    m.add(rbac, 'rolebindings', { metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'alice' }] });
    const resolver = new RuleResolver(rbacObjectsFrom(m.lookup));
    const alice = { name: 'alice', groups: ['dev', 'system:authenticated'] };
    expect(await confirmNoEscalation(resolver, alice, 'ns', [rule(['get'], ['pods'])])).toBeUndefined();
    expect(await confirmNoEscalation(resolver, alice, 'ns', [rule(['get', 'list'], ['secrets', 'pods'])])).toBe(
      'user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}' +
      '; resolution errors: [role.rbac.authorization.k8s.io "gone" not found]');
  });
});
