import { clusterRoleBindings, roleBindings } from './bindings.js';
import { create, object, update } from '../networking/testing.js';

describe('RoleBinding and ClusterRoleBinding', () => {
  it('default the roleRef and subject API groups', () => {
    const rb = object({ roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'web' }, { kind: 'Group', name: 'g' }] }, 'rb', 'ns');
    expect(create(roleBindings, rb)).toEqual([]);
    expect(rb.roleRef).toEqual({ kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    expect(rb.subjects).toEqual([
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'web', apiGroup: '' },
      { kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
  });

  it('report kube messages for bad role references and subjects', () => {
    expect(create(roleBindings, object({ roleRef: { kind: 'Policy', name: 'x' } }))).toEqual(['roleRef.kind: Unsupported value: "Policy": supported values: "Role", "ClusterRole"']);
    expect(create(roleBindings, object({ roleRef: { kind: 'Role' } }))).toEqual(['roleRef.name: Required value']);
    expect(create(roleBindings, object({ roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'Robot', name: 'x' }] })))
      .toEqual(['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']);
    expect(create(clusterRoleBindings, object({ roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }, { kind: 'User' }] }))).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
      'subjects[1].name: Required value',
    ]);
  });

  it('keep roleRef immutable, quoting the internal struct as JSON', () => {
    const old = object({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' } });
    expect(update(roleBindings, object({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'other' } }), old))
      .toEqual(['roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"other"}: cannot change roleRef']);
  });

  it('print role, users, groups and service accounts', () => {
    const cells = roleBindings.table!.cells(object({ roleRef: { kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'ns' }, { kind: 'User', name: 'a' }, { kind: 'User', name: 'b' }] }));
    expect([cells[0], ...cells.slice(2)]).toEqual(['ClusterRole/edit', 'a, b', '', 'ns/web']);
  });
});
