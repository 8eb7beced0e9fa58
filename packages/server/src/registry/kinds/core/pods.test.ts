import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { pods, podCells } from './pods.js';

type Json = Record<string, any>;

function created(spec: Json, metadata: Json = {}): KubeObject {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'ns', creationTimestamp: new Date().toISOString(), ...metadata }, spec };
  pods.strategy!.defaults!(pod);
  pods.strategy!.prepareForCreate!(pod);
  return pod;
}

const app = (extra: Json = {}) => ({ name: 'app', image: 'a:1', ...extra });

describe('Pod strategy', () => {
  test('a new pod is Pending with its QoS class', () => {
    expect(created({ containers: [app()] }).status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(created({ containers: [app({ resources: { requests: { cpu: '100m' } } })] }).status).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
    // Limits alone give equal requests (SetDefaults_Pod), hence Guaranteed.
    expect(created({ containers: [app({ resources: { limits: { cpu: '200m', memory: '256Mi' } } })] }).status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });

  test('scheduling gates add the SchedulingGated condition; matchLabelKeys merge into selectors', () => {
    const pod = created({
      containers: [app()], schedulingGates: [{ name: 'example.com/gate' }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['pod-template-hash'] }],
    }, { labels: { app: 'web', 'pod-template-hash': 'abc' } });
    expect((pod.status as Json).conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' });
    expect((pod.spec as Json).topologySpreadConstraints[0].labelSelector.matchExpressions).toEqual([{ key: 'pod-template-hash', operator: 'In', values: ['abc'] }]);
  });

  test('status writes keep the spec and an unset qosClass; podIP and podIPs agree', () => {
    const old = created({ containers: [app()] });
    const next: KubeObject = { ...structuredClone(old), spec: { containers: [] }, status: { phase: 'Running', podIP: '10.0.0.7' } };
    const status = pods.subresourceStrategies!.status;
    status.prepareForUpdate!(next, old);
    expect(next.spec).toEqual(old.spec);
    expect(next.status).toEqual({ phase: 'Running', podIP: '10.0.0.7', podIPs: [{ ip: '10.0.0.7' }], qosClass: 'BestEffort' });
    expect(status.validateUpdate!(next, old).map(fieldErrorString)).toEqual([]);
  });

  test('an ephemeral-containers write takes only spec.ephemeralContainers', () => {
    const old = created({ containers: [app()], serviceAccountName: 'default' });
    const next: KubeObject = structuredClone(old);
    next.metadata.labels = { sneaky: 'true' };
    (next.spec as Json).restartPolicy = 'Never';
    (next.spec as Json).ephemeralContainers = [{ name: 'debug', image: 'busybox:1.36', targetContainerName: 'app' }];
    pods.strategy!.defaults!(next);
    const strategy = pods.subresourceStrategies!.ephemeralcontainers;
    strategy.prepareForUpdate!(next, old);
    expect(next.metadata.labels).toBeUndefined();
    expect((next.spec as Json).restartPolicy).toBe('Always');
    expect((next.spec as Json).ephemeralContainers[0]).toMatchObject({ name: 'debug', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' });
    expect(strategy.validateUpdate!(next, old).map(fieldErrorString)).toEqual([]);
  });

  test('field selectors', () => {
    const pod = created({ containers: [app()], nodeName: 'node-a', hostNetwork: true });
    const f = pods.selectableFields!;
    expect([f['spec.nodeName'](pod), f['spec.hostNetwork'](pod), f['status.phase'](pod), f['spec.restartPolicy'](pod), f['status.podIP'](pod)]).toEqual(['node-a', 'true', 'Pending', 'Always', '']);
  });
});

describe('Pod table (printPod)', () => {
  test('a new pod: 0/1 Pending, restarts as a string, wide columns <none>', () => {
    const pod = created({ containers: [app()] });
    const cells = podCells(pod);
    expect([cells[0], cells[1], cells[2], cells[4], cells[5], cells[6], cells[7]]).toEqual(['0/1', 'Pending', '0', '<none>', '<none>', '<none>', '<none>']);
    expect(pods.table!.columns.map((c) => [c.name, c.priority])).toEqual([['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]]);
  });

  test('running, waiting, init and terminating states', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    const base = created({ containers: [app(), app({ name: 'side' })], readinessGates: [{ conditionType: 'example.com/ready' }] });
    const running: KubeObject = { ...base, status: {
      phase: 'Running', podIPs: [{ ip: '10.0.0.7' }],
      conditions: [{ type: 'example.com/ready', status: 'True' }],
      containerStatuses: [
        { name: 'app', ready: true, restartCount: 2, state: { running: {} }, lastTerminationState: { terminated: { finishedAt: '2026-01-01T00:05:00Z' } } },
        { name: 'side', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    } };
    const cells = podCells(running, now);
    expect([cells[0], cells[1], cells[2], cells[4], cells[7]]).toEqual(['1/2', 'CrashLoopBackOff', '2 (5m ago)', '10.0.0.7', '1/1']);
    const init: KubeObject = { ...base, spec: { ...(base.spec as Json), initContainers: [app({ name: 'init' })] }, status: { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }] } };
    expect(podCells(init, now)[1]).toBe('Init:0/1');
    const deleting: KubeObject = { ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:09:00Z' } };
    expect(podCells(deleting, now)[1]).toBe('Terminating');
  });
});
