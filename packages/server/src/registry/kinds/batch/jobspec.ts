/**
 * The JobSpec checks Jobs and CronJob job templates share (kube's validateJobSpec in
 * pkg/apis/batch/validation): counters, completion modes, pod failure and success policies,
 * the pod replacement policy, the pod template and its restart policy. Values kube prints
 * from internal structs (no json tags) are rendered with Go's field names.
 */
import { fieldErr, isDNS1123Subdomain, isQualifiedName, regexError, type FieldError } from '@windlass/machinery';
import { invalidJSON, isNil, isObject, num, str, type JsonObject } from '../apps/common.js';
import { validatePodTemplateSpec } from '../core/podspec/index.js';

export const maxParallelismForIndexedJob = 100000;
export const maxFailedIndexesForIndexedJob = 100_000;
const completionsSoftLimit = 100_000;
const parallelismLimitForHighCompletions = 10_000;
const maxFailedIndexesLimitForHighCompletions = 10_000;
const maxPodFailurePolicyRules = 20;
const maxPodFailurePolicyOnExitCodesValues = 255;
const maxPodFailurePolicyOnPodConditionsPatterns = 20;
const maxManagedByLength = 63;
const maxJobSuccessPolicySucceededIndexesLimit = 64 * 1024;
const maxSuccessPolicyRule = 20;

const podFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const onExitCodesOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];
const podReplacementPolicies = ['Failed', 'TerminatingOrFailed'];

/** Go's `%q` of a []string, as fmt.Sprintf("valid values: %q", list) prints it. */
const goQuotedList = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** field.Invalid with field.OmitValueType{}: no value in the message. */
export function invalidOmitValue(field: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${detail}` };
}

/** field.TooMany (machinery's FieldError has no such type yet; the reason travels as kube's). */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany' as FieldError['type'], field, detail: `Too many: ${actual}: must have at most ${max} items` };
}

function duplicateValue(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${JSON.stringify(value)}` };
}

export function nonnegative(spec: JsonObject, name: string, path: string): FieldError[] {
  const v = spec[name];
  return typeof v === 'number' && v < 0 ? [fieldErr.invalid(`${path}.${name}`, v, 'must be greater than or equal to 0')] : [];
}

export const isIndexed = (spec: JsonObject) => spec.completionMode === 'Indexed';

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

/** apimachinery's IsDomainPrefixedPath (spec.managedBy). */
export function validateDomainPrefixedPath(value: string, path: string): FieldError[] {
  if (value.length === 0) return [fieldErr.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) {
    return [fieldErr.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((msg) => fieldErr.invalid(path, host, msg));
  if (!httpPathRe.test(rest)) errs.push(fieldErr.invalid(path, rest, regexError('Invalid path', httpPathFmt)));
  return errs;
}

/** The internal PodFailurePolicy as encoding/json writes it (Go field names). */
export function goPodFailurePolicy(p: unknown): unknown {
  if (!isObject(p)) return null;
  const rules = Array.isArray(p.rules) ? p.rules : null;
  return {
    Rules: rules && rules.map((raw) => {
      const r = isObject(raw) ? raw : {};
      const codes = isObject(r.onExitCodes) ? r.onExitCodes : undefined;
      const conds = Array.isArray(r.onPodConditions) ? r.onPodConditions : null;
      return {
        Action: str(r.action),
        OnExitCodes: codes ? { ContainerName: isNil(codes.containerName) ? null : codes.containerName, Operator: str(codes.operator), Values: Array.isArray(codes.values) ? codes.values : null } : null,
        OnPodConditions: conds && conds.map((c) => ({ Type: str(isObject(c) ? c.type : ''), Status: str(isObject(c) ? c.status : '') })),
      };
    }),
  };
}

/** The internal SuccessPolicy as encoding/json writes it (Go field names). */
export function goSuccessPolicy(p: unknown): unknown {
  if (!isObject(p)) return null;
  const rules = Array.isArray(p.rules) ? p.rules : null;
  return {
    Rules: rules && rules.map((raw) => {
      const r = isObject(raw) ? raw : {};
      return { SucceededIndexes: isNil(r.succeededIndexes) ? null : r.succeededIndexes, SucceededCount: isNil(r.succeededCount) ? null : r.succeededCount };
    }),
  };
}

/** Go's strconv.Atoi for index strings. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** validateIndexesFormat: the number of indexes an interval list names, or kube's parse error. */
export function validateIndexesFormat(indexes: string, completions: number): { total: number } | { error: string } {
  if (indexes.length === 0) return { total: 0 };
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) return { error: `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'` };
    const x = atoi(limits[0]);
    if (x === undefined) return { error: `cannot convert string to integer for index: ${JSON.stringify(limits[0])}` };
    if (x >= completions) return { error: `too large index: ${JSON.stringify(limits[0])}` };
    if (last !== undefined && last >= x) return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total++;
    last = x;
    if (limits.length > 1) {
      const y = atoi(limits[1]);
      if (y === undefined) return { error: `cannot convert string to integer for index: ${JSON.stringify(limits[1])}` };
      if (y >= completions) return { error: `too large index: ${JSON.stringify(limits[1])}` };
      if (last >= y) return { error: `non-increasing order, previous: ${last}, current: ${y}` };
      total += y - x;
      last = y;
    }
  }
  return { total };
}

function validateOnExitCodes(codes: JsonObject, path: string, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operator = str(codes.operator);
  if (operator === '') errs.push(fieldErr.required(`${path}.operator`, `valid values: ${goQuotedList(onExitCodesOperators)}`));
  else if (!onExitCodesOperators.includes(operator)) errs.push(fieldErr.notSupported(`${path}.operator`, operator, onExitCodesOperators));
  if (!isNil(codes.containerName) && !containerNames.has(str(codes.containerName))) {
    errs.push(fieldErr.invalid(`${path}.containerName`, str(codes.containerName), 'must be one of the container or initContainer names in the pod template'));
  }
  const values = Array.isArray(codes.values) ? (codes.values as unknown[]).map(num) : [];
  const valuesPath = `${path}.values`;
  if (values.length === 0) errs.push(invalidJSON(valuesPath, Array.isArray(codes.values) ? [] : null, 'at least one value is required'));
  else if (values.length > maxPodFailurePolicyOnExitCodesValues) errs.push(tooMany(valuesPath, values.length, maxPodFailurePolicyOnExitCodesValues));
  let ordered = true;
  const seen = new Set<number>();
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errs.push(fieldErr.invalid(`${valuesPath}[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(duplicateValue(`${valuesPath}[${j}]`, v));
    else seen.add(v);
    if (j > 0 && values[j - 1] > v) ordered = false;
  });
  if (!ordered) errs.push(invalidJSON(valuesPath, values, 'must be ordered'));
  return errs;
}

function validateOnPodConditions(patterns: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > maxPodFailurePolicyOnPodConditionsPatterns) errs.push(tooMany(path, patterns.length, maxPodFailurePolicyOnPodConditionsPatterns));
  patterns.forEach((raw, j) => {
    const p = isObject(raw) ? raw : {};
    const type = str(p.type);
    for (const msg of isQualifiedName(type)) errs.push(fieldErr.invalid(`${path}[${j}].type`, type, msg));
    const status = str(p.status);
    if (status === '') errs.push(fieldErr.required(`${path}[${j}].status`, `valid values: ${goQuotedList(conditionStatuses)}`));
    else if (!conditionStatuses.includes(status)) errs.push(fieldErr.notSupported(`${path}[${j}].status`, status, conditionStatuses));
  });
  return errs;
}

function validatePodFailurePolicy(spec: JsonObject, policy: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = Array.isArray(policy.rules) ? policy.rules : [];
  const rulesPath = `${path}.rules`;
  if (rules.length > maxPodFailurePolicyRules) errs.push(tooMany(rulesPath, rules.length, maxPodFailurePolicyRules));
  const pod = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : {};
  const containerNames = new Set<string>();
  for (const list of [pod.containers, pod.initContainers]) {
    if (Array.isArray(list)) for (const c of list) if (isObject(c)) containerNames.add(str(c.name));
  }
  rules.forEach((raw, i) => {
    const rule = isObject(raw) ? raw : {};
    const rulePath = `${rulesPath}[${i}]`;
    const action = str(rule.action);
    if (action === '') errs.push(fieldErr.required(`${rulePath}.action`, `valid values: ${goQuotedList(podFailurePolicyActions)}`));
    else if (action === 'FailIndex') {
      if (isNil(spec.backoffLimitPerIndex)) errs.push(fieldErr.invalid(`${rulePath}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!podFailurePolicyActions.includes(action)) errs.push(fieldErr.notSupported(`${rulePath}.action`, action, podFailurePolicyActions));
    const codes = isObject(rule.onExitCodes) ? rule.onExitCodes : undefined;
    const conditions = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (codes) errs.push(...validateOnExitCodes(codes, `${rulePath}.onExitCodes`, containerNames));
    if (conditions.length > 0) errs.push(...validateOnPodConditions(conditions, `${rulePath}.onPodConditions`));
    if (codes && conditions.length > 0) errs.push(invalidOmitValue(rulePath, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!codes && conditions.length === 0) errs.push(invalidOmitValue(rulePath, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  return errs;
}

function validateSuccessPolicy(spec: JsonObject, policy: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = Array.isArray(policy.rules) ? policy.rules : [];
  const rulesPath = `${path}.rules`;
  // kube dereferences completions here; Indexed jobs without completions already fail above.
  const completions = num(spec.completions);
  if (rules.length === 0) errs.push(fieldErr.required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > maxSuccessPolicyRule) errs.push(tooMany(rulesPath, rules.length, maxSuccessPolicyRule));
  rules.forEach((raw, i) => {
    const rule = isObject(raw) ? raw : {};
    const rulePath = `${rulesPath}[${i}]`;
    if (isNil(rule.succeededCount) && isNil(rule.succeededIndexes)) {
      errs.push(fieldErr.required(rulePath, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (!isNil(rule.succeededIndexes)) {
      const indexes = str(rule.succeededIndexes);
      const p = `${rulePath}.succeededIndexes`;
      if (indexes.length > maxJobSuccessPolicySucceededIndexesLimit) errs.push(fieldErr.tooLong(p, maxJobSuccessPolicySucceededIndexesLimit));
      const parsed = validateIndexesFormat(indexes, completions);
      if ('error' in parsed) errs.push(fieldErr.invalid(p, indexes, `error parsing succeededIndexes: ${parsed.error}`));
      else total = parsed.total;
    }
    if (!isNil(rule.succeededCount)) {
      const count = num(rule.succeededCount);
      const p = `${rulePath}.succeededCount`;
      if (count < 0) errs.push(fieldErr.invalid(p, count, 'must be greater than or equal to 0'));
      if (count > completions) errs.push(fieldErr.invalid(p, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (!isNil(rule.succeededIndexes) && count > total) {
        errs.push(fieldErr.invalid(p, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

function validateIndexedLimits(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isNil(spec.completions)) errs.push(fieldErr.required(`${path}.completions`, 'when completion mode is Indexed'));
  const parallelism = spec.parallelism;
  if (typeof parallelism === 'number' && parallelism > maxParallelismForIndexedJob) {
    errs.push(fieldErr.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
  }
  const maxFailed = spec.maxFailedIndexes;
  if (typeof spec.completions === 'number' && typeof maxFailed === 'number' && maxFailed > spec.completions) {
    errs.push(fieldErr.invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
  }
  if (typeof maxFailed === 'number' && maxFailed > maxFailedIndexesForIndexedJob) {
    errs.push(fieldErr.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${maxFailedIndexesForIndexedJob}`));
  }
  if (typeof spec.completions === 'number' && spec.completions > completionsSoftLimit && !isNil(spec.backoffLimitPerIndex)) {
    if (isNil(maxFailed)) errs.push(fieldErr.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${completionsSoftLimit}`));
    if (typeof parallelism === 'number' && parallelism > parallelismLimitForHighCompletions) {
      errs.push(fieldErr.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${parallelismLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`));
    }
    if (typeof maxFailed === 'number' && maxFailed > maxFailedIndexesLimitForHighCompletions) {
      errs.push(fieldErr.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${maxFailedIndexesLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`));
    }
  }
  return errs;
}

/** validateJobSpec: everything but the selector, which only Jobs carry. */
export function validateJobSpecCommon(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex']) {
    errs.push(...nonnegative(spec, name, path));
  }
  if (!isNil(spec.maxFailedIndexes)) {
    errs.push(...nonnegative(spec, 'maxFailedIndexes', path));
    if (isNil(spec.backoffLimitPerIndex)) errs.push(fieldErr.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (!isNil(spec.managedBy)) {
    const managedBy = str(spec.managedBy);
    errs.push(...validateDomainPrefixedPath(managedBy, `${path}.managedBy`));
    if (Buffer.byteLength(managedBy) > maxManagedByLength) errs.push(fieldErr.tooLong(`${path}.managedBy`, maxManagedByLength));
  }
  if (!isNil(spec.completionMode)) {
    const mode = str(spec.completionMode);
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErr.notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') errs.push(...validateIndexedLimits(spec, path));
  }
  if (isNil(spec.completionMode) || spec.completionMode === 'NonIndexed') {
    if (!isNil(spec.backoffLimitPerIndex)) errs.push(fieldErr.invalid(`${path}.backoffLimitPerIndex`, num(spec.backoffLimitPerIndex), 'requires indexed completion mode'));
    if (!isNil(spec.maxFailedIndexes)) errs.push(fieldErr.invalid(`${path}.maxFailedIndexes`, num(spec.maxFailedIndexes), 'requires indexed completion mode'));
  }
  if (isObject(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, spec.podFailurePolicy, `${path}.podFailurePolicy`));
  if (isObject(spec.successPolicy)) {
    if (!isIndexed(spec)) errs.push(invalidJSON(`${path}.successPolicy`, goSuccessPolicy(spec.successPolicy), 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, spec.successPolicy, `${path}.successPolicy`));
  }
  if (!isNil(spec.podReplacementPolicy)) {
    const policy = str(spec.podReplacementPolicy);
    if (isObject(spec.podFailurePolicy)) {
      if (policy !== 'Failed') errs.push(fieldErr.notSupported(`${path}.podReplacementPolicy`, policy, ['Failed']));
    } else if (!podReplacementPolicies.includes(policy)) {
      errs.push(fieldErr.notSupported(`${path}.podReplacementPolicy`, policy, podReplacementPolicies));
    }
  }
  const template = isObject(spec.template) ? spec.template : {};
  errs.push(...validatePodTemplateSpec(template, `${path}.template`));
  const restartPolicy = str(isObject(template.spec) ? template.spec.restartPolicy : '');
  const restartPath = `${path}.template.spec.restartPolicy`;
  // The pod defaults turn an unset restartPolicy into Always, so both mean "not chosen".
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(fieldErr.required(restartPath, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(fieldErr.notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  else if (isObject(spec.podFailurePolicy) && restartPolicy !== 'Never') errs.push(fieldErr.invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

