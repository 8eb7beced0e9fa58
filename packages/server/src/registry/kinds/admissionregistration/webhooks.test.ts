import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './webhooks.js';
import { create, object, update } from '../networking/testing.js';

const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'mutate.golden.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None',
  clientConfig: { url: 'https://127.0.0.1:9/mutate' },
  rules: [{ apiGroups: ['golden.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['nothings'] }],
  ...extra,
});

describe('webhook configurations', () => {
  it('fill in kube v1 defaults and bump generation only when webhooks change', () => {
    const mwc = object({ webhooks: [hook({ clientConfig: { service: { name: 's', namespace: 'n' } } })] });
    expect(create(mutatingWebhookConfigurations, mwc)).toEqual([]);
    expect((mwc.webhooks as unknown[])[0]).toMatchObject({
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never',
      clientConfig: { service: { port: 443 } }, rules: [{ scope: '*' }],
    });
    const vwc = object({ webhooks: [hook()] });
    create(validatingWebhookConfigurations, vwc);
    expect((vwc.webhooks as Record<string, unknown>[])[0].reinvocationPolicy).toBeUndefined();

    const old = object({ webhooks: structuredClone(mwc.webhooks) });
    old.metadata.generation = 1;
    const same = object({ webhooks: structuredClone(mwc.webhooks) });
    same.metadata.generation = 1;
    mutatingWebhookConfigurations.strategy!.prepareForUpdate!(same, old);
    expect(same.metadata.generation).toBe(1);
    const changed = object({ webhooks: [hook({ timeoutSeconds: 5 })] });
    changed.metadata.generation = 1;
    mutatingWebhookConfigurations.strategy!.prepareForUpdate!(changed, old);
    expect(changed.metadata.generation).toBe(2);
  });

  it("compile match conditions as kube does: the request, the object and the authorizer, no params", () => {
    const one = (expression: string) => create(validatingWebhookConfigurations, object({ webhooks: [hook({ matchConditions: [{ name: 'c', expression }] })] }));
    expect(one("request.userInfo.username != 'system:admin' && object.metadata.name != '' && !authorizer.group('').resource('pods').check('create').allowed()")).toEqual([]);
    expect(one('params.enabled')).toEqual([
      "webhooks[0].matchConditions[0].expression: Invalid value: \"params.enabled\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.enabled\n | ^",
    ]);
    expect(one("request.operation")).toEqual(['webhooks[0].matchConditions[0].expression: Invalid value: "request.operation": must evaluate to bool']);
  });

  it('report kube messages for the invalid variants', () => {
    const one = (extra: Record<string, unknown>) => create(validatingWebhookConfigurations, object({ webhooks: [hook(extra)] }));
    expect(one({ sideEffects: undefined })).toEqual(['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']);
    expect(one({ sideEffects: 'Some' })).toEqual(['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']);
    expect(one({ admissionReviewVersions: ['v9'] })).toEqual(['webhooks[0].admissionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1']);
    expect(one({ timeoutSeconds: 31 })).toEqual(['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
    expect(one({ name: 'validate' })).toEqual(['webhooks[0].name: Invalid value: "validate": should be a domain with at least three segments separated by dots']);
    expect(one({ failurePolicy: 'Maybe' })).toEqual(['webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']);
    expect(one({ clientConfig: { url: 'http://127.0.0.1:9/x?a=b' } })).toEqual([
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    expect(one({ clientConfig: { url: 'https://x', service: { name: 'x', namespace: 'y' } } })).toEqual(['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    expect(one({ clientConfig: { service: { name: 'x', namespace: 'y', path: 'a//b' } } })).toEqual([
      "webhooks[0].clientConfig.service.path: Invalid value: \"a//b\": must start with a '/'",
      // kube drops the first character whatever it is, so "a//b" splits into "", "", "b".
      'webhooks[0].clientConfig.service.path: Invalid value: "a//b": segment[0] may not be empty',
      'webhooks[0].clientConfig.service.path: Invalid value: "a//b": segment[1] may not be empty',
    ]);
    expect(one({ rules: [{ apiGroups: ['*', 'apps'], apiVersions: ['v1'], operations: ['*', 'CREATE'], resources: ['*', 'pods'], scope: 'Everywhere' }] })).toEqual([
      'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
      'webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
    ]);
    expect(create(validatingWebhookConfigurations, object({ webhooks: [hook(), hook()] }))).toEqual(['webhooks[1].name: Duplicate value: "mutate.golden.example.com"']);
  });

  it('on update tolerate what the stored configuration already had', () => {
    const legacy = object({ webhooks: [hook({ sideEffects: 'Unknown', admissionReviewVersions: ['v9'] })] });
    expect(update(validatingWebhookConfigurations, object({ webhooks: [hook({ sideEffects: 'Unknown', admissionReviewVersions: ['v9'] })] }), legacy)).toEqual([]);
  });

  it('print the number of webhooks', () => {
    expect(validatingWebhookConfigurations.table!.cells(object({ webhooks: [{}, {}] }))[0]).toBe(2);
  });
});
