import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject, StatusStrategy } from '../../types.js';
import { podDisruptionBudgets, validatePodDisruptionBudget, validatePodDisruptionBudgetStatus } from './poddisruptionbudgets.js';

function pdb(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } };
}

const messages = (errs: ReturnType<typeof validatePodDisruptionBudget>) => errs.map(fieldErrorString);

describe('PodDisruptionBudget validation', () => {
  test('counts and percentages', () => {
    expect(validatePodDisruptionBudget(pdb({ minAvailable: 1 }))).toEqual([]);
    expect(validatePodDisruptionBudget(pdb({ maxUnavailable: '25%' }))).toEqual([]);
    expect(messages(validatePodDisruptionBudget(pdb({ minAvailable: -1 })))).toEqual(['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
    expect(messages(validatePodDisruptionBudget(pdb({ maxUnavailable: '150%' })))).toEqual(['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%']);
    expect(messages(validatePodDisruptionBudget(pdb({ minAvailable: 'half' })))[0]).toMatch(/^spec\.minAvailable: Invalid value: "half": a valid percent string must be/);
  });

  test('both bounds at once print the internal spec by Go field name', () => {
    expect(messages(validatePodDisruptionBudget(pdb({ minAvailable: 1, maxUnavailable: '10%' })))).toEqual([
      'spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":"10%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set',
    ]);
  });

  test('selector and unhealthy pod eviction policy', () => {
    expect(messages(validatePodDisruptionBudget(pdb({ minAvailable: 1, selector: { matchLabels: { app: 'bad value!' } }, unhealthyPodEvictionPolicy: 'Never' })))).toEqual([
      'spec.selector.matchLabels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')',
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
  });

  test('an invalid selector expression value already stored may stay on update', () => {
    const old = pdb({ minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['bad value!'] }] } });
    expect(messages(validatePodDisruptionBudget(old))[0]).toMatch(/^spec\.selector\.matchExpressions\[0\]\.values\[0\]: Invalid value: "bad value!"/);
    expect(podDisruptionBudgets.strategy!.validateUpdate!(structuredClone(old), old)).toEqual([]);
  });

  test('names only have to be path segments', () => {
    const name = podDisruptionBudgets.strategy!.nameValidator!;
    expect(name('Bad_Name', false)).toEqual([]);
    expect(name('a/b', false)).toEqual(["may not contain '/'"]);
  });
});

describe('PodDisruptionBudget status writes', () => {
  const status = podDisruptionBudgets.subresourceStrategies!.status as Required<Pick<StatusStrategy, 'validateUpdate'>>;

  test('counters are not negative and conditions are metav1 conditions', () => {
    const p = pdb({ minAvailable: 1 });
    p.status = { disruptionsAllowed: -1, conditions: [{ type: 'DisruptionAllowed', status: 'Maybe', reason: 'Sufficient Pods' }] };
    expect(messages(status.validateUpdate(p, p))).toEqual([
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].lastTransitionTime: Required value',
      'status.conditions[0].reason: Invalid value: "Sufficient Pods": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or \'_,:\', and must end with an alphanumeric character or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\',  or \'ReasonA,ReasonB\',  or \'ReasonA:ReasonB\', regex used for validation is \'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?\')',
      'status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(validatePodDisruptionBudgetStatus(pdb({}))).toEqual([]);
  });
});

describe('PodDisruptionBudget printer', () => {
  test('bounds, allowed disruptions and age', () => {
    const p = pdb({ minAvailable: '50%' });
    p.status = { disruptionsAllowed: 2 };
    expect(podDisruptionBudgets.table!.columns.map((c) => c.name)).toEqual(['Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    expect(podDisruptionBudgets.table!.cells(p).slice(0, 3)).toEqual(['50%', 'N/A', 2]);
  });
});
