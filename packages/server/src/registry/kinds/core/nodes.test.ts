import type { AdmissionAttributes, KubeObject, Strategy } from '../../types.js';
import { nodes, taintNodesByCondition, validateNode, validateNodeUpdate } from './nodes.js';

const strategy = nodes.strategy as Required<Pick<Strategy, 'defaults' | 'normalize' | 'prepareForCreate'>>;

function node(spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec, ...extra };
}

const messages = (errs: Array<{ field: string; detail: string }>) => errs.map((e) => `${e.field}: ${e.detail}`);

describe('Node', () => {
  test('TaintNodesByCondition adds the not-ready taint on create, once', async () => {
    const n = node({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
    await taintNodesByCondition.mutate!({ operation: 'CREATE', subresource: '', obj: n } as AdmissionAttributes);
    await taintNodesByCondition.mutate!({ operation: 'CREATE', subresource: '', obj: n } as AdmissionAttributes);
    expect((n.spec as { taints: unknown[] }).taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    ]);
    const updated = node();
    await taintNodesByCondition.mutate!({ operation: 'UPDATE', subresource: '', obj: updated } as AdmissionAttributes);
    expect(updated.spec).toEqual({});
  });

  test('podCIDR and podCIDRs are one field; status sent on create is kept; allocatable defaults to capacity', () => {
    const n = node({ podCIDR: '10.244.3.0/24' }, { status: { capacity: { cpu: '4' } } });
    strategy.defaults(n);
    strategy.normalize(n);
    delete n.status; // the Store resets status on create…
    strategy.prepareForCreate(n); // …and the node strategy keeps what the kubelet sent
    expect(n.spec).toEqual({ podCIDR: '10.244.3.0/24', podCIDRs: ['10.244.3.0/24'] });
    expect(n.status).toEqual({ capacity: { cpu: '4' }, allocatable: { cpu: '4' } });
  });

  test('validation: taints under metadata.taints, pod CIDRs, quantities', () => {
    expect(messages(validateNode(node({ taints: [{ key: 'bad key', effect: 'NoSchedule' }] })))).toEqual([
      "metadata.taints[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(messages(validateNode(node({ taints: [{ key: 'k', value: 'a', effect: 'NoSchedule' }, { key: 'k', value: 'b', effect: 'NoSchedule' }, { key: 'k', effect: 'Sometimes' }] })))).toEqual([
      'metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"b", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair',
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
    expect(messages(validateNode(node({ podCIDRs: ['10.244.3.0'] })))).toEqual(['spec.podCIDRs[0]: Invalid value: "10.244.3.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
    expect(messages(validateNode(node({ podCIDRs: ['10.244.3.0/24', '10.244.4.0/24'] })))).toEqual(['spec.podCIDRs: Invalid value: ["10.244.3.0/24","10.244.4.0/24"]: may specify no more than one CIDR for each IP family']);
    expect(validateNode(node({ podCIDRs: ['10.244.3.0/24', 'fd00::/64'] }))).toEqual([]);
    expect(messages(validateNode(node({}, { status: { capacity: { pods: '1500m' } } })))[0]).toMatch(/^status\.capacity\.pods: Invalid value: resource\.Quantity\{.*\}: must be an integer$/);
  });

  test('update validation: podCIDRs and providerID only set once, duplicate addresses', () => {
    const old = node({ podCIDRs: ['10.244.3.0/24'], providerID: 'aws:///a' });
    expect(messages(validateNodeUpdate(node({ podCIDRs: ['10.244.4.0/24'], providerID: 'aws:///b' }), old))).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
    const dup = node({}, { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] } });
    expect(messages(validateNodeUpdate(dup, node()))).toEqual(['status.addresses[1]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}']);
  });

  test('field selector and table', () => {
    expect(nodes.selectableFields!['spec.unschedulable'](node({ unschedulable: true }))).toBe('true');
    expect(nodes.selectableFields!['spec.unschedulable'](node())).toBe('false');
    const n = node({ unschedulable: true }, {
      status: {
        conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '10.0.1.5' }],
        nodeInfo: { kubeletVersion: 'v1.35.0', osImage: 'Ubuntu 22.04', kernelVersion: '', containerRuntimeVersion: 'containerd://1.7' },
      },
    });
    n.metadata.labels = { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master' };
    n.metadata.creationTimestamp = null;
    expect(nodes.table!.cells(n)).toEqual(['Ready,SchedulingDisabled', 'control-plane,master', '<unknown>', 'v1.35.0', '10.0.1.5', '<none>', 'Ubuntu 22.04', '<unknown>', 'containerd://1.7']);
    expect(nodes.table!.cells(node()).slice(0, 2)).toEqual(['Unknown', '<none>']);
  });
});
