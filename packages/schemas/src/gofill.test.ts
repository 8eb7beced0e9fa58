import { goDecoderFor, goEncoderFor, loadGoTypes, loadSchemas } from './index.js';

const schemas = await loadSchemas();
await loadGoTypes();
const encode = (group: string, version: string, kind: string, obj: any) => {
  goEncoderFor(schemas, { group, version, kind })!(obj);
  return obj;
};

describe('objects as Go encodes kube structs', () => {
  test('non-pointer structs are always written, with their own always-written fields', () => {
    const d = encode('apps', 'v1', 'Deployment', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    });
    // A template's ObjectMeta writes its zero Time as null; a container's ResourceRequirements as {}.
    expect(d.spec.template.metadata).toEqual({ labels: { a: 'b' }, creationTimestamp: null });
    expect(d.spec.template.spec.containers[0].resources).toEqual({});
    expect(d.spec.selector).toBeNull(); // a pointer without omitempty: written as null
    expect('progressDeadlineSeconds' in d.spec).toBe(false); // a pointer with omitempty: left out when nil
    expect(d.spec.strategy).toEqual({});
    expect(d.status).toEqual({});
    expect(d.metadata.creationTimestamp).toBeNull();
  });

  test('fields without omitempty get their zero value; omitempty fields holding an empty value are dropped', () => {
    const pdb = encode('policy', 'v1', 'PodDisruptionBudget', {
      metadata: { name: 'p', labels: {}, finalizers: [] }, spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: null }, status: {},
    });
    expect(pdb.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    expect(pdb.metadata).toEqual({ name: 'p', creationTimestamp: null });
    expect('unhealthyPodEvictionPolicy' in pdb.spec).toBe(false);
    const svc = encode('', 'v1', 'Service', { metadata: { name: 's' }, spec: { ports: [{ port: 80, name: '' }], clusterIP: '' } });
    expect(svc.spec).toEqual({ ports: [{ port: 80, targetPort: 0 }] });
  });

  test('pointers to scalars keep their zero values; inline structs are flattened', () => {
    const d = encode('apps', 'v1', 'Deployment', { metadata: { name: 'x' }, spec: { replicas: 0, paused: false, template: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } } } });
    expect(d.spec.replicas).toBe(0); // *int32
    expect('paused' in d.spec).toBe(false); // bool, omitempty
    expect(d.spec.template.spec.volumes[0]).toEqual({ name: 'v', emptyDir: {} });
  });

  test('an empty list or map without omitempty reads back as null, as after kube\'s protobuf storage', () => {
    const n = encode('storage.k8s.io', 'v1', 'CSINode', { metadata: { name: 'n' }, spec: { drivers: [] } });
    expect(n.spec.drivers).toBeNull();
  });

  test('kinds without a Go type get no encoder', () => {
    expect(goEncoderFor(schemas, { group: 'example.com', version: 'v1', kind: 'Widget' })).toBeNull();
  });
});

describe('what decoding into the Go types forgets', () => {
  const decode = (group: string, version: string, kind: string, obj: any) => {
    goDecoderFor(schemas, { group, version, kind })!(obj);
    return obj;
  };

  test('omitempty zero values are dropped at every depth; nothing is filled in', () => {
    const d = decode('apps', 'v1', 'Deployment', {
      metadata: { name: 'web', labels: {}, creationTimestamp: null },
      spec: {
        minReadySeconds: 0, replicas: 0, paused: false,
        template: { spec: { volumes: [{ name: 'v', azureFile: { secretName: 's', shareName: 'x', readOnly: false } }],
          containers: [{ name: 'c', image: 'i', imagePullPolicy: '', volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false }], ports: [] }] } },
      },
    });
    // kube's Deployment struct holds the same value with or without them (a patch re-sending them changes nothing).
    expect(d).toEqual({
      metadata: { name: 'web', creationTimestamp: null }, // a Time is written back as null: kept as the stored form has it
      spec: {
        replicas: 0, // *int32: a pointer keeps its zero value
        template: { spec: { volumes: [{ name: 'v', azureFile: { secretName: 's', shareName: 'x' } }],
          containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/v' }] }] } },
      },
    });
  });

  test('fields without omitempty keep their zero values; pointers keep false and 0', () => {
    const svc = decode('', 'v1', 'Service', { metadata: { name: 's' }, spec: { ports: [{ port: 0, nodePort: 0, name: '' }], allocateLoadBalancerNodePorts: false } });
    expect(svc.spec).toEqual({ ports: [{ port: 0 }], allocateLoadBalancerNodePorts: false });
  });
});
