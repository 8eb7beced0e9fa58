/** Pod and pod template warnings as Kubernetes 1.35's pkg/api/pod/warnings.go words them. */
import { applyAppArmorVersionSkew, podTemplateWarnings, podWarnings } from './warnings.js';

type Json = Record<string, unknown>;
const pod = (spec: Json, metadata: Json = {}) => ({ metadata: { name: 'p', ...metadata }, spec });
const ctr = (extra: Json = {}) => ({ name: 'c', image: 'nginx', ...extra });

describe('podWarnings', () => {
  test('a clean pod warns about nothing', () => {
    expect(podWarnings(pod({ containers: [ctr({ env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] })] }))).toEqual([]);
  });

  test('deprecated node labels in the selector, node affinity and topology spread constraints', () => {
    expect(podWarnings(pod({
      containers: [ctr()],
      nodeSelector: { 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/os': 'linux' },
      affinity: { nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['a'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }, { key: 'node-role.kubernetes.io/master', operator: 'Exists' }] } }],
      } },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'beta.kubernetes.io/instance-type', whenUnsatisfiable: 'DoNotSchedule' }],
    }))).toEqual([
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[1].key: node-role.kubernetes.io/master is use "node-role.kubernetes.io/control-plane" instead',
      'spec.topologySpreadConstraints[0].topologyKey: beta.kubernetes.io/instance-type is deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
      'spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod',
    ]);
  });

  test('duplicate env names hide the earlier value unless the later one refers to it', () => {
    const env = [
      { name: 'A', value: '1' }, { name: 'A', value: '$(A)-suffix' }, { name: 'A', value: '$(A)' },
      { name: 'B', value: 'x' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'B', value: 'y' },
    ];
    expect(podWarnings(pod({ initContainers: [ctr({ name: 'i' })], containers: [ctr({ env })] }))).toEqual([
      'spec.containers[0].env[2]: hides previous definition of "A", which may be dropped when using apply',
      'spec.containers[0].env[4]: hides previous definition of "B", which may be dropped when using apply',
      'spec.containers[0].env[5]: hides previous definition of "B", which may be dropped when using apply',
    ]);
  });

  test('ports: duplicates, overlaps, ambiguous host IPs and a host IP without a host port', () => {
    expect(podWarnings(pod({
      containers: [
        ctr({ ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }] }),
        ctr({ name: 'd', ports: [{ containerPort: 80, protocol: 'TCP', hostPort: 8080 }, { containerPort: 443, protocol: 'TCP', hostPort: 443 }, { containerPort: 443, protocol: 'TCP', hostPort: 443, hostIP: '10.0.0.2' }] }),
      ],
    }))).toEqual([
      'spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]',
      'spec.containers[0].ports[2]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:53 Protocol:UDP HostIP:10.0.0.1}',
      'spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]',
      'spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[1]',
      'spec.containers[1].ports[2]: dangerously ambiguous port definition with spec.containers[1].ports[1]',
    ]);
  });

  test('pull secrets, host aliases, grace period, fractional bytes and null affinity selectors', () => {
    expect(podWarnings(pod({
      containers: [ctr({ resources: { limits: { memory: '100m' }, requests: { 'ephemeral-storage': '0.5' } } })],
      imagePullSecrets: [{ name: 'a' }, { name: 'a' }, {}],
      hostAliases: [{ ip: '1.2.3.4', hostnames: ['a'] }, { ip: '1.2.3.4', hostnames: ['b'] }],
      terminationGracePeriodSeconds: -5,
      overhead: { memory: '1500m' },
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k' }], preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'k', labelSelector: {} } }] } },
    }))).toEqual([
      'spec.hostAliases[1].ip: duplicate ip "1.2.3.4"',
      'spec.imagePullSecrets[1].name: duplicate name "a"',
      'spec.imagePullSecrets[2].name: invalid empty name ""',
      'spec.overhead[memory]: fractional byte value "1500m" is invalid, must be an integer',
      'spec.containers[0].resources.limits[memory]: fractional byte value "100m" is invalid, must be an integer',
      'spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "500m" is invalid, must be an integer',
      'spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1',
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod',
    ]);
  });

  test('deprecated annotations and volume plugins, overlapping paths, ephemeral claims', () => {
    expect(podWarnings(pod({
      containers: [ctr()],
      volumes: [
        { name: 'g', gitRepo: { repository: 'r' } },
        { name: 'c', cephfs: { monitors: ['m'] } },
        { name: 'cm', configMap: { name: 'conf', items: [{ key: 'a', path: 'etc/app' }, { key: 'b', path: 'etc/app/x' }] } },
        { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.5' } } } } } },
        { name: 'pr', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'x', items: [{ key: 'k', path: 'token' }] } }, {}] } },
      ],
    }, { annotations: { 'scheduler.alpha.kubernetes.io/critical-pod': '', 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default' } }))).toEqual([
      'metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'spec.volumes[0].gitRepo: deprecated in v1.11',
      'spec.volumes[1].cephfs: deprecated in v1.28, non-functional in v1.31+',
      'spec.volumes[3].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
      'volume "cm" (ConfigMap "conf"): overlapping paths: "etc/app/x" with "etc/app"',
      'volume "pr" (Projected ConfigMap "x"): overlapping paths: "token" with "token"',
      'volume "pr" (Projected) has no sources provided',
      'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
      'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead',
    ]);
  });
});

describe('podTemplateWarnings', () => {
  test('paths carry the template prefix; AppArmor annotations without fields warn in templates', () => {
    expect(podTemplateWarnings('spec.jobTemplate.spec.template', {
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' } },
      spec: { containers: [ctr({ env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] })], nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } },
    })).toEqual([
      'spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
      'spec.jobTemplate.spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead',
      'spec.jobTemplate.spec.template.spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
    ]);
  });

  test('a template whose container sets the AppArmor field does not warn about the annotation', () => {
    expect(podTemplateWarnings('template', {
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' } },
      spec: { containers: [ctr({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } })] },
    })).toEqual([]);
  });
});

describe('applyAppArmorVersionSkew', () => {
  test('the annotation becomes the container field, with a warning', () => {
    const p = pod({ containers: [ctr(), ctr({ name: 'd' })] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'localhost/prof' } });
    expect(applyAppArmorVersionSkew(p)).toEqual(['metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead']);
    expect((p.spec.containers as Json[])[0].securityContext).toEqual({ appArmorProfile: { type: 'Localhost', localhostProfile: 'prof' } });
    expect((p.spec.containers as Json[])[1].securityContext).toBeUndefined();
  });

  test('an annotation equal to the pod-level profile is neither copied nor warned about', () => {
    const p = pod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [ctr()] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' } });
    expect(applyAppArmorVersionSkew(p)).toEqual([]);
    expect((p.spec.containers as Json[])[0].securityContext).toBeUndefined();
  });
});
