/**
 * The Roles and RoleBindings kube-apiserver creates in kube-system and kube-public
 * (bootstrappolicy/namespace_policy.go): leader election of the controller manager and the
 * scheduler, the authentication configmap reader, and the bootstrap-token controllers.
 */
import { Read, eventsRule, coordinationGroup, legacyGroup, role, roleBinding, serviceAccount, user, rule } from './builders.js';
import type { Role, RoleBinding } from '../types.js';

const leaderLocking = ['create', 'get', 'list', 'update', 'watch'];

export function namespaceRoles(): Role[] {
  return [
    role('kube-system', 'extension-apiserver-authentication-reader', [
      rule(Read, legacyGroup, 'configmaps', ['extension-apiserver-authentication']),
    ]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', [
      rule(leaderLocking, coordinationGroup, 'leases'),
      rule(leaderLocking, coordinationGroup, 'leasecandidates'),
    ]),
    role('kube-system', 'system::leader-locking-kube-scheduler', [
      rule(leaderLocking, coordinationGroup, 'leases'),
      rule(leaderLocking, coordinationGroup, 'leasecandidates'),
    ]),
    role('kube-system', 'system:controller:bootstrap-signer', [rule(Read, legacyGroup, 'secrets')]),
    role('kube-system', 'system:controller:cloud-provider', [rule([...Read, 'create'], legacyGroup, 'configmaps')]),
    role('kube-system', 'system:controller:token-cleaner', [rule([...Read, 'delete'], legacyGroup, 'secrets'), eventsRule()]),
    role('kube-public', 'system:controller:bootstrap-signer', [
      rule(Read, legacyGroup, 'configmaps'),
      rule('update', legacyGroup, 'configmaps', ['cluster-info']),
      eventsRule(),
    ]),
  ];
}

export function namespaceRoleBindings(): RoleBinding[] {
  return [
    roleBinding('kube-system', 'extension-apiserver-authentication-reader',
      [user('system:kube-controller-manager'), user('system:kube-scheduler')], 'system::extension-apiserver-authentication-reader'),
    roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-system', 'kube-controller-manager'),
      serviceAccount('kube-system', 'leader-election-controller'),
    ]),
    roleBinding('kube-system', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
    roleBinding('kube-system', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
    roleBinding('kube-system', 'system:controller:cloud-provider', [serviceAccount('kube-system', 'cloud-provider')]),
    roleBinding('kube-system', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner')]),
    roleBinding('kube-public', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
  ];
}
