import { apiServices } from './apiservices.js';
import { create, messages, object, update } from '../networking/testing.js';

const spec = (extra: Record<string, unknown> = {}) => ({ group: 'golden.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, ...extra });

describe('APIService', () => {
  it('must be named version.group', () => {
    expect(create(apiServices, object({ spec: spec() }, 'v1alpha1.golden.example.com'))).toEqual([]);
    expect(create(apiServices, object({ spec: spec() }, 'wrong')))
      .toEqual(['metadata.name: Invalid value: "wrong": must be `spec.version+"."+spec.group`: "v1alpha1.golden.example.com"']);
  });

  it('makes a local APIService available at once and defaults the service port', () => {
    const local = object({ spec: spec() }, 'v1alpha1.golden.example.com');
    create(apiServices, local);
    expect(local.status).toEqual({ conditions: [{ type: 'Available', status: 'True', lastTransitionTime: expect.any(String), reason: 'Local', message: 'Local APIServices are always available' }] });
    const remote = object({ spec: spec({ service: { name: 'api', namespace: 'ns' } }) }, 'v1alpha1.golden.example.com');
    expect(create(apiServices, remote)).toEqual([]);
    expect(remote.status).toEqual({});
    expect((remote.spec as { service: { port: number } }).service.port).toBe(443);
  });

  it('reports priorities and local-only fields as kube-aggregator does', () => {
    const caBundle = Buffer.alloc(595).toString('base64');
    expect(create(apiServices, object({ spec: spec({ groupPriorityMinimum: 20001, caBundle, insecureSkipTLSVerify: true }) }, 'v1alpha1.golden.example.com'))).toEqual([
      'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
      'spec.caBundle: Invalid value: "595 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
  });

  it('keeps spec and labels on status writes', () => {
    const status = apiServices.subresourceStrategies!.status;
    const old = object({ spec: spec() }, 'v1alpha1.golden.example.com');
    old.metadata.labels = { a: 'b' };
    const next = object({ spec: spec({ versionPriority: 1 }), status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, 'v1alpha1.golden.example.com');
    status.prepareForUpdate!(next, old);
    expect(next.spec).toEqual(old.spec);
    expect(next.metadata.labels).toEqual({ a: 'b' });
    expect(messages(status.validateUpdate!(next, old))).toEqual(['status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']);
    expect(update(apiServices, object({ spec: spec() }, 'v1alpha1.golden.example.com'), old)).toEqual([]);
  });

  it('prints service and availability', () => {
    expect(apiServices.table!.cells(object({ spec: spec(), status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } })).slice(0, 2))
      .toEqual(['Local', 'False (MissingEndpoints)']);
  });
});
