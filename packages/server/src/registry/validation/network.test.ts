import { formatIP, isIPv4String, isIPv6String, isValidPortName, parseCIDR, parseIP, validateEndpointIP, validateIP, validatePortNumOrName } from './network.js';

describe('IP and CIDR parsing (netutils sloppy parsers)', () => {
  test('IPv4 with leading zeros parses; garbage does not', () => {
    expect(formatIP(parseIP('010.001.2.3')!)).toBe('10.1.2.3');
    for (const bad of ['', 'db.example.com', '1.2.3', '1.2.3.256', '1.2.3.4.5', '1.2.3.-4', '::1%eth0', '1:2:3:4:5:6:7:8:9']) expect([bad, parseIP(bad)]).toEqual([bad, undefined]);
  });

  test('IPv6 prints as Go does: lower case, the longest zero run compressed, IPv4-mapped as dotted', () => {
    expect(formatIP(parseIP('2001:DB8:0:0:0:0:0:1')!)).toBe('2001:db8::1');
    expect(formatIP(parseIP('fd00:0:0:1:0:0:0:0')!)).toBe('fd00:0:0:1::');
    expect(formatIP(parseIP('1:0:2:3:4:5:6:7')!)).toBe('1:0:2:3:4:5:6:7');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
    expect(isIPv4String('::ffff:1.2.3.4')).toBe(true);
    expect(isIPv6String('::1')).toBe(true);
    expect(isIPv6String('10.0.0.1')).toBe(false);
  });

  test('CIDRs keep the network address', () => {
    const c = parseCIDR('10.244.3.7/24')!;
    expect([formatIP(c.ip), c.prefix]).toEqual(['10.244.3.0', 24]);
    expect(parseCIDR('10.244.3.0')).toBeUndefined();
    expect(parseCIDR('10.0.0.0/33')).toBeUndefined();
    expect(formatIP(parseCIDR('fd00::1/64')!.ip)).toBe('fd00::');
  });
});

describe('kube messages', () => {
  test('an unparsable IP', () => {
    expect(validateIP('db.example.com', 'subsets[0].addresses[0].ip')).toEqual([
      { type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', detail: 'Invalid value: "db.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
    ]);
  });

  test('endpoint IPs may not be special addresses', () => {
    const detail = (ip: string) => validateEndpointIP(ip, 'ip').map((e) => e.detail);
    expect(detail('127.0.0.1')).toEqual(['Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    expect(detail('0.0.0.0')).toEqual(['Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
    expect(detail('169.254.1.1')).toEqual(['Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    expect(detail('224.0.0.5')).toEqual(['Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
    expect(detail('fe80::1')).toEqual(['Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    expect(detail('::1')).toEqual(['Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    expect(detail('10.1.2.3')).toEqual([]);
    expect(detail('nope')).toEqual(['Invalid value: "nope": must be a valid IP address']);
  });

  test('port names are IANA service names', () => {
    expect(isValidPortName('http')).toEqual([]);
    expect(isValidPortName('Bad_Port')).toEqual(['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)']);
    expect(isValidPortName('123')).toEqual(['must contain at least one letter (a-z)']);
    expect(isValidPortName('-a--b-toolongname')).toEqual([
      'must be no more than 15 characters', 'must not contain consecutive hyphens', 'must not begin or end with a hyphen',
    ]);
    expect(validatePortNumOrName(0, 'spec.ports[0].targetPort')[0].detail).toBe('Invalid value: 0: must be between 1 and 65535, inclusive');
    expect(validatePortNumOrName('Bad_Port', 'p')[0].detail).toBe('Invalid value: "Bad_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  });
});
