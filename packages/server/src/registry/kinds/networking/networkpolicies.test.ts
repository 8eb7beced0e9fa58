import { networkPolicies } from './networkpolicies.js';
import { create, object, update } from './testing.js';
import { networkPolicyWarnings } from './warnings.js';

describe('NetworkPolicy', () => {
  it('defaults policyTypes from the rules and port protocols to TCP', () => {
    const np = object({ spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } });
    expect(create(networkPolicies, np)).toEqual([]);
    expect(np.spec).toEqual({ podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] });
    const ingressOnly = object({ spec: { podSelector: {} } });
    create(networkPolicies, ingressOnly);
    expect((ingressOnly.spec as { policyTypes: string[] }).policyTypes).toEqual(['Ingress']);
  });

  it('refuses unknown policy types and protocols', () => {
    expect(create(networkPolicies, object({ spec: { podSelector: {}, policyTypes: ['Sideways'] } }))).toEqual(['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']);
    expect(create(networkPolicies, object({ spec: { ingress: [{ ports: [{ port: 1, protocol: 'ICMP' }] }] } })))
      .toEqual(['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"']);
  });

  it('quotes the port, as kube 1.35 does, when endPort is below it', () => {
    expect(create(networkPolicies, object({ spec: { egress: [{ ports: [{ port: 9000, endPort: 8000 }] }] } })))
      .toEqual(['spec.egress[0].ports[0].endPort: Invalid value: 9000: must be greater than or equal to `port`']);
    expect(create(networkPolicies, object({ spec: { egress: [{ ports: [{ port: 'http', endPort: 8000 }] }] } })))
      .toEqual(['spec.egress[0].ports[0].endPort: Invalid value: 8000: may not be specified when `port` is non-numeric']);
  });

  it('checks peers and ipBlocks', () => {
    expect(create(networkPolicies, object({ spec: { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }, {}] }] } }))).toEqual([
      'spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer',
      'spec.ingress[0].from[1]: Required value: must specify a peer',
    ]);
    expect(create(networkPolicies, object({ spec: { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16', '10.0.0.0/8', '10.0.0.0/x'] } }] }] } }))).toEqual([
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
      'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
      'spec.egress[0].to[0].ipBlock.except[2]: Invalid value: "10.0.0.0/x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('accepts the CIDR forms StrictIPCIDRValidation (off in 1.35) would refuse, on creates and updates alike', () => {
    const spec = { egress: [{ to: [{ ipBlock: { cidr: '010.0.0.1/8', except: ['::ffff:10.1.0.0/112'] } }] }], policyTypes: ['Egress'] };
    expect(create(networkPolicies, object({ spec: structuredClone(spec) }))).toEqual([]);
    expect(update(networkPolicies, object({ spec: structuredClone(spec) }), object({ spec }))).toEqual([]);
  });

  it('warns about non-canonical ipBlock CIDRs, ingress peers first, on creates and on every update', () => {
    const np = object({ spec: {
      egress: [{ to: [{ podSelector: {} }, { ipBlock: { cidr: '2001:DB8::/32', except: ['2001:db8::/48', '2001:db8:0:0:1:0:0:0/80'] } }] }],
      ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }, { from: [{ ipBlock: { cidr: '10.1.2.3/8', except: ['::ffff:10.1.0.0/112'] } }] }],
    } });
    const expected = [
      'spec.ingress[1].from[0].ipBlock.cidr: CIDR value "10.1.2.3/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.1.2.3/32"?)',
      'spec.ingress[1].from[0].ipBlock.except[0]: non-standard CIDR value "::ffff:10.1.0.0/112" will be considered invalid in a future Kubernetes release: use "10.1.0.0/16"',
      'spec.egress[0].to[1].ipBlock.cidr: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")',
      'spec.egress[0].to[1].ipBlock.except[1]: IPv6 CIDR value "2001:db8:0:0:1:0:0:0/80" should be in RFC 5952 canonical format ("2001:db8:0:0:1::/80")',
    ];
    expect(networkPolicies.strategy!.warningsOnCreate!(np)).toEqual(expected);
    expect(networkPolicies.strategy!.warningsOnUpdate!(np, np)).toEqual(expected);
    expect(networkPolicyWarnings(object({ spec: { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] } }))).toEqual([]);
  });

  it('prints the pod selector', () => {
    expect(networkPolicies.table!.cells(object({ spec: { podSelector: { matchLabels: { b: '2', a: '1' } } } }))[0]).toBe('a=1,b=2');
    expect(networkPolicies.table!.cells(object({ spec: { podSelector: {} } }))[0]).toBe('<none>');
  });
});
