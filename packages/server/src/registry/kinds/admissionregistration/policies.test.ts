import { validatingAdmissionPolicies, validatingAdmissionPolicyBindings } from './policies.js';
import { create, messages, object } from '../networking/testing.js';

const rules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }];

describe('ValidatingAdmissionPolicy', () => {
  it('defaults failure and match policies and the selectors', () => {
    const vap = object({ spec: { matchConstraints: { resourceRules: structuredClone(rules) }, validations: [{ expression: 'object.spec.replicas <= 5' }] } });
    expect(create(validatingAdmissionPolicies, vap)).toEqual([]);
    expect(vap.spec).toMatchObject({ failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] } });
  });

  it('needs match constraints with resource rules and validations or audit annotations', () => {
    expect(create(validatingAdmissionPolicies, object({ spec: {} }))).toEqual([
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    expect(create(validatingAdmissionPolicies, object({ spec: { matchConstraints: {}, validations: [{ expression: ' ', reason: 'Teapot' }], paramKind: { apiVersion: 'v1' } } }))).toEqual([
      'spec.paramKind.kind: Required value',
      'spec.matchConstraints.resourceRules: Required value',
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ]);
  });

  it("compiles every expression as kube's admission compiler does, refusing those that would never evaluate", () => {
    const policy = (spec: Record<string, unknown>) => object({ metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: structuredClone(rules) }, ...spec } });
    const errors = (spec: Record<string, unknown>) => create(validatingAdmissionPolicies, policy(spec)).map((m) => m.replace(/\n[^]*$/, ''));
    expect(errors({
      validations: [
        { expression: 'object.spec.replicas <= 5 && request.userInfo.username != "" && namespaceObject.metadata.labels["a"] == "b"' },
        { expression: 'authorizer.group("apps").resource("deployments").check("get").allowed() && authorizer.requestResource.check("get").allowed()' },
        { expression: "has(object.spec) ? object.spec.replicas > 0 : true", messageExpression: "'replicas: ' + string(object.spec.replicas)" },
      ],
      auditAnnotations: [{ key: 'k', valueExpression: "'replicas: ' + string(object.spec.replicas)" }],
    })).toEqual([]);
    expect(errors({
      validations: [
        { expression: 'objct.spec.replicas <= 5' },
        { expression: 'request.usrInfo.username != ""' },
        { expression: 'params.max > 1' },
        { expression: 'request.name' },
        { expression: 'true', messageExpression: 'authorizer.path("/").check("get").allowed() ? "a" : "b"' },
        { expression: 'true', messageExpression: 'request.dryRun' },
        { expression: 'request.dryRun && 1' },
      ],
      auditAnnotations: [{ key: 'k', valueExpression: '1 + 1' }],
    })).toEqual([
      "spec.validations[0].expression: Invalid value: \"objct.spec.replicas <= 5\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'objct' (in container '')",
      "spec.validations[1].expression: Invalid value: \"request.usrInfo.username != \\\"\\\"\": compilation failed: ERROR: <input>:1:8: undefined field 'usrInfo'",
      "spec.validations[2].expression: Invalid value: \"params.max > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
      'spec.validations[3].expression: Invalid value: "request.name": must evaluate to bool',
      "spec.validations[4].messageExpression: Invalid value: \"authorizer.path(\\\"/\\\").check(\\\"get\\\").allowed() ? \\\"a\\\" : \\\"b\\\"\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')",
      'spec.validations[5].messageExpression: Invalid value: "request.dryRun": must evaluate to string',
      "spec.validations[6].expression: Invalid value: \"request.dryRun && 1\": compilation failed: ERROR: <input>:1:19: expected type 'bool' but found 'int'",
      'spec.auditAnnotations[0].valueExpression: Invalid value: "1 + 1": must evaluate to one of [string null_type]',
    ]);
    // params with a paramKind; a variable sees only those declared before it; all see variables.
    expect(errors({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }, { name: 'max', expression: 'int(params.data.max) + variables.later' }, { name: 'later', expression: '1' }],
      validations: [{ expression: 'variables.replicas <= variables.max && variables.later == 1' }, { expression: 'variables.nope' }],
    })).toEqual([
      "spec.variables[1].expression: Invalid value: \"int(params.data.max) + variables.later\": compilation failed: ERROR: <input>:1:33: undefined field 'later'",
      "spec.validations[1].expression: Invalid value: \"variables.nope\": compilation failed: ERROR: <input>:1:10: undefined field 'nope'",
    ]);
    expect(errors({ validations: [{ expression: 'variables.x' }] })).toEqual([
      "spec.validations[0].expression: Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')",
    ]);
    expect(errors({ matchConditions: [{ name: 'm', expression: "request.operation == 'CREATE' && object.x" }, { name: 'n', expression: 'params.x' }], validations: [{ expression: 'true' }] })).toEqual([
      "spec.matchConditions[1].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
    ]);
  });

  it('validates status conditions', () => {
    const status = validatingAdmissionPolicies.subresourceStrategies!.status;
    expect(messages(status.validateUpdate!(object({ status: { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'ok' }] } }), object({})))).toEqual([
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].lastTransitionTime: Required value',
    ]);
  });
});

describe('ValidatingAdmissionPolicyBinding', () => {
  it('needs a policy name and validation actions, with kube\'s misspelled matchResources path', () => {
    expect(create(validatingAdmissionPolicyBindings, object({ spec: { matchResources: { matchPolicy: 'Sometimes' }, validationActions: ['Deny', 'Warn'] } }))).toEqual([
      'spec.policyName: Required value',
      'spec.matchResouces.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact"',
      'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });

  it('checks the param reference', () => {
    expect(create(validatingAdmissionPolicyBindings, object({ spec: { policyName: 'p', paramRef: {}, validationActions: ['Deny'] } }))).toEqual([
      'spec.paramRef: Required value: one of name or selector must be specified',
      'spec.paramRef.parameterNotFoundAction: Required value',
    ]);
  });

  it('prints the param reference', () => {
    const cells = validatingAdmissionPolicyBindings.table!.cells(object({ spec: { policyName: 'p', paramRef: { name: 'cfg' } } }));
    expect(cells.slice(0, 2)).toEqual(['p', '*/cfg']);
  });
});
