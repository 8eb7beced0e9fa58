import { ingressClasses } from './ingressclasses.js';
import { create, object, update } from './testing.js';

describe('IngressClass', () => {
  it('defaults the parameters scope to Cluster', () => {
    const ic = object({ spec: { controller: 'example.com/ingress', parameters: { kind: 'Params', name: 'p' } } });
    expect(create(ingressClasses, ic)).toEqual([]);
    expect((ic.spec as { parameters: { scope: string } }).parameters.scope).toBe('Cluster');
  });

  it('needs a domain-prefixed controller, immutable once set', () => {
    expect(create(ingressClasses, object({ spec: {} }))).toEqual(['spec.controller: Required value']);
    expect(create(ingressClasses, object({ spec: { controller: 'nginx' } }))).toEqual(['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
    expect(update(ingressClasses, object({ spec: { controller: 'example.com/other' } }), object({ spec: { controller: 'k8s.io/ingress-nginx' } })))
      .toEqual(['spec.controller: Invalid value: "example.com/other": field is immutable']);
  });

  it('ties the parameters namespace to the Namespace scope', () => {
    expect(create(ingressClasses, object({ spec: { controller: 'a.io/b', parameters: { kind: 'P', name: 'p', scope: 'Namespace' } } })))
      .toEqual(["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
    expect(create(ingressClasses, object({ spec: { controller: 'a.io/b', parameters: { kind: 'P', name: 'p', scope: 'Cluster', namespace: 'x' } } })))
      .toEqual(["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]);
  });

  it('prints controller and parameters', () => {
    expect(ingressClasses.table!.cells(object({ spec: { controller: 'a.io/b', parameters: { apiGroup: 'elbv2.k8s.aws', kind: 'IngressClassParams', name: 'alb' } } })).slice(0, 2))
      .toEqual(['a.io/b', 'IngressClassParams.elbv2.k8s.aws/alb']);
  });
});
