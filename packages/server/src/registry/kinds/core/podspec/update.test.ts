import { fieldErrorString, type FieldError } from '@windlass/machinery';
import { defaultPod, validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './index.js';

type Json = Record<string, any>;
const msgs = (errs: FieldError[]) => errs.map(fieldErrorString);

function pod(spec: Json = {}): Json {
  const p: Json = { metadata: { name: 'web', namespace: 'ns' }, spec: { containers: [{ name: 'app', image: 'a:1' }], serviceAccountName: 'default', ...spec }, status: { phase: 'Pending', qosClass: 'BestEffort' } };
  defaultPod(p);
  return p;
}

describe('ValidatePodUpdate', () => {
  test('images, a lower activeDeadlineSeconds and added tolerations may change', () => {
    const old = pod({ activeDeadlineSeconds: 60 });
    const next = structuredClone(old);
    next.spec.containers[0].image = 'a:2';
    next.spec.activeDeadlineSeconds = 30;
    next.spec.tolerations = [{ key: 'k', operator: 'Exists' }];
    expect(msgs(validatePodUpdate(next, old, {}))).toEqual([]);
  });

  test('anything else is forbidden with kube 1.35\'s message and a go-cmp style diff', () => {
    const old = pod();
    const next = structuredClone(old);
    next.spec.restartPolicy = 'Never';
    const errs = validatePodUpdate(next, old, {});
    expect(errs).toHaveLength(1);
    expect(errs[0].field).toBe('spec');
    const detail = errs[0].detail;
    expect(detail.startsWith('Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{\n')).toBe(true);
    expect(detail).toContain('- \tRestartPolicy:                 "Always",\n+ \tRestartPolicy:                 "Never",\n');
    expect(detail).toContain('  \t... // 2 identical fields\n');
    expect(detail.endsWith('  }\n')).toBe(true);
  });

  test('activeDeadlineSeconds may only go down; containers may not be added', () => {
    const old = pod({ activeDeadlineSeconds: 30 });
    const up = structuredClone(old);
    up.spec.activeDeadlineSeconds = 60;
    expect(msgs(validatePodUpdate(up, old, {}))).toEqual(['spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value']);
    const more = structuredClone(old);
    more.spec.containers.push({ name: 'b', image: 'b', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(msgs(validatePodUpdate(more, old, {}))).toEqual(['spec.containers: Forbidden: pod updates may not add or remove containers']);
  });
});

describe('ValidatePodStatusUpdate and ephemeral containers', () => {
  test('the QoS class is immutable and pod IPs must be valid', () => {
    const old = pod();
    const next = structuredClone(old);
    next.status = { phase: 'Running', qosClass: 'Guaranteed', podIPs: [{ ip: 'nope' }] };
    expect(msgs(validatePodStatusUpdate(next, old))).toEqual([
      'status.qosClass: Invalid value: "Guaranteed": field is immutable',
      'status.podIPs[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
  });

  test('existing ephemeral containers may not be removed or changed', () => {
    const old = pod();
    old.spec.ephemeralContainers = [{ name: 'dbg', image: 'busybox', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }];
    const removed = structuredClone(old);
    removed.spec.ephemeralContainers = [];
    expect(msgs(validatePodEphemeralContainersUpdate(removed, old, {}))).toEqual(['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n']);
    const bad = structuredClone(old);
    bad.spec.ephemeralContainers.push({ name: 'x', image: 'y', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ports: [{ containerPort: 1, protocol: 'TCP' }], targetContainerName: 'ghost' });
    expect(msgs(validatePodEphemeralContainersUpdate(bad, old, {}))).toEqual([
      'spec.ephemeralContainers[1].targetContainerName: Not found: "ghost"',
      'spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container',
    ]);
  });
});
