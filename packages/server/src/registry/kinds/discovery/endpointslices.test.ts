import type { KubeObject, Strategy } from '../../types.js';
import { endpointSlices } from './endpointslices.js';

const strategy = endpointSlices.strategy as Required<Pick<Strategy, 'defaults' | 'validate' | 'validateUpdate' | 'prepareForCreate' | 'prepareForUpdate'>>;
const messages = (errs: Array<{ field: string; detail: string }>) => errs.map((e) => `${e.field}: ${e.detail}`);
const slice = (fields: Record<string, unknown>): KubeObject => {
  const s = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc12', namespace: 'ns', generation: 1 }, ...fields };
  strategy.defaults(s);
  return s;
};

describe('EndpointSlice', () => {
  test('ports are named "" and TCP by default', () => {
    expect(slice({ addressType: 'IPv4', ports: [{ port: 8080 }] }).ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
  });

  test('validation', () => {
    expect(strategy.validate(slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.244.1.7'] }], ports: [{ port: 8080 }] }))).toEqual([]);
    expect(strategy.validate(slice({ addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com'] }] }))).toEqual([]);
    // Since kube 1.33 an address that is no IP gets that one error.
    expect(messages(strategy.validate(slice({ addressType: 'IPv4', endpoints: [{ addresses: ['web.example.com'] }] })))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "web.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    expect(messages(strategy.validate(slice({ addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: [] }] })))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be an IPv6 address', 'endpoints[1].addresses: Required value: must contain at least 1 address',
    ]);
    expect(messages(strategy.validate(slice({ addressType: 'IPv4', ports: [{ name: 'HTTP', port: 80 }, { name: 'HTTP', port: 81 }] })))).toEqual([
      "ports[0].name: Invalid value: \"HTTP\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "ports[1].name: Invalid value: \"HTTP\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'ports[1].name: Duplicate value: "HTTP"',
    ]);
    expect(messages(strategy.validate(slice({ addressType: 'Other' })))).toEqual(['addressType: Unsupported value: "Other": supported values: "FQDN", "IPv4", "IPv6"']);
    expect(messages(strategy.validateUpdate(slice({ addressType: 'IPv6' }), slice({ addressType: 'IPv4' })))).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });

  test('generation follows changes to anything but metadata (labels included); deprecatedTopology is dropped on v1 writes', () => {
    const old = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-a' } }] });
    const same = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-a' } }] });
    same.metadata.annotations = { a: 'b' };
    strategy.prepareForUpdate(same, old);
    expect(same.metadata.generation).toBe(1);
    const changed = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.2'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-a' } }] });
    strategy.prepareForUpdate(changed, old);
    expect(changed.metadata.generation).toBe(2);
    expect(changed.endpoints).toEqual([{ addresses: ['10.0.0.2'], nodeName: 'node-a' }]);
    const relabeled = slice({ addressType: 'IPv4', endpoints: old.endpoints });
    relabeled.metadata.labels = { x: 'y' };
    strategy.prepareForUpdate(relabeled, old);
    expect(relabeled.metadata.generation).toBe(2);
  });

  test('table', () => {
    const s = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }], ports: [{ port: 80 }, { name: 'x' }] });
    s.metadata.creationTimestamp = null;
    expect(endpointSlices.table!.cells(s)).toEqual(['IPv4', '80,x', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...', '<unknown>']);
    expect(endpointSlices.table!.cells(slice({ addressType: 'FQDN' })).slice(1, 3)).toEqual(['<unset>', '<unset>']);
  });
});
