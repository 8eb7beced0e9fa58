import { fieldErrorString } from '@windlass/machinery';
import { defaultPod, resizedSpec, validatePodResize } from './index.js';

type Json = Record<string, any>;

function pod(resources: Json): Json {
  const p: Json = { metadata: { name: 'r', namespace: 'ns' }, spec: { serviceAccountName: 'default', containers: [{ name: 'app', image: 'a:1', resources }] } };
  defaultPod(p);
  p.status = { phase: 'Pending', qosClass: 'Burstable' };
  return p;
}

describe('pods/resize', () => {
  test('only resources and resize policies are taken from the request', () => {
    const old = pod({ requests: { cpu: '100m' } });
    const req = structuredClone(old);
    req.spec.containers[0].image = 'a:2';
    req.spec.containers[0].resources = { requests: { cpu: '200m' } };
    const spec: Json = resizedSpec(req.spec, old.spec);
    expect(spec.containers[0]).toMatchObject({ image: 'a:1', resources: { requests: { cpu: '200m' } } });
    expect(validatePodResize({ ...req, spec }, old, {}).map(fieldErrorString)).toEqual([]);
  });

  test('kube\'s refusals: memory limits shrinking, other resources, QoS changes', () => {
    const old = pod({ requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } });
    const shrink = structuredClone(old);
    shrink.spec.containers[0].resources.limits.memory = '64Mi';
    expect(validatePodResize(shrink, old, {}).map(fieldErrorString)).toEqual(['spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer']);
    const storage = structuredClone(old);
    storage.spec.containers[0].resources.requests['ephemeral-storage'] = '1Gi';
    expect(validatePodResize(storage, old, {}).map(fieldErrorString)).toEqual(['spec: Forbidden: only cpu and memory resources are mutable']);
    const removed = structuredClone(old);
    delete removed.spec.containers[0].resources.requests;
    expect(validatePodResize(removed, old, {}).map(fieldErrorString)).toContain('spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed');
  });
});
