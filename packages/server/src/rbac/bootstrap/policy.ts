/**
 * kube-apiserver's default ClusterRoles and ClusterRoleBindings (plugin/pkg/auth/authorizer/
 * rbac/bootstrappolicy/policy.go, with the feature gates 1.35 enables by default), as data.
 * admin, edit and view are aggregated from the system:aggregate-to-* roles (and from any
 * ClusterRole labelled to join them).
 */
import {
  Read, ReadWrite, Write,
  appsGroup, authenticationGroup, authorizationGroup, autoscalingGroup, batchGroup, certificatesGroup, coordinationGroup,
  discoveryGroup, eventsRule, extensionsGroup, legacyGroup, networkingGroup, nodeGroup, policyGroup, rbacGroup, resourceGroup, storageGroup,
  clusterRole, clusterRoleBinding, group, rule, serviceAccount, urls, user,
} from './builders.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../types.js';

const aggregateToAdmin = 'rbac.authorization.k8s.io/aggregate-to-admin';
const aggregateToEdit = 'rbac.authorization.k8s.io/aggregate-to-edit';
const aggregateToView = 'rbac.authorization.k8s.io/aggregate-to-view';

/** What kubelets may do (NodeRules); the Node authorizer narrows it to each node's own objects. */
export function nodeRules(): PolicyRule[] {
  return [
    rule('create', authenticationGroup, 'tokenreviews'),
    rule('create', authorizationGroup, ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(Read, legacyGroup, 'services'),
    rule(['create', 'get', 'list', 'watch'], legacyGroup, 'nodes'),
    rule(['update', 'patch'], legacyGroup, 'nodes/status'),
    rule(['update', 'patch'], legacyGroup, 'nodes'),
    rule(['create', 'update', 'patch'], legacyGroup, 'events'),
    rule(Read, legacyGroup, 'pods'),
    rule(['create', 'delete'], legacyGroup, 'pods'),
    rule(['update', 'patch'], legacyGroup, 'pods/status'),
    rule('create', legacyGroup, 'pods/eviction'),
    rule(Read, legacyGroup, ['secrets', 'configmaps']),
    rule('get', legacyGroup, ['persistentvolumeclaims', 'persistentvolumes']),
    rule('get', legacyGroup, 'endpoints'),
    rule(['create', 'get', 'list', 'watch'], certificatesGroup, 'certificatesigningrequests'),
    rule(['get', 'create', 'update', 'patch', 'delete'], coordinationGroup, 'leases'),
    rule('get', storageGroup, 'volumeattachments'),
    rule('create', legacyGroup, 'serviceaccounts/token'),
    rule(['get', 'update', 'patch'], legacyGroup, 'persistentvolumeclaims/status'),
    rule(Read, storageGroup, 'csidrivers'),
    rule(['get', 'create', 'update', 'patch', 'delete'], storageGroup, 'csinodes'),
    rule(Read, nodeGroup, 'runtimeclasses'),
    rule('get', resourceGroup, 'resourceclaims'),
    rule('deletecollection', resourceGroup, 'resourceslices'),
  ];
}

const approver = (signer: string) =>
  clusterRole(`system:certificates.k8s.io:${signer.slice('kubernetes.io/'.length)}-approver`, [rule('approve', certificatesGroup, 'signers', [signer])]);

export function clusterRoles(): ClusterRole[] {
  return [
    clusterRole('cluster-admin', [rule('*', '*', '*'), urls('*', ['*'])]),
    clusterRole('system:discovery', [
      urls('get', ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
    ]),
    clusterRole('system:monitoring', [
      urls('get', ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*']),
    ]),
    clusterRole('system:basic-user', [
      rule('create', authorizationGroup, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule('create', authenticationGroup, 'selfsubjectreviews'),
    ]),
    clusterRole('system:public-info-viewer', [urls('get', ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    clusterRole('admin', [], { aggregateFrom: aggregateToAdmin }),
    clusterRole('edit', [], { labels: { [aggregateToAdmin]: 'true' }, aggregateFrom: aggregateToEdit }),
    clusterRole('view', [], { labels: { [aggregateToEdit]: 'true' }, aggregateFrom: aggregateToView }),
    clusterRole('system:aggregate-to-admin', [
      rule('create', authorizationGroup, 'localsubjectaccessreviews'),
      rule(ReadWrite, rbacGroup, ['roles', 'rolebindings']),
    ], { labels: { [aggregateToAdmin]: 'true' } }),
    clusterRole('system:aggregate-to-edit', [
      // Read on the resources view leaves out because they escalate.
      rule(Read, legacyGroup, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule('impersonate', legacyGroup, 'serviceaccounts'),
      rule(Write, legacyGroup, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule('create', legacyGroup, 'pods/eviction'),
      rule(Write, legacyGroup, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy',
        'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule('create', legacyGroup, 'serviceaccounts/token'),
      rule(Write, appsGroup, ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
        'replicasets', 'replicasets/scale']),
      rule(Write, autoscalingGroup, 'horizontalpodautoscalers'),
      rule(Write, batchGroup, ['jobs', 'cronjobs']),
      rule(Write, extensionsGroup, ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets',
        'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(Write, policyGroup, 'poddisruptionbudgets'),
      rule(Write, networkingGroup, ['networkpolicies', 'ingresses']),
      rule(ReadWrite, coordinationGroup, 'leases'),
    ], { labels: { [aggregateToEdit]: 'true' } }),
    clusterRole('system:aggregate-to-view', [
      rule(Read, legacyGroup, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
        'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(Read, legacyGroup, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status',
        'replicationcontrollers/status', 'pods/log']),
      // Read access to namespaces at the namespace scope lets a user read *this* namespace.
      rule(Read, legacyGroup, 'namespaces'),
      rule(Read, discoveryGroup, 'endpointslices'),
      rule(Read, appsGroup, ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
        'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(Read, autoscalingGroup, ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(Read, batchGroup, ['jobs', 'jobs/status', 'cronjobs', 'cronjobs/status']),
      rule(Read, extensionsGroup, ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
        'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(Read, policyGroup, ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(Read, networkingGroup, ['ingresses', 'ingresses/status', 'networkpolicies']),
    ], { labels: { [aggregateToView]: 'true' } }),
    clusterRole('system:heapster', [
      rule(Read, legacyGroup, ['events', 'pods', 'nodes', 'namespaces']),
      rule(Read, extensionsGroup, 'deployments'),
    ]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-problem-detector', [
      rule('get', legacyGroup, 'nodes'),
      rule('patch', legacyGroup, 'nodes/status'),
      eventsRule(),
    ]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], legacyGroup, ['services', 'endpoints']),
      rule(Read, legacyGroup, 'nodes'),
      eventsRule(),
      rule(['list', 'watch'], discoveryGroup, 'endpointslices'),
    ]),
    clusterRole('system:kubelet-api-admin', [
      rule(Read, legacyGroup, 'nodes'),
      rule('proxy', legacyGroup, 'nodes'),
      rule('*', legacyGroup, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
    ]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], certificatesGroup, 'certificatesigningrequests')]),
    clusterRole('system:auth-delegator', [
      rule('create', authenticationGroup, 'tokenreviews'),
      rule('create', authorizationGroup, 'subjectaccessreviews'),
    ]),
    clusterRole('system:kube-aggregator', [rule(Read, legacyGroup, ['services', 'endpoints'])]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      rule('create', coordinationGroup, 'leases'),
      rule(['get', 'update'], coordinationGroup, 'leases', ['kube-controller-manager']),
      rule('create', legacyGroup, ['secrets', 'serviceaccounts']),
      rule('delete', legacyGroup, 'secrets'),
      rule('get', legacyGroup, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule('update', legacyGroup, ['secrets', 'serviceaccounts']),
      rule('create', authenticationGroup, 'tokenreviews'),
      rule('create', authorizationGroup, 'subjectaccessreviews'),
      rule(['list', 'watch'], '*', '*'),
      rule('create', legacyGroup, 'serviceaccounts/token'),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], legacyGroup, ['endpoints', 'services'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], legacyGroup, 'persistentvolumes'),
      rule(['get', 'list', 'watch', 'update'], legacyGroup, 'persistentvolumeclaims'),
      rule(Read, storageGroup, 'storageclasses'),
      rule('watch', legacyGroup, 'events'),
      eventsRule(),
    ]),
    clusterRole('system:kube-scheduler', [
      eventsRule(),
      rule('create', coordinationGroup, 'leases'),
      rule(['get', 'list', 'update', 'watch'], coordinationGroup, 'leases', ['kube-scheduler']),
      rule(ReadWrite, coordinationGroup, 'leasecandidates'),
      rule(Read, legacyGroup, 'nodes'),
      rule(['get', 'list', 'watch', 'delete'], legacyGroup, 'pods'),
      rule('create', legacyGroup, ['pods/binding', 'bindings']),
      rule(['patch', 'update'], legacyGroup, 'pods/status'),
      rule(Read, legacyGroup, ['services', 'replicationcontrollers']),
      rule(Read, [appsGroup, extensionsGroup], 'replicasets'),
      rule(Read, appsGroup, 'statefulsets'),
      rule(Read, policyGroup, 'poddisruptionbudgets'),
      rule(Read, legacyGroup, ['persistentvolumeclaims', 'persistentvolumes']),
      rule('create', authenticationGroup, 'tokenreviews'),
      rule('create', authorizationGroup, 'subjectaccessreviews'),
      rule(Read, storageGroup, 'csinodes'),
      rule(Read, storageGroup, 'volumeattachments'),
      rule(Read, legacyGroup, 'namespaces'),
      rule(Read, storageGroup, 'csidrivers'),
      rule(Read, storageGroup, 'csistoragecapacities'),
      rule(Read, resourceGroup, 'deviceclasses'),
      rule([...Read, 'patch', 'update'], resourceGroup, 'resourceclaims'),
      rule([...Read, 'patch', 'update'], resourceGroup, 'resourceclaims/status'),
      rule([...Read, 'patch', 'update'], legacyGroup, 'pods/finalizers'),
      rule(Read, resourceGroup, 'resourceslices'),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'watch', 'patch', 'update'], legacyGroup, 'persistentvolumes'),
      rule(Read, storageGroup, 'storageclasses'),
      rule(['get', 'list', 'watch', 'patch', 'update'], legacyGroup, 'persistentvolumeclaims'),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule('create', certificatesGroup, 'certificatesigningrequests/nodeclient'),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule('create', certificatesGroup, 'certificatesigningrequests/selfnodeclient'),
    ]),
    clusterRole('system:service-account-issuer-discovery', [
      urls('get', ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
    ]),
    approver('kubernetes.io/legacy-unknown'),
    approver('kubernetes.io/kube-apiserver-client'),
    approver('kubernetes.io/kube-apiserver-client-kubelet'),
    approver('kubernetes.io/kubelet-serving'),
  ];
}

export function clusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterRoleBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterRoleBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterRoleBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    // Kept without subjects since the Node authorizer took over (1.7), so reconciliation can drop old ones.
    clusterRoleBinding('system:node', []),
  ];
}
