import { ingresses } from './ingresses.js';
import { create, object, update } from './testing.js';

const backend = { service: { name: 'web', port: { number: 80 } } };

describe('Ingress', () => {
  it('accepts a realistic ingress with TLS, wildcard hosts and every path type', () => {
    expect(create(ingresses, object({ spec: {
      ingressClassName: 'nginx',
      rules: [
        { host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }, { path: '/static(/|$)(.*)', pathType: 'ImplementationSpecific', backend }] } },
        { host: '*.preview.example.com', http: { paths: [{ path: '/v1', pathType: 'Exact', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'b' } } }] } },
      ],
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
    } }))).toEqual([]);
  });

  it('needs a default backend or rules, quoting the nil rules as null (1.35 renders values as JSON)', () => {
    expect(create(ingresses, object({ spec: {} }))).toEqual(['spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']);
  });

  it('refuses relative Prefix paths, unsafe sequences and a missing pathType', () => {
    const path = (p: Record<string, unknown>) => object({ spec: { rules: [{ http: { paths: [{ backend, ...p }] } }] } });
    expect(create(ingresses, path({ path: 'api', pathType: 'Prefix' }))).toEqual(['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path']);
    expect(create(ingresses, path({ path: '/a//b/..', pathType: 'Exact' }))).toEqual([
      "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/..\": must not contain '//'",
      "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/..\": cannot end with '/..'",
    ]);
    expect(create(ingresses, path({ path: '/' }))).toEqual(['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
    expect(create(ingresses, path({ path: '/', pathType: 'Regex' }))).toEqual(['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"']);
  });

  it('checks backends: port name or number, service names as DNS-1035 labels', () => {
    expect(create(ingresses, object({ spec: { defaultBackend: { service: { name: 'web', port: { name: 'http', number: 80 } } } } })))
      .toEqual(['spec.defaultBackend: Invalid value: "": cannot set both port name & port number']);
    expect(create(ingresses, object({ spec: { defaultBackend: { service: { name: '1web', port: {} } } } }))).toEqual([
      "spec.defaultBackend.service.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.defaultBackend: Required value: port name or number is required',
    ]);
    expect(create(ingresses, object({ spec: { defaultBackend: {} } }))).toEqual(['spec.defaultBackend: Invalid value: "": resource or service backend is required']);
  });

  it('refuses IP hosts and a class annotation that disagrees with ingressClassName', () => {
    const ing = object({ spec: { ingressClassName: 'nginx', rules: [{ host: '10.0.0.1' }] } });
    ing.metadata.annotations = { 'kubernetes.io/ingress.class': 'traefik' };
    expect(create(ingresses, ing)).toEqual([
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]);
  });

  it('tolerates on update an invalid secret name already stored', () => {
    const spec = { defaultBackend: backend, tls: [{ secretName: 'Bad_Secret' }] };
    expect(create(ingresses, object({ spec }))).toHaveLength(1);
    expect(update(ingresses, object({ spec }), object({ spec }))).toEqual([]);
  });

  it('validates load balancer status writes and tracks generation', () => {
    const status = ingresses.subresourceStrategies!.status;
    // A leading zero is a legacy form StrictIPCIDRValidation (off in 1.35) would refuse.
    const next = object({ status: { loadBalancer: { ingress: [{ ip: '010.0.0.1' }, { ip: '10.0.0' }, { hostname: '1.2.3.4' }] } } });
    expect(status.validateUpdate!(next, object({})).map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'status.loadBalancer.ingress[1].ip: Invalid value: "10.0.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.loadBalancer.ingress[2].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ]);
    expect(ingresses.generation).toBe(true);
  });

  it('prints class, hosts, address and ports', () => {
    const cells = ingresses.table!.cells(object({ spec: { rules: [{ host: 'a' }, { host: 'b' }, {}, { host: 'c' }, { host: 'd' }], tls: [{}] }, status: { loadBalancer: { ingress: [{ ip: '203.0.113.10' }, { hostname: 'lb.example.com' }] } } }));
    expect(cells.slice(0, 4)).toEqual(['<none>', 'a,b,c + 2 more...', '203.0.113.10,...', '80, 443']);
  });
});
