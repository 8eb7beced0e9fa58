/** IP, CIDR and name warnings as apimachinery's GetWarningsForIP/GetWarningsForCIDR word them. */
import { cidrWarnings, dnsLabelNameWarning, ipWarnings } from './warnings.js';
import { serviceWarnings } from './core/warnings.js';

describe('ipWarnings', () => {
  test.each([
    ['10.0.0.1', []],
    ['2001:db8::1', []],
    ['010.0.0.1', ['f: non-standard IP address "010.0.0.1" will be considered invalid in a future Kubernetes release: use "10.0.0.1"']],
    ['::ffff:1.2.3.4', ['f: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future Kubernetes release: use "1.2.3.4"']],
    ['2001:DB8:0:0:0:0:0:1', ['f: IPv6 address "2001:DB8:0:0:0:0:0:1" should be in RFC 5952 canonical format ("2001:db8::1")']],
  ])('%s', (ip, expected) => expect(ipWarnings('f', ip)).toEqual(expected));
});

describe('cidrWarnings', () => {
  test.each([
    ['10.0.0.0/8', []],
    ['10.1.2.3/8', ['f: CIDR value "10.1.2.3/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.1.2.3/32"?)']],
    ['2001:DB8::/64', ['f: IPv6 CIDR value "2001:DB8::/64" should be in RFC 5952 canonical format ("2001:db8::/64")']],
    ['010.0.0.0/8', ['f: non-standard CIDR value "010.0.0.0/8" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"']],
    // Parsed as IPv6, so Go's single-address form is a /128 and the network keeps the IPv4 spelling only while the mask covers ::ffff:.
    ['::ffff:1.2.3.4/120', [
      'f: CIDR value "::ffff:1.2.3.4/120" is ambiguous in this context (should be "1.2.3.0/24" or "1.2.3.4/128"?)',
      'f: non-standard CIDR value "::ffff:1.2.3.4/120" will be considered invalid in a future Kubernetes release: use "1.2.3.0/24"',
    ]],
    ['::ffff:1.2.3.4/64', [
      'f: CIDR value "::ffff:1.2.3.4/64" is ambiguous in this context (should be "::/64" or "1.2.3.4/128"?)',
      'f: non-standard CIDR value "::ffff:1.2.3.4/64" will be considered invalid in a future Kubernetes release: use "::/64"',
    ]],
    ['not-a-cidr', []],
  ])('%s', (cidr, expected) => expect(cidrWarnings('f', cidr)).toEqual(expected));
});

test('names that are not DNS labels', () => {
  expect(dnsLabelNameWarning('web')).toEqual([]);
  expect(dnsLabelNameWarning('web.v1')).toEqual([
    'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
  ]);
});

test('service warnings: headless leftovers, external IPs, externalName and PreferClose', () => {
  expect(serviceWarnings({
    metadata: { name: 's', annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } },
    spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], externalIPs: ['1.2.3.4'], sessionAffinity: 'ClientIP', externalName: 'x.example', trafficDistribution: 'PreferClose' },
  })).toEqual([
    'annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead',
    'spec.externalIPs is ignored for headless services',
    'spec.SessionAffinity is ignored for headless services',
    'spec.externalName is ignored when spec.type is not "ExternalName"',
    'spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"',
  ]);
  expect(serviceWarnings({ metadata: { name: 's' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], externalIPs: ['1.2.3.4'], sessionAffinity: 'None' } }))
    .toEqual(['spec.externalIPs is deprecated and may no longer be implemented in some clusters']);
});
