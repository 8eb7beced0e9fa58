/**
 * CRD validation rules calling kube's CEL libraries (quantity, url, ip, cidr, format) are
 * enforced: false rules are refused with their messages, and values a library cannot parse with
 * kube's "<error> evaluating rule: <rule>" naming the schema's type.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../testing/client.js';

const group = 'libs.example.com';
const str = (rule: string, message?: string) => ({ type: 'string', maxLength: 253, 'x-kubernetes-validations': [{ rule, ...(message ? { message } : {}) }] });

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gateways.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'gateways', kind: 'Gateway' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                memory: str("quantity(self).isLessThan(quantity('1Gi'))", 'memory must be below 1Gi'),
                endpoint: str("isURL(self) && url(self).getScheme() == 'https'", 'endpoint must be an https URL'),
                address: str("ip(self).family() == 4 && !ip(self).isLoopback()", 'address must be a non-loopback IPv4 address'),
                subnet: str("cidr(self).prefixLength() >= 16"),
                hostname: str('!format.dns1123Subdomain().validate(self).hasValue()', 'hostname must be a DNS subdomain'),
              },
              'x-kubernetes-validations': [{ rule: "!has(self.subnet) || !has(self.address) || cidr(self.subnet).containsIP(self.address)", message: 'address must be in subnet' }],
            },
          },
        },
      },
    }],
  },
};

describeBackends('custom resources validated with kube\'s CEL libraries', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(() => t.close());

  test('quantity, url, ip, cidr and format rules reject bad objects with kube\'s messages', async () => {
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const gateways = `/apis/${group}/v1/namespaces/default/gateways`;
    const gateway = (name: string, spec: Record<string, string>) => ({ apiVersion: `${group}/v1`, kind: 'Gateway', metadata: { name }, spec });
    // The resource is served once the CRD is established.
    let first = await t.call('POST', gateways, { body: gateway('ok', { memory: '512Mi', endpoint: 'https://example.com/x', address: '10.0.0.1', subnet: '10.0.0.0/16', hostname: 'a.example.com' }) });
    for (let i = 0; i < 200 && first.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 25));
      first = await t.call('POST', gateways, { body: gateway('ok', { memory: '512Mi', endpoint: 'https://example.com/x', address: '10.0.0.1', subnet: '10.0.0.0/16', hostname: 'a.example.com' }) });
    }
    expect(first.status).toBe(201);

    const bad = await t.call('POST', gateways, { body: gateway('bad', { memory: '2Gi', endpoint: 'http://example.com', address: '127.0.0.1', subnet: '10.0.0.0/8', hostname: 'Not_A_Host' }) });
    expect(bad.status).toBe(422);
    // kube walks an object's fields in Go map order: compare the causes as a set.
    const byField = (a: { field: string }, b: { field: string }) => a.field.localeCompare(b.field);
    expect([...bad.body.details.causes].sort(byField)).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: address must be in subnet' },
      { reason: 'FieldValueInvalid', field: 'spec.address', message: 'Invalid value: "127.0.0.1": address must be a non-loopback IPv4 address' },
      { reason: 'FieldValueInvalid', field: 'spec.endpoint', message: 'Invalid value: "http://example.com": endpoint must be an https URL' },
      { reason: 'FieldValueInvalid', field: 'spec.hostname', message: 'Invalid value: "Not_A_Host": hostname must be a DNS subdomain' },
      { reason: 'FieldValueInvalid', field: 'spec.memory', message: 'Invalid value: "2Gi": memory must be below 1Gi' },
      { reason: 'FieldValueInvalid', field: 'spec.subnet', message: 'Invalid value: "10.0.0.0/8": failed rule: cidr(self).prefixLength() >= 16' },
    ]);

    // Values the libraries cannot parse: kube's error, the schema's type, the rule's message.
    const unparsable = await t.call('POST', gateways, { body: gateway('unparsable', { memory: '12Mo', address: '10.0.0.1.1', subnet: '10.0.0.0/' }) });
    expect(unparsable.status).toBe(422);
    const causes = Object.fromEntries(unparsable.body.details.causes.map((c: { field: string; message: string }) => [c.field, c.message]));
    expect(causes['spec.memory']).toBe("Invalid value: \"string\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: memory must be below 1Gi");
    expect(causes['spec.address']).toBe('Invalid value: "string": IP Address "10.0.0.1.1" parse error during conversion from string: ParseAddr("10.0.0.1.1"): IPv4 address too long evaluating rule: address must be a non-loopback IPv4 address');
    expect(causes['spec.subnet']).toBe('Invalid value: "string": network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/"): bad bits after slash: "" evaluating rule: cidr(self).prefixLength() >= 16');
  });
});
