// Facts about kube-apiserver 1.35's built-in resources that its OpenAPI document does not
// carry, kept by hand beside scripts/resources.mjs, which reads them. Each table says where
// in kubernetes/kubernetes it comes from; check there when moving to a new release.

/**
 * Short names: the ShortNames() of each REST storage (pkg/registry/<group>/<resource>/storage/
 * storage.go; CRDs in staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/etcd.go).
 * Keyed by `<group>/<resource>` ('' group for core).
 */
export const SHORT_NAMES = {
  '/componentstatuses': ['cs'],
  '/configmaps': ['cm'],
  '/endpoints': ['ep'],
  '/events': ['ev'],
  '/limitranges': ['limits'],
  '/namespaces': ['ns'],
  '/nodes': ['no'],
  '/persistentvolumeclaims': ['pvc'],
  '/persistentvolumes': ['pv'],
  '/pods': ['po'],
  '/replicationcontrollers': ['rc'],
  '/resourcequotas': ['quota'],
  '/serviceaccounts': ['sa'],
  '/services': ['svc'],
  'apiextensions.k8s.io/customresourcedefinitions': ['crd', 'crds'],
  'apps/daemonsets': ['ds'],
  'apps/deployments': ['deploy'],
  'apps/replicasets': ['rs'],
  'apps/statefulsets': ['sts'],
  'autoscaling/horizontalpodautoscalers': ['hpa'],
  'batch/cronjobs': ['cj'],
  'certificates.k8s.io/certificatesigningrequests': ['csr'],
  'events.k8s.io/events': ['ev'],
  'networking.k8s.io/ingresses': ['ing'],
  'networking.k8s.io/ipaddresses': ['ip'],
  'networking.k8s.io/networkpolicies': ['netpol'],
  'policy/poddisruptionbudgets': ['pdb'],
  'scheduling.k8s.io/priorityclasses': ['pc'],
  'storage.k8s.io/storageclasses': ['sc'],
  'storage.k8s.io/volumeattributesclasses': ['vac'],
};

/**
 * Categories: the Categories() of each REST storage (same files). `all` is what `kubectl get
 * all` lists; `api-extensions` marks the resources that extend the API.
 */
export const CATEGORIES = {
  '/pods': ['all'],
  '/replicationcontrollers': ['all'],
  '/services': ['all'],
  'apps/daemonsets': ['all'],
  'apps/deployments': ['all'],
  'apps/replicasets': ['all'],
  'apps/statefulsets': ['all'],
  'autoscaling/horizontalpodautoscalers': ['all'],
  'batch/cronjobs': ['all'],
  'batch/jobs': ['all'],
  'admissionregistration.k8s.io/mutatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['api-extensions'],
  'apiextensions.k8s.io/customresourcedefinitions': ['api-extensions'],
  'apiregistration.k8s.io/apiservices': ['api-extensions'],
};

/**
 * Storage key prefixes that are not the resource name: SpecialDefaultResourcePrefixes in
 * pkg/kubeapiserver/default_storage_factory_builder.go. Resources of the apiextensions and
 * aggregator servers keep their group in the key (their REST options use `<group>/<resource>`).
 */
export const KEY_PREFIXES = {
  '/replicationcontrollers': 'controllers',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/services': 'services/specs',
  'networking.k8s.io/ingresses': 'ingress',
  'apiextensions.k8s.io/customresourcedefinitions': 'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices': 'apiregistration.k8s.io/apiservices',
};

/**
 * Resources stored with another group's resource (AddCohabitatingResources in the same file):
 * the first one listed there is the one that holds the objects and their storage version.
 */
export const COHABITING = {
  'events.k8s.io/events': '/events',
};

/**
 * Storage versions other than the group's preferred one: ResourceEncodingOverrides in
 * NewStorageFactoryConfigEffectiveVersion (same file).
 */
export const STORAGE_VERSIONS = {
  'admissionregistration.k8s.io/mutatingadmissionpolicies': 'v1beta1',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': 'v1beta1',
  'certificates.k8s.io/clustertrustbundles': 'v1beta1',
  'certificates.k8s.io/podcertificaterequests': 'v1beta1',
  'coordination.k8s.io/leasecandidates': 'v1beta1',
  'resource.k8s.io/devicetaintrules': 'v1alpha3',
  'resource.k8s.io/resourcepoolstatusrequests': 'v1alpha3',
  'scheduling.k8s.io/podgroups': 'v1alpha2',
  'scheduling.k8s.io/workloads': 'v1alpha2',
};

/**
 * Which versions kube-apiserver serves without --runtime-config: GA versions, except GA
 * resources whose feature gate is still off by default (pkg/features/versioned_kube_features.go,
 * staging/src/k8s.io/apiserver/pkg/features: MutatingAdmissionPolicy is Beta, default false).
 * Alpha and beta versions are off by default (pkg/controlplane/apiserver/options: every beta
 * API since 1.24 is disabled by default). The OpenAPI document holds them all.
 */
export const GATED_OFF = new Set([
  'admissionregistration.k8s.io/mutatingadmissionpolicies',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
]);

/**
 * The order of groups in discovery: kube-aggregator's apiVersionPriorities
 * (pkg/controlplane/apiserver/aggregator.go), highest group priority first.
 */
export const GROUP_ORDER = [
  '', 'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io',
  'autoscaling', 'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io',
  'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io',
  'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io', 'resource.k8s.io', 'storagemigration.k8s.io',
];
