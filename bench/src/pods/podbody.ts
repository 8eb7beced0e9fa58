/**
 * A realistic Pod as a Deployment's controller writes it in a real cluster (~4 KB of JSON):
 * two containers with env, ports, resources, probes, mounts and security contexts, the usual
 * volumes, affinity, tolerations and topology spread. Name filled in per request, as the
 * ConfigMap template of the lean bench.
 */
import { NAME_LENGTH, NAME_PLACEHOLDER, NAMESPACE } from '../lean/objects.js';

export const POD_PATH = `/api/v1/namespaces/${NAMESPACE}/pods`;

const labels = { app: 'checkout', 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/instance': 'shop', 'app.kubernetes.io/version': '2.3.1', 'pod-template-hash': '7d9f8c6b5d' };

function container(name: string, image: string, port: number) {
  return {
    name, image, imagePullPolicy: 'IfNotPresent',
    args: ['--port', String(port), '--log-level=info', '--metrics-addr=:9090'],
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'checkout-db', key: 'url' } } },
      { name: 'FEATURE_FLAGS', valueFrom: { configMapKeyRef: { name: 'checkout-config', key: 'features' } } },
      { name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } } },
    ],
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 10, periodSeconds: 10 },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/checkout', readOnly: true },
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
    ],
    securityContext: { runAsNonRoot: true, runAsUser: 10001, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
  };
}

function build(name: string) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: NAMESPACE, labels,
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'kubectl.kubernetes.io/default-container': 'checkout' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7d9f8c6b5d', uid: '0b1d7e0c-5f44-4b7e-9a39-6c1f2f1b8a11', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      serviceAccountName: 'checkout',
      containers: [container('checkout', 'registry.example.com/shop/checkout:2.3.1', 8080), container('sidecar', 'registry.example.com/shop/envoy-sidecar:1.29.2', 15001)],
      volumes: [
        { name: 'config', configMap: { name: 'checkout-config', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
        { name: 'tls', secret: { secretName: 'checkout-tls' } },
        { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600, audience: 'vault' } }] } },
      ],
      affinity: {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'checkout' } } } }] },
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'node.kubernetes.io/pool', operator: 'In', values: ['general', 'compute'] }] }] } },
      },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'shop', effect: 'NoSchedule' }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'checkout' } } }],
      securityContext: { fsGroup: 10001, runAsNonRoot: true },
      terminationGracePeriodSeconds: 45,
      priorityClassName: '',
    },
  };
}

/** The Pod body as a template: `__NAME__` stands for a NAME_LENGTH-character name. */
export function podTemplate(): string {
  const body = build(NAME_PLACEHOLDER);
  delete (body.spec as { priorityClassName?: string }).priorityClassName;
  return JSON.stringify(body);
}

export const podTemplateBytes = (): number => podTemplate().length - NAME_PLACEHOLDER.length + NAME_LENGTH;
