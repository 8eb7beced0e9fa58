/**
 * The roles of kube-controller-manager's controllers (bootstrappolicy/controller_policy.go):
 * one ClusterRole `system:controller:<name>` per controller, bound to the service account
 * `<name>` in kube-system.
 */
import {
  Read,
  admissionregistrationGroup, appsGroup, authorizationGroup, autoscalingGroup, batchGroup, certificatesGroup, discoveryGroup,
  eventsRule, extensionsGroup, legacyGroup, networkingGroup, policyGroup, rbacGroup, resourceGroup, storageGroup,
  clusterRole, clusterRoleBinding, rule, serviceAccount,
} from './builders.js';
import type { ClusterRole, ClusterRoleBinding } from '../types.js';

const prefix = 'system:controller:';
const crud = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const readUpdate = [...Read, 'update'];

const controllers: Array<[string, () => ReturnType<typeof rule>[]]> = [
  ['attachdetach-controller', () => [
    rule(['list', 'watch'], legacyGroup, ['persistentvolumes', 'persistentvolumeclaims']),
    rule(Read, legacyGroup, 'nodes'),
    rule(['patch', 'update'], legacyGroup, 'nodes/status'),
    rule(['list', 'watch'], legacyGroup, 'pods'),
    eventsRule(),
    rule(['get', 'create', 'delete', 'list', 'watch'], storageGroup, 'volumeattachments'),
    rule(Read, storageGroup, 'csidrivers'),
    rule(Read, storageGroup, 'csinodes'),
  ]],
  ['certificate-controller', () => [
    rule(['get', 'list', 'watch', 'delete'], certificatesGroup, 'certificatesigningrequests'),
    rule('update', certificatesGroup, ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    rule('approve', certificatesGroup, 'signers', ['kubernetes.io/kube-apiserver-client-kubelet']),
    rule('sign', certificatesGroup, 'signers', ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client',
      'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
    rule('create', authorizationGroup, 'subjectaccessreviews'),
    eventsRule(),
  ]],
  ['clusterrole-aggregation-controller', () => [
    // It rewrites any ClusterRole's rules, so it needs every permission on them, escalation included.
    rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], rbacGroup, 'clusterroles'),
  ]],
  ['cronjob-controller', () => [
    rule(readUpdate, batchGroup, 'cronjobs'),
    rule(crud, batchGroup, 'jobs'),
    rule('update', batchGroup, 'cronjobs/status'),
    rule('update', batchGroup, 'cronjobs/finalizers'),
    rule(['list', 'delete'], legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['daemon-set-controller', () => [
    rule(Read, [extensionsGroup, appsGroup], 'daemonsets'),
    rule('update', [extensionsGroup, appsGroup], 'daemonsets/status'),
    rule('update', [extensionsGroup, appsGroup], 'daemonsets/finalizers'),
    rule(['list', 'watch'], legacyGroup, 'nodes'),
    rule(['list', 'watch', 'create', 'delete', 'patch'], legacyGroup, 'pods'),
    rule('create', legacyGroup, 'pods/binding'),
    rule(crud, appsGroup, 'controllerrevisions'),
    eventsRule(),
  ]],
  ['deployment-controller', () => [
    rule(readUpdate, [extensionsGroup, appsGroup], 'deployments'),
    rule('update', [extensionsGroup, appsGroup], 'deployments/status'),
    rule('update', [extensionsGroup, appsGroup], 'deployments/finalizers'),
    rule(crud, [appsGroup, extensionsGroup], 'replicasets'),
    rule(readUpdate, legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['disruption-controller', () => [
    rule(Read, [extensionsGroup, appsGroup], 'deployments'),
    rule(Read, [appsGroup, extensionsGroup], 'replicasets'),
    rule(Read, legacyGroup, 'replicationcontrollers'),
    rule(Read, policyGroup, 'poddisruptionbudgets'),
    rule(Read, appsGroup, 'statefulsets'),
    rule('update', policyGroup, 'poddisruptionbudgets/status'),
    rule(['patch', 'update'], legacyGroup, 'pods/status'),
    rule('get', '*', '*/scale'),
    eventsRule(),
  ]],
  ['endpoint-controller', () => [
    rule(Read, legacyGroup, ['services', 'pods']),
    rule(['get', 'list', 'create', 'update', 'delete'], legacyGroup, 'endpoints'),
    rule('create', legacyGroup, 'endpoints/restricted'),
    eventsRule(),
  ]],
  ['endpointslice-controller', () => [
    rule(Read, legacyGroup, ['services', 'pods', 'nodes']),
    // Setting a Service's finalizers lets it own EndpointSlices with blockOwnerDeletion.
    rule('update', legacyGroup, 'services/finalizers'),
    rule(['get', 'list', 'create', 'update', 'delete'], discoveryGroup, 'endpointslices'),
    eventsRule(),
  ]],
  ['endpointslicemirroring-controller', () => [
    rule(Read, legacyGroup, ['services', 'endpoints']),
    rule('update', legacyGroup, 'services/finalizers'),
    rule('update', legacyGroup, 'endpoints/finalizers'),
    rule(['get', 'list', 'create', 'update', 'delete'], discoveryGroup, 'endpointslices'),
    eventsRule(),
  ]],
  ['ephemeral-volume-controller', () => [
    rule(Read, legacyGroup, 'pods'),
    rule('update', legacyGroup, 'pods/finalizers'),
    rule([...Read, 'create'], legacyGroup, 'persistentvolumeclaims'),
    eventsRule(),
  ]],
  ['expand-controller', () => [
    rule([...Read, 'update', 'patch'], legacyGroup, 'persistentvolumes'),
    rule(['update', 'patch'], legacyGroup, 'persistentvolumeclaims/status'),
    rule(Read, legacyGroup, 'persistentvolumeclaims'),
    eventsRule(),
    rule('get', legacyGroup, 'services'),
  ]],
  ['generic-garbage-collector', () => [
    // It lists, watches, reads and updates any resource to follow owner references.
    rule([...Read, 'patch', 'update', 'delete'], '*', '*'),
    eventsRule(),
  ]],
  ['horizontal-pod-autoscaler', () => [
    rule(Read, autoscalingGroup, 'horizontalpodautoscalers'),
    rule('update', autoscalingGroup, 'horizontalpodautoscalers/status'),
    rule(['get', 'update'], '*', '*/scale'),
    rule('list', legacyGroup, 'pods'),
    rule('list', 'metrics.k8s.io', 'pods'),
    rule(['get', 'list'], 'custom.metrics.k8s.io', '*'),
    rule(['get', 'list'], 'external.metrics.k8s.io', '*'),
    eventsRule(),
  ]],
  ['job-controller', () => [
    rule([...readUpdate, 'patch'], batchGroup, 'jobs'),
    rule('update', batchGroup, 'jobs/status'),
    rule('update', batchGroup, 'jobs/finalizers'),
    rule(['list', 'watch', 'create', 'delete', 'patch'], legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['legacy-service-account-token-cleaner', () => [
    rule('get', legacyGroup, 'configmaps', ['kube-apiserver-legacy-service-account-token-tracking']),
    rule(['delete', 'patch'], legacyGroup, 'secrets'),
  ]],
  ['namespace-controller', () => [
    rule([...Read, 'delete'], legacyGroup, 'namespaces'),
    rule('update', legacyGroup, ['namespaces/finalize', 'namespaces/status']),
    rule(['get', 'list', 'delete', 'deletecollection'], '*', '*'),
  ]],
  ['node-controller', () => [
    rule(['get', 'list', 'update', 'delete', 'patch'], legacyGroup, 'nodes'),
    rule(['patch', 'update'], legacyGroup, 'nodes/status'),
    rule(['patch', 'update'], legacyGroup, 'pods/status'),
    rule(['list', 'get', 'delete'], legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['persistent-volume-binder', () => [
    rule([...Read, 'update', 'create', 'delete'], legacyGroup, 'persistentvolumes'),
    rule('update', legacyGroup, 'persistentvolumes/status'),
    rule(readUpdate, legacyGroup, 'persistentvolumeclaims'),
    rule('update', legacyGroup, 'persistentvolumeclaims/status'),
    rule([...Read, 'create', 'delete'], legacyGroup, 'pods'),
    rule(Read, storageGroup, 'storageclasses'),
    rule(['list', 'watch'], legacyGroup, 'nodes'),
    eventsRule(),
    rule('watch', legacyGroup, 'events'),
    rule('get', legacyGroup, 'services'),
  ]],
  ['pod-garbage-collector', () => [
    rule(['list', 'watch', 'delete'], legacyGroup, 'pods'),
    rule(['get', 'list'], legacyGroup, 'nodes'),
    rule('patch', legacyGroup, 'pods/status'),
  ]],
  ['pv-protection-controller', () => [rule(readUpdate, legacyGroup, 'persistentvolumes'), eventsRule()]],
  ['pvc-protection-controller', () => [
    rule(readUpdate, legacyGroup, 'persistentvolumeclaims'),
    rule(Read, legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['replicaset-controller', () => [
    rule(readUpdate, [appsGroup, extensionsGroup], 'replicasets'),
    rule('update', [appsGroup, extensionsGroup], 'replicasets/status'),
    rule('update', [appsGroup, extensionsGroup], 'replicasets/finalizers'),
    rule(['list', 'watch', 'patch', 'create', 'delete'], legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['replication-controller', () => [
    rule(readUpdate, legacyGroup, 'replicationcontrollers'),
    rule('update', legacyGroup, 'replicationcontrollers/status'),
    rule('update', legacyGroup, 'replicationcontrollers/finalizers'),
    rule(['list', 'watch', 'patch', 'create', 'delete'], legacyGroup, 'pods'),
    eventsRule(),
  ]],
  ['resource-claim-controller', () => [
    rule(Read, legacyGroup, 'pods'),
    rule('update', legacyGroup, 'pods/finalizers'),
    rule([...Read, 'create', 'delete'], resourceGroup, 'resourceclaims'),
    rule(['update', 'patch'], resourceGroup, ['resourceclaims', 'resourceclaims/status']),
    rule(['update', 'patch'], legacyGroup, 'pods/status'),
    eventsRule(),
  ]],
  ['resourcequota-controller', () => [
    // It counts every kind of object in a namespace.
    rule(['list', 'watch'], '*', '*'),
    rule('update', legacyGroup, 'resourcequotas/status'),
    eventsRule(),
  ]],
  ['root-ca-cert-publisher', () => [rule(['create', 'update'], legacyGroup, 'configmaps'), eventsRule()]],
  ['route-controller', () => [
    rule(['list', 'watch'], legacyGroup, 'nodes'),
    rule('patch', legacyGroup, 'nodes/status'),
    eventsRule(),
  ]],
  ['service-account-controller', () => [rule('create', legacyGroup, 'serviceaccounts'), eventsRule()]],
  ['service-cidrs-controller', () => [
    rule([...Read, 'patch', 'update'], networkingGroup, 'servicecidrs'),
    rule(['patch', 'update'], networkingGroup, 'servicecidrs/finalizers'),
    rule(['patch', 'update'], networkingGroup, 'servicecidrs/status'),
    rule(Read, networkingGroup, 'ipaddresses'),
    eventsRule(),
  ]],
  ['service-controller', () => [
    rule(Read, legacyGroup, 'services'),
    rule(['patch', 'update'], legacyGroup, 'services/status'),
    rule(['list', 'watch'], legacyGroup, 'nodes'),
    eventsRule(),
  ]],
  ['statefulset-controller', () => [
    rule(['list', 'watch'], legacyGroup, 'pods'),
    rule(Read, appsGroup, 'statefulsets'),
    rule('update', appsGroup, 'statefulsets/status'),
    rule('update', appsGroup, 'statefulsets/finalizers'),
    rule(['get', 'create', 'delete', 'update', 'patch'], legacyGroup, 'pods'),
    rule(crud, appsGroup, 'controllerrevisions'),
    rule(['get', 'create', 'list', 'watch'], legacyGroup, 'persistentvolumeclaims'),
    eventsRule(),
    rule(['update', 'delete'], legacyGroup, 'persistentvolumeclaims'),
    rule('update', legacyGroup, 'pods/finalizers'),
  ]],
  ['ttl-after-finished-controller', () => [rule(['get', 'list', 'watch', 'delete'], batchGroup, 'jobs'), eventsRule()]],
  ['ttl-controller', () => [rule(['update', 'patch', 'list', 'watch'], legacyGroup, 'nodes'), eventsRule()]],
  ['validatingadmissionpolicy-status-controller', () => [
    rule(Read, admissionregistrationGroup, 'validatingadmissionpolicies'),
    rule(['get', 'patch', 'update'], admissionregistrationGroup, 'validatingadmissionpolicies/status'),
    eventsRule(),
  ]],
];

export function controllerRoles(): ClusterRole[] {
  return controllers.map(([name, rules]) => clusterRole(`${prefix}${name}`, rules()));
}

export function controllerRoleBindings(): ClusterRoleBinding[] {
  return controllers.map(([name]) => clusterRoleBinding(`${prefix}${name}`, [serviceAccount('kube-system', name)]));
}
