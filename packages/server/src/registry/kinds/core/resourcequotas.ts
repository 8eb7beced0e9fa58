/**
 * core/v1 ResourceQuotas as kube 1.35 serves them: status is the quota controller's (reset on
 * create, kept by spec writes), ValidateResourceQuota(Update)/(StatusUpdate) with kube's
 * messages (scopes printed as Go slices), the printer (Request and Limit from status). The
 * ResourceQuota admission plugin, which charges every namespaced write, is admission/resourcequota.ts.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { canonicalQuantityString, parseQuantity } from '../../validation/quantity.js';
import { goStringSlice, invalidGo } from '../../validation/goformat.js';
import { validateResourceQuantityValue } from './podspec/resources.js';

type Obj = Record<string, unknown>;
type Quota = KubeObject & { spec?: Obj; status?: Obj };
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

const standardQuotaResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims',
  'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const standardResources = new Set([...standardQuotaResources, 'storage']);
const isQuotaHugePage = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
export const isStandardQuotaResourceName = (name: string) => standardQuotaResources.has(name) || isQuotaHugePage(name);

export const standardScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];
const podObjectCount = new Set(['pods']);
const podCompute = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const pvcResources = new Set(['persistentvolumeclaims', 'requests.storage']);

/** helper.IsResourceQuotaScopeValidForResource. */
export function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating': case 'NotTerminating': case 'NotBestEffort': case 'PriorityClass': case 'CrossNamespacePodAffinity':
      return podObjectCount.has(resource) || podCompute.has(resource);
    case 'BestEffort':
      return podObjectCount.has(resource);
    case 'VolumeAttributesClass':
      return pvcResources.has(resource);
    default:
      return true;
  }
}

/** ValidateResourceQuotaResourceName. */
function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErr.invalid(path, name, m));
  if (errs.length === 0 && !name.includes('/') && !(standardResources.has(name) || isQuotaHugePage(name))) {
    errs.push(fieldErr.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(fieldErr.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

function validateResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(obj(list))) {
    const p = `${path}[${k}]`;
    errs.push(...validateQuotaResourceName(k, p));
    const q = parseQuantity(String(v));
    if (q) errs.push(...validateResourceQuantityValue(k, q, p));
  }
  return errs;
}

const conflictingPairs = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];

function validateScopes(spec: Obj, path: string): FieldError[] {
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  const hard = Object.keys(obj(spec.hard)).sort();
  const scopesRepr = goStringSlice('core.ResourceQuotaScope', spec.scopes);
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (!standardScopes.includes(scope)) errs.push(invalidGo(`${path}.scopes`, scopesRepr, 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalidGo(`${path}.scopes`, scopesRepr, 'unsupported scope applied to resource'));
    }
    seen.add(scope);
  }
  for (const pair of conflictingPairs) if (pair.every((s) => seen.has(s))) errs.push(invalidGo(`${path}.scopes`, scopesRepr, 'conflicting scopes'));
  return errs;
}

/** Go's %#v of a *core.ScopeSelector, printed for "unsupported scope applied to resource". */
function scopeSelectorRepr(sel: Obj): string {
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  const items = exprs.map((e) => {
    const r = obj(e);
    return `core.ScopedResourceSelectorRequirement{ScopeName:${JSON.stringify(String(r.scopeName ?? ''))}, Operator:${JSON.stringify(String(r.operator ?? ''))}, Values:${goStringSlice('string', r.values)}}`;
  });
  return `core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{${items.join(', ')}}}`;
}

function validateScopeSelector(spec: Obj, path: string): FieldError[] {
  if (!isObject(spec.scopeSelector)) return [];
  const sel = spec.scopeSelector;
  const errs: FieldError[] = [];
  const hard = Object.keys(obj(spec.hard)).sort();
  const p = `${path}.scopeSelector.matchExpressions`;
  const seen = new Set<string>();
  for (const raw of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const req = obj(raw);
    const scope = String(req.scopeName ?? '');
    const operator = String(req.operator ?? '');
    const values = Array.isArray(req.values) ? req.values : [];
    if (!standardScopes.includes(scope)) errs.push(fieldErr.invalid(`${p}.scopeName`, scope, 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalidGo(p, `&${scopeSelectorRepr(sel)}`, 'unsupported scope applied to resource'));
    }
    if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(scope) && operator !== 'Exists') {
      errs.push(fieldErr.invalid(`${p}.operator`, operator, "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    switch (operator) {
      case 'In': case 'NotIn':
        if (values.length === 0) errs.push(fieldErr.required(`${p}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists': case 'DoesNotExist':
        if (values.length !== 0) errs.push(invalidGo(`${p}.values`, goStringSlice('string', values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errs.push(fieldErr.invalid(`${p}.operator`, operator, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  for (const pair of conflictingPairs) {
    if (pair.every((s) => seen.has(s))) errs.push(invalidGo(p, goStringSlice('core.ResourceQuotaScope', spec.scopes), 'conflicting scopes'));
  }
  return errs;
}

export function validateResourceQuotaSpec(spec: Obj, path = 'spec'): FieldError[] {
  return [...validateResourceList(spec.hard, `${path}.hard`), ...validateScopes(spec, path), ...validateScopeSelector(spec, path)];
}

function validateResourceQuotaStatus(status: Obj): FieldError[] {
  return [...validateResourceList(status.hard, 'status.hard'), ...validateResourceList(status.used, 'status.used')];
}

const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    for (const key of Object.keys(o)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key) && !(key in old)) delete o[key];
    for (const key of Object.keys(old)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key)) o[key] = old[key];
  },
  validateUpdate: (o) => validateResourceQuotaStatus(obj((o as Quota).status)),
};

/** The Request and Limit cells: `resource: used/hard` for every resource in status.hard, sorted. */
function usageCells(q: Quota): [string, string] {
  const status = obj(q.status);
  const hard = obj(status.hard), used = obj(status.used);
  const request: string[] = [], limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${canonicalQuantityString(String(used[name] ?? '0'))}/${canonicalQuantityString(String(hard[name]))}`;
    const pieces = name.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(text);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotas: KindDefinition = {
  group: '', version: 'v1', resource: 'resourcequotas',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    prepareForCreate(o) {
      (o as Quota).status = {};
    },
    validate: (o) => [...validateResourceQuotaSpec(obj((o as Quota).spec)), ...validateResourceQuotaStatus(obj((o as Quota).status))],
    validateUpdate(o, old) {
      const spec = obj((o as Quota).spec);
      const errs = validateResourceQuotaSpec(spec);
      const newScopes = new Set(Array.isArray(spec.scopes) ? spec.scopes.map(String) : []);
      const oldSpec = obj((old as Quota).spec);
      const oldScopes = new Set(Array.isArray(oldSpec.scopes) ? oldSpec.scopes.map(String) : []);
      if (newScopes.size !== oldScopes.size || [...newScopes].some((s) => !oldScopes.has(s))) {
        errs.push(invalidGo('spec.scopes', goStringSlice('core.ResourceQuotaScope', spec.scopes), 'field is immutable'));
      }
      return errs;
    },
  },
  subresourceStrategies: { status: statusStrategy },
  table: {
    columns: [
      ageColumn,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ],
    cells: (o) => [ageOf(o.metadata.creationTimestamp), ...usageCells(o as Quota)],
  },
};
