import { ipAddresses, serviceCIDRs } from './ipaddresses.js';
import { formatIP, isValidCIDR, isValidIP, parseIP } from './ip.js';
import { create, messages, object, update } from './testing.js';

describe('IP helpers', () => {
  it('formats IPs as Go does', () => {
    expect(formatIP(parseIP('2001:0db8:0:0:0:0:0:1')!)).toBe('2001:db8::1');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
    expect(formatIP(parseIP('1:0:0:1:0:0:0:1')!)).toBe('1:0:0:1::1');
  });

  it('reports kube strict IP and CIDR messages', () => {
    expect(messages(isValidIP('x', '2001:DB8::1'))).toEqual(['x: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")']);
    expect(messages(isValidIP('x', 'nope'))).toEqual(['x: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    expect(messages(isValidCIDR('x', '10.0.0.0/08'))).toEqual(['x: Invalid value: "10.0.0.0/08": must not have leading 0s in IP or prefix length']);
  });
});

describe('IPAddress and ServiceCIDR', () => {
  it('names an IPAddress by its canonical address and needs a parent', () => {
    expect(ipAddresses.strategy!.nameValidator!('10.96.0.1', false)).toEqual([]);
    expect(ipAddresses.strategy!.nameValidator!('10.096.0.1', false)).toEqual(['must not have leading 0s']);
    expect(create(ipAddresses, object({ spec: {} }))).toEqual(['spec.parentRef: Required value']);
    expect(create(ipAddresses, object({ spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } } }))).toEqual([]);
  });

  it('keeps an IPAddress parent immutable', () => {
    const old = object({ spec: { parentRef: { resource: 'services', name: 'a' } } });
    expect(update(ipAddresses, object({ spec: { parentRef: { resource: 'services', name: 'b' } } }), old))
      .toEqual(['spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"","Name":"b"}: field is immutable']);
  });

  it('validates service CIDRs and allows adding a second family only', () => {
    expect(create(serviceCIDRs, object({ spec: { cidrs: ['10.96.0.0/12', '10.0.0.0/8'] } })))
      .toEqual(['spec.cidrs: Invalid value: ["10.96.0.0/12","10.0.0.0/8"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64']);
    const old = object({ spec: { cidrs: ['10.96.0.0/12'] } });
    expect(update(serviceCIDRs, object({ spec: { cidrs: ['10.96.0.0/12', 'fd00::/108'] } }), old)).toEqual([]);
    expect(update(serviceCIDRs, object({ spec: { cidrs: ['10.100.0.0/16'] } }), old)).toEqual(['spec.cidrs[0]: Invalid value: "10.100.0.0/16": field is immutable']);
  });
});
