/**
 * --advertise-address and --endpoint-reconciler-type as kube-apiserver parses them, and the
 * address a replica lists in the `kubernetes` Endpoints when the flag is not given.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { advertiseAddress, parseFlags, usage } from './flags.js';
import { flagError } from './flagtesting.js';


const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null }) as NetworkInterfaceInfo;
const host = { lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)], eth0: [nic('fe80::1', 'IPv6'), nic('192.168.7.20', 'IPv4')], eth1: [nic('10.9.0.4', 'IPv4')] };

describe('--advertise-address', () => {
  it('takes an IP address, as pflag\'s ip flag', () => {
    expect(parseFlags(['start', '--advertise-address', '10.0.0.5']).options.advertiseAddress).toBe('10.0.0.5');
    expect(parseFlags(['start', '--advertise-address=fd00::5']).options.advertiseAddress).toBe('fd00::5');
    expect(parseFlags(['start']).options.advertiseAddress).toBeUndefined();
    expect(flagError(['start', '--advertise-address', 'node-1'])).toBe('invalid argument "node-1" for "--advertise-address" flag: failed to parse IP: "node-1"');
  });

  it('defaults as kube-apiserver does: the flag, else a specific bind address, else the host\'s first non-loopback IPv4', () => {
    expect(advertiseAddress({ advertiseAddress: '10.0.0.5', bindAddress: '0.0.0.0' }, host)).toBe('10.0.0.5');
    expect(advertiseAddress({ bindAddress: '192.168.7.99' }, host)).toBe('192.168.7.99');
    expect(advertiseAddress({ bindAddress: '0.0.0.0' }, host)).toBe('192.168.7.20');
    expect(advertiseAddress({ bindAddress: '::' }, host)).toBe('192.168.7.20');
    // kube treats an unspecified --advertise-address as unset.
    expect(advertiseAddress({ advertiseAddress: '0.0.0.0', bindAddress: '0.0.0.0' }, host)).toBe('192.168.7.20');
    expect(advertiseAddress({ bindAddress: '0.0.0.0' }, { lo: host.lo })).toBeUndefined();
    // Windlass's loopback default is advertised as is (and then records no endpoints).
    expect(advertiseAddress({ bindAddress: '127.0.0.1' }, host)).toBe('127.0.0.1');
  });
});

describe('--endpoint-reconciler-type', () => {
  it('is lease unless none is asked for', () => {
    expect(parseFlags(['start']).options.endpointReconcilerType).toBe('lease');
    expect(parseFlags(['start', '--endpoint-reconciler-type', 'none']).options.endpointReconcilerType).toBe('none');
    expect(parseFlags(['start', '--endpoint-reconciler-type=lease']).options.endpointReconcilerType).toBe('lease');
  });

  it('refuses master-count with the reason, and unknown types', () => {
    expect(flagError(['start', '--endpoint-reconciler-type', 'master-count']))
      .toBe('invalid argument "master-count" for "--endpoint-reconciler-type" flag: master-count is not supported by windlass: replicas do not know their count (--apiserver-count); use lease');
    expect(flagError(['start', '--endpoint-reconciler-type', 'leases'])).toBe('invalid argument "leases" for "--endpoint-reconciler-type" flag: unknown endpoint reconciler type: leases');
  });

  it('both flags are in the help, in pflag\'s order', () => {
    const help = usage();
    expect(help).toMatch(/--advertise-address ip +The IP address on which to advertise the apiserver/);
    expect(help).toMatch(/--endpoint-reconciler-type string +Use an endpoint reconciler \(lease, none\).*\(default "lease"\)/);
    expect(help.indexOf('--admission-control-config-file')).toBeLessThan(help.indexOf('--advertise-address'));
    expect(help.indexOf('--advertise-address')).toBeLessThan(help.indexOf('--anonymous-auth'));
    expect(help.indexOf('--embedded-path')).toBeLessThan(help.indexOf('--endpoint-reconciler-type'));
    expect(help.indexOf('--endpoint-reconciler-type')).toBeLessThan(help.indexOf('--etcd-cafile'));
  });
});
