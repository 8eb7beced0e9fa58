import { flowSchemas } from './flowschemas.js';
import { priorityLevelConfigurations } from './prioritylevelconfigurations.js';
import { create, object } from '../networking/testing.js';

const rule = { subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] };

describe('FlowSchema', () => {
  it('defaults the matching precedence to 1000', () => {
    const fs = object({ spec: { priorityLevelConfiguration: { name: 'workload-low' }, rules: [rule] } });
    expect(create(flowSchemas, fs)).toEqual([]);
    expect((fs.spec as { matchingPrecedence: number }).matchingPrecedence).toBe(1000);
  });

  it('reports subjects, rules and precedence as kube does', () => {
    expect(create(flowSchemas, object({ spec: {
      matchingPrecedence: 1, distinguisherMethod: { type: 'ByPod' },
      rules: [{ subjects: [{ kind: 'User', serviceAccount: { name: 'a', namespace: 'b' } }], resourceRules: [{ verbs: ['get', 'fly'], apiGroups: [''], resources: ['pods'], namespaces: ['Bad'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a/*/b'] }] }],
    } }))).toEqual([
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
      'spec.distinguisherMethod.type: Unsupported value: {"Type":"ByPod"}: supported values: "ByNamespace", "ByUser"',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
      "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
      "spec.rules[0].subjects[0].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
      'spec.rules[0].resourceRules[0].verbs: Unsupported value: ["get","fly"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      "spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: \"Bad\": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
    ]);
  });
});

describe('PriorityLevelConfiguration', () => {
  it('fills in kube v1 defaults for limited levels', () => {
    const pl = object({ spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } });
    expect(create(priorityLevelConfigurations, pl)).toEqual([]);
    expect(pl.spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } });
    const exempt = object({ spec: { type: 'Exempt', exempt: {} } }, 'exempt');
    expect(create(priorityLevelConfigurations, exempt)).toEqual([]);
    expect(exempt.spec).toEqual({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
  });

  it('validates the type, queuing and percentages', () => {
    expect(create(priorityLevelConfigurations, object({ spec: { type: 'Exempt' } }))).toEqual(["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
    expect(create(priorityLevelConfigurations, object({ spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 8 } } } } }))).toEqual([
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)',
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
    ]);
    expect(create(priorityLevelConfigurations, object({ spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: {} } } } })))
      .toEqual(['spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited']);
  });
});
