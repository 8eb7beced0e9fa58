/**
 * ResourceQuotas, LimitRanges, ServiceAccounts and Namespaces: kube 1.35's defaults, messages
 * (Go-printed values included), field paths, status rules and printers.
 */
import { fieldErrorString, type FieldError } from '@windlass/machinery';
import type { AdmissionAttributes, KindDefinition, KubeObject } from '../../types.js';
import { resourceQuotas } from './resourcequotas.js';
import { limitRanges } from './limitranges.js';
import { serviceAccounts } from './serviceaccounts.js';
import { namespaces, podSecurityNamespaceLabels } from './namespaces.js';

const msgs = (errs: FieldError[]) => errs.map(fieldErrorString);
const validate = (def: KindDefinition, obj: KubeObject) => {
  def.strategy!.defaults?.(obj);
  def.strategy!.prepareForCreate?.(obj);
  return msgs(def.strategy!.validate!(obj));
};
const quota = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'q', namespace: 'ns' }, spec });

describe('ResourceQuotas', () => {
  test("scope and selector messages print Go values as kube's do", () => {
    expect(validate(resourceQuotas, quota({ hard: { pods: '10' }, scopes: ['Forever'] }))).toEqual(['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Forever"}: unsupported scope']);
    expect(validate(resourceQuotas, quota({ hard: { pods: '10' }, scopes: ['Terminating', 'NotTerminating'] }))).toEqual(['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes']);
    expect(validate(resourceQuotas, quota({ hard: { pods: '10' }, scopeSelector: { matchExpressions: [{ operator: 'Exists', scopeName: 'PriorityClass', values: ['x'] }] } }))).toEqual([
      "spec.scopeSelector.matchExpressions.values: Invalid value: []string{\"x\"}: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
    ]);
    expect(validate(resourceQuotas, quota({ hard: { 'requests.storage': '1Gi' }, scopes: ['BestEffort'] }))).toEqual(['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource']);
    expect(validate(resourceQuotas, quota({ hard: { pods: '1500m', storage: '1' } }))).toEqual([
      'spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer',
      'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
    ]);
  });

  test('status is the controller\'s; scopes are immutable; printer reads status', () => {
    const q = quota({ hard: { pods: '10' } });
    resourceQuotas.strategy!.prepareForCreate!(q);
    expect(q.status).toEqual({});
    const next = quota({ hard: { pods: '10' }, scopes: ['NotTerminating'] });
    expect(msgs(resourceQuotas.strategy!.validateUpdate!(next, q))).toEqual(['spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: field is immutable']);
    const shown = { ...q, status: { hard: { pods: '10', 'limits.cpu': '2' }, used: { pods: '1' } } };
    expect(resourceQuotas.table!.cells(shown).slice(1)).toEqual(['pods: 1/10', 'limits.cpu: 0/2']);
  });
});

describe('LimitRanges', () => {
  const lr = (item: Record<string, unknown>): KubeObject => ({ metadata: { name: 'limits', namespace: 'ns' }, spec: { limits: [item] } });

  test('container defaults come from max, then default, then min', () => {
    const obj = lr({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } });
    limitRanges.strategy!.defaults!(obj);
    expect((obj.spec as { limits: unknown[] }).limits[0]).toEqual({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } });
  });

  test("min over max, with kube's %#v quantities", () => {
    expect(validate(limitRanges, lr({ type: 'Container', max: { cpu: '1' }, min: { cpu: '2' } }))).toEqual([
      'spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1", Format:"DecimalSI"}: min value 2 is greater than default request value 1',
      'spec.limits[0].default[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than default value 1',
    ]);
    expect(validate(limitRanges, lr({ type: 'Pod', default: { cpu: '1' } }))).toEqual(["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]);
    expect(validate(limitRanges, lr({ type: 'PersistentVolumeClaim' }))).toEqual(['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided']);
  });
});

describe('ServiceAccounts', () => {
  test('secret references keep only their names; printer counts them', () => {
    const sa: KubeObject = { metadata: { name: 'web', namespace: 'ns' }, secrets: [{ name: 'a', namespace: 'x', uid: 'u' }] };
    serviceAccounts.strategy!.prepareForCreate!(sa);
    expect(sa.secrets).toEqual([{ name: 'a' }]);
    expect(serviceAccounts.table!.cells(sa)[0]).toBe(1);
  });
});

describe('Namespaces', () => {
  test('the kubernetes finalizer is added to those given; names label', () => {
    const ns: KubeObject = { metadata: { name: 'team' }, spec: { finalizers: ['example.com/x'] } };
    expect(validate(namespaces as KindDefinition, ns)).toEqual([]);
    expect(ns.spec).toEqual({ finalizers: ['example.com/x', 'kubernetes'] });
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(validate(namespaces as KindDefinition, { metadata: { name: 'team' }, spec: { finalizers: ['not a finalizer'] } })).toEqual([
      "spec.finalizers: Invalid value: \"not a finalizer\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.finalizers: Invalid value: "not a finalizer": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  test('status.phase follows deletion', () => {
    const status = namespaces.subresourceStrategies!.status;
    expect(msgs(status.validateUpdate!({ metadata: { name: 'a' }, status: { phase: 'Terminating' } }, { metadata: { name: 'a' } }))).toEqual([
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
    expect(msgs(status.validateUpdate!({ metadata: { name: 'a', deletionTimestamp: '2020-01-01T00:00:00Z' }, status: { phase: 'Active' } }, { metadata: { name: 'a' } }))).toEqual([
      "status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty",
    ]);
    const deleting: KubeObject = { metadata: { name: 'a', deletionTimestamp: 't', deletionGracePeriodSeconds: 0 }, status: { phase: 'Active' } };
    namespaces.onDeletionRequested!(deleting);
    expect(deleting.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(deleting.status).toEqual({ phase: 'Terminating' });
  });

  test('PodSecurity refuses labels it cannot parse', () => {
    const attrs = (labels: Record<string, string>): AdmissionAttributes => ({
      operation: 'CREATE', subresource: '', obj: { metadata: { name: 'team', labels } }, dryRun: false, user: { name: 'u', groups: [] }, ctx: undefined as never, lookup: () => undefined, warn: () => {},
    });
    expect(() => podSecurityNamespaceLabels.validate!(attrs({ 'pod-security.kubernetes.io/enforce': 'strict' }))).toThrow(
      'Namespace "team" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
    expect(() => podSecurityNamespaceLabels.validate!(attrs({ 'pod-security.kubernetes.io/warn-version': 'v2' }))).toThrow('must be "latest" or "v1.x"');
    expect(() => podSecurityNamespaceLabels.validate!(attrs({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' }))).not.toThrow();
  });
});
