import { fieldErrorString, type FieldError } from '@windlass/machinery';
import { defaultPod, defaultPodTemplateSpec, validatePodCreate, validatePodTemplateSpec } from './index.js';

type Json = Record<string, any>;
const msgs = (errs: FieldError[]) => errs.map(fieldErrorString);

function pod(spec: Json, metadata: Json = { name: 'web', namespace: 'ns' }): Json {
  const p: Json = { metadata, spec };
  defaultPod(p);
  return p;
}

const app = (extra: Json = {}) => ({ name: 'app', image: 'registry.example.com/team/app:1.4.2', ...extra });

describe('ValidatePodSpec messages and paths', () => {
  test('a valid pod has no errors', () => {
    expect(msgs(validatePodCreate(pod({ containers: [app()] })))).toEqual([]);
  });

  test('required, unsupported and not-found values', () => {
    expect(msgs(validatePodCreate(pod({ containers: [{ name: 'app' }] })))).toEqual(['spec.containers[0].image: Required value']);
    expect(msgs(validatePodCreate(pod({ containers: [app()], restartPolicy: 'Sometimes' })))).toEqual(['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);
    expect(msgs(validatePodCreate(pod({ containers: [app({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] })] })))).toEqual(['spec.containers[0].volumeMounts[0].name: Not found: "nope"']);
    const nf = validatePodCreate(pod({ containers: [app({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] })] }));
    expect(nf[0].type).toBe('FieldValueNotFound');
    expect(msgs(validatePodCreate(pod({ containers: [] })))).toEqual(['spec.containers: Required value']);
  });

  test('requests may not exceed limits (1.35 names the limit)', () => {
    const p = pod({ containers: [app({ resources: { limits: { memory: '512Mi' }, requests: { memory: '1Gi' } } })] });
    expect(msgs(validatePodCreate(p))).toEqual(['spec.containers[0].resources.requests: Invalid value: "1Gi": must be less than or equal to memory limit of 512Mi']);
  });

  test('names, ports, duplicates and env', () => {
    const p = pod({
      containers: [
        app({ ports: [{ containerPort: 0 }, { containerPort: 70000, name: 'Bad--' }], env: [{ name: 'A=B' }] }),
        app(),
      ],
    });
    expect(msgs(validatePodCreate(p))).toEqual([
      'spec.containers[0].ports[0].containerPort: Required value',
      'spec.containers[0].ports[1].name: Invalid value: "Bad--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[1].name: Invalid value: "Bad--": must not contain consecutive hyphens',
      'spec.containers[0].ports[1].name: Invalid value: "Bad--": must not begin or end with a hyphen',
      'spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[1].name: Duplicate value: "app"',
    ]);
  });

  test('probes and lifecycle', () => {
    const p = pod({ containers: [app({ livenessProbe: { successThreshold: 2, httpGet: { port: 'http' } }, readinessProbe: {}, lifecycle: { preStop: { sleep: { seconds: 60 } } } })] });
    expect(msgs(validatePodCreate(p))).toEqual([
      'spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ]);
  });

  test('init containers may not carry probes without restartPolicy Always', () => {
    const p = pod({ containers: [app()], initContainers: [{ name: 'init', image: 'i:1', readinessProbe: { exec: { command: ['x'] } } }] });
    expect(msgs(validatePodCreate(p))).toEqual(['spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always']);
  });

  test('hostNetwork pods need hostPort = containerPort; ephemeral containers cannot be created', () => {
    const p = pod({ containers: [app({ ports: [{ containerPort: 80, hostPort: 81 }] })], hostNetwork: true });
    expect(msgs(validatePodCreate(p))).toEqual(['spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true']);
    const e = pod({ containers: [app()], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] });
    expect(msgs(validatePodCreate(e))).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  test('volumes, tolerations, affinity and spread constraints', () => {
    const p = pod({
      containers: [app()],
      volumes: [{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }, { name: 'b', configMap: { name: 'c' }, emptyDir: {} }, { name: 'c', secret: {} }],
      tolerations: [{ operator: 'Equal', value: 'x' }],
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { topologyKey: 'zone' } }] } },
      topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Maybe' }],
    });
    expect(msgs(validatePodCreate(p))).toEqual([
      'spec.volumes[1].name: Duplicate value: "a"',
      'spec.volumes[2].configMap: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[3].secret.secretName: Required value',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
      'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
      'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ]);
  });

  test('templates report labels under the template path and refuse ephemeral containers', () => {
    const template: Json = { metadata: { labels: { app: '-bad-' } }, spec: { containers: [app()], ephemeralContainers: [{ name: 'e', image: 'e' }] } };
    defaultPodTemplateSpec(template);
    expect(msgs(validatePodTemplateSpec(template, 'template'))).toEqual([
      'template.labels: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')',
      'template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    ]);
    const empty: Json = { spec: {} };
    defaultPodTemplateSpec(empty);
    expect(msgs(validatePodTemplateSpec(empty, 'spec.template'))).toEqual(['spec.template.spec.containers: Required value']);
  });
});
