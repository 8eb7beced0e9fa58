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
