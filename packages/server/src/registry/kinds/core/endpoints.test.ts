import type { KubeObject, Strategy } from '../../types.js';
import { endpoints, repackSubsets, validateEndpoints } from './endpoints.js';

const strategy = endpoints.strategy as Required<Pick<Strategy, 'defaults' | 'prepareForCreate'>>;
const messages = (errs: Array<{ field: string; detail: string }>) => errs.map((e) => `${e.field}: ${e.detail}`);
const ep = (subsets: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db' }, subsets });

describe('Endpoints', () => {
  test('ports default to TCP', () => {
    const e = ep([{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 5432 }] }]);
    strategy.defaults(e);
    expect(e.subsets).toEqual([{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
  });

  test('validation with kube\'s paths and messages', () => {
    expect(messages(validateEndpoints(ep([{ addresses: [{ ip: 'db.example.com' }] }])))).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "db.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'subsets[0].addresses[0].ip: Invalid value: "db.example.com": must be a valid IP address',
    ]);
    expect(messages(validateEndpoints(ep([{ addresses: [{ ip: '127.0.0.1' }] }])))).toEqual(['subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    expect(messages(validateEndpoints(ep([{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 0, protocol: 'TCP' }] }])))).toEqual(['subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive']);
    expect(messages(validateEndpoints(ep([{ ports: [{ port: 1, protocol: 'TCP' }, { port: 2, protocol: 'TCP' }] }])))).toEqual([
      'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`', 'subsets[0].ports[0].name: Required value', 'subsets[0].ports[1].name: Required value',
    ]);
    expect(validateEndpoints(ep([{ addresses: [{ ip: '10.1.2.3' }] }]))).toEqual([]);
  });

  test('subsets are repacked: addresses grouped by the ports they serve, sorted by IP, ready beating not ready', () => {
    const packed = repackSubsets([
      { addresses: [{ ip: '10.0.0.9' }, { ip: '10.0.0.10' }], ports: [{ name: 'a', port: 1, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'a', port: 1, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.3' }], ports: [{ name: 'b', port: 2, protocol: 'TCP' }] },
    ]);
    expect(packed).toEqual([
      { addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.9' }, { ip: '10.0.0.10' }], ports: [{ name: 'a', port: 1, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.3' }], ports: [{ name: 'b', port: 2, protocol: 'TCP' }] },
    ]);
    const invalid = ep([{ addresses: [{ ip: 'x' }, { ip: '10.0.0.1' }] }]);
    strategy.prepareForCreate(invalid);
    expect(invalid.subsets).toEqual([{ addresses: [{ ip: 'x' }, { ip: '10.0.0.1' }] }]);
  });

  test('table: ip:port pairs, at most three', () => {
    const e = ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }]);
    e.metadata.creationTimestamp = null;
    expect(endpoints.table!.cells(e)).toEqual(['10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '<unknown>']);
    expect(endpoints.table!.cells(ep([]))[0]).toBe('<none>');
  });
});
