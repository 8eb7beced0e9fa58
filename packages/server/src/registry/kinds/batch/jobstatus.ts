/**
 * Job status writes as kube 1.35 validates them (ValidateJobUpdateStatus with the options
 * jobStatusStrategy derives while JobManagedBy is on): counters, uncounted pods, the
 * consistency of terminal conditions, completion times and index lists. Most rules only run
 * when the fields they look at change, so a controller can fix a status a spec update broke.
 * (The strategy leaves RejectFailedJobWithoutFailureTarget, RejectFinishedJobWithTerminatingPods
 * and RejectMoreReadyThanActivePods off, so those rules are not here.)
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { invalidJSON, isNil, isObject, num, semanticEqual, specOf, statusOf, str } from '../apps/common.js';
import { invalidOmitValue, isIndexed, validateIndexesFormat } from './jobspec.js';

const conditionsOf = (job: KubeObject) => {
  const c = statusOf(job).conditions;
  return Array.isArray(c) ? c.filter(isObject) : [];
};

export function isConditionTrue(job: KubeObject, type: string): boolean {
  return conditionsOf(job).some((c) => c.type === type && c.status === 'True');
}

export const isJobComplete = (job: KubeObject) => isConditionTrue(job, 'Complete');
export const isJobFailed = (job: KubeObject) => isConditionTrue(job, 'Failed');
export const isJobFinished = (job: KubeObject) => isJobComplete(job) || isJobFailed(job);
const isSuccessCriteriaMet = (job: KubeObject) => isConditionTrue(job, 'SuccessCriteriaMet');
const isFailureTarget = (job: KubeObject) => isConditionTrue(job, 'FailureTarget');

const timeOf = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN);
const sameTime = (a: unknown, b: unknown) => (isNil(a) && isNil(b)) || (!isNil(a) && !isNil(b) && timeOf(a) === timeOf(b));

/** One interval of an index list, or undefined where it does not parse. */
function parseInterval(s: string, completions: number): [number, number] | undefined {
  const limits = s.split('-');
  if (limits.length > 2) return undefined;
  const x = Number(limits[0]);
  const y = limits.length > 1 ? Number(limits[1]) : x;
  if (!/^[0-9]+$/.test(limits[0]) || (limits.length > 1 && !/^[0-9]+$/.test(limits[1]))) return undefined;
  if (x >= completions || y >= completions || x > y) return undefined;
  return [x, y];
}

/** validateFailedIndexesNotOverlapCompleted: both lists walked in order, unparsable intervals skipped. */
function failedOverlapsCompleted(completed: string, failed: string, completions: number): string | undefined {
  if (completed === '' || failed === '') return undefined;
  const c = completed.split(',');
  const f = failed.split(',');
  let ci = 0;
  let fi = 0;
  while (ci < c.length && fi < f.length) {
    const ci2 = parseInterval(c[ci], completions);
    const fi2 = parseInterval(f[fi], completions);
    if (!ci2) ci++;
    else if (!fi2) fi++;
    else if (ci2[0] > fi2[1]) fi++;
    else if (fi2[0] > ci2[1]) ci++;
    else return `failedIndexes and completedIndexes overlap at index: ${Math.max(ci2[0], fi2[0])}`;
  }
  return undefined;
}

function uncountedErrors(uncounted: unknown, path: string): FieldError[] {
  if (!isObject(uncounted)) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const kind of ['succeeded', 'failed']) {
    const list = Array.isArray(uncounted[kind]) ? (uncounted[kind] as unknown[]) : [];
    list.forEach((raw, i) => {
      const uid = str(raw);
      const p = `${path}.${kind}[${i}]`;
      if (uid === '') errs.push(fieldErr.invalid(p, uid, 'must not be empty'));
      else if (seen.has(uid)) errs.push({ type: 'FieldValueDuplicate', field: p, detail: `Duplicate value: ${JSON.stringify(uid)}` });
      else seen.add(uid);
    });
  }
  return errs;
}

/** A status time as json.Marshal prints the *metav1.Time field. */
const timeJSON = (v: unknown) => (isNil(v) ? null : v);

/** ValidateJobStatusUpdate with the options of kube's job status strategy. */
export function validateJobStatusUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(job);
  const oldStatus = statusOf(old);
  const spec = specOf(job);
  const errs: FieldError[] = [];
  const p = 'status';
  const changed = (name: string) => !semanticEqual(status[name], oldStatus[name]);
  const finishedChanged = isJobFinished(job) !== isJobFinished(old);
  const completeChanged = isJobComplete(job) !== isJobComplete(old);
  const failedChanged = isJobFailed(job) !== isJobFailed(old);
  const failureTargetChanged = isFailureTarget(job) !== isFailureTarget(old);
  const startChanged = !sameTime(status.startTime, oldStatus.startTime);
  const completionChanged = !sameTime(status.completionTime, oldStatus.completionTime);
  const completedIndexesChanged = str(status.completedIndexes) !== str(oldStatus.completedIndexes);
  const failedIndexesChanged = changed('failedIndexes');

  for (const name of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    const v = status[name];
    if (typeof v === 'number' && v < 0) errs.push(fieldErr.invalid(`${p}.${name}`, v, 'must be greater than or equal to 0'));
  }
  errs.push(...uncountedErrors(status.uncountedTerminatedPods, `${p}.uncountedTerminatedPods`));

  const finished = isJobFinished(job);
  const complete = isJobComplete(job);
  if ((completeChanged || failedChanged) && complete && isJobFailed(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set Complete=True and Failed=true conditions'));
  }
  if ((completeChanged || failureTargetChanged) && complete && isFailureTarget(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  if ((completeChanged || completionChanged) && !isNil(status.completionTime) && !complete) {
    errs.push(invalidJSON(`${p}.completionTime`, timeJSON(status.completionTime), 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((completeChanged || completionChanged) && isNil(status.completionTime) && complete) {
    errs.push(fieldErr.required(`${p}.completionTime`, 'completionTime is required for Complete jobs'));
  }
  if ((startChanged || completionChanged) && !isNil(status.startTime) && !isNil(status.completionTime) && timeOf(status.completionTime) < timeOf(status.startTime)) {
    errs.push(invalidJSON(`${p}.completionTime`, timeJSON(status.completionTime), 'completionTime cannot be set before startTime'));
  }
  if ((finishedChanged || changed('active')) && num(status.active) > 0 && finished) {
    errs.push(fieldErr.invalid(`${p}.active`, num(status.active), 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || startChanged) && isNil(status.startTime) && finished) {
    errs.push(fieldErr.required(`${p}.startTime`, 'startTime is required for finished job'));
  }
  const uncounted = isObject(status.uncountedTerminatedPods) ? status.uncountedTerminatedPods : undefined;
  const uncountedCount = uncounted ? (Array.isArray(uncounted.failed) ? uncounted.failed.length : 0) + (Array.isArray(uncounted.succeeded) ? uncounted.succeeded.length : 0) : 0;
  if ((finishedChanged || changed('uncountedTerminatedPods')) && finished && uncountedCount > 0) {
    errs.push(invalidJSON(`${p}.uncountedTerminatedPods`, uncounted, 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  if (completedIndexesChanged && completions !== undefined) {
    const parsed = validateIndexesFormat(str(status.completedIndexes), completions);
    if ('error' in parsed) errs.push(fieldErr.invalid(`${p}.completedIndexes`, str(status.completedIndexes), `error parsing completedIndexes: ${parsed.error}`));
  }
  if (failedIndexesChanged && completions !== undefined && !isNil(spec.backoffLimitPerIndex) && !isNil(status.failedIndexes)) {
    const parsed = validateIndexesFormat(str(status.failedIndexes), completions);
    if ('error' in parsed) errs.push(fieldErr.invalid(`${p}.failedIndexes`, str(status.failedIndexes), `error parsing failedIndexes: ${parsed.error}`));
  }
  if (completedIndexesChanged && str(status.completedIndexes) !== '' && !isIndexed(spec)) {
    errs.push(fieldErr.invalid(`${p}.completedIndexes`, str(status.completedIndexes), 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (failedIndexesChanged && isNil(spec.backoffLimitPerIndex) && !isNil(status.failedIndexes)) {
    errs.push(fieldErr.invalid(`${p}.failedIndexes`, str(status.failedIndexes), 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((failedIndexesChanged || completedIndexesChanged) && completions !== undefined && !isNil(status.failedIndexes)) {
    const overlap = failedOverlapsCompleted(str(status.completedIndexes), str(status.failedIndexes), completions);
    if (overlap) errs.push(fieldErr.invalid(`${p}.failedIndexes`, str(status.failedIndexes), overlap));
  }
  if (isSuccessCriteriaMet(job) && isJobFailed(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  }
  if (isSuccessCriteriaMet(job) && isFailureTarget(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  }
  if (isObject(spec.successPolicy) && !isSuccessCriteriaMet(job) && complete) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }

  // The transitions (ValidateJobStatusUpdate proper).
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (isConditionTrue(old, type) && !isConditionTrue(job, type)) {
      errs.push(invalidOmitValue(`${p}.conditions`, `cannot disable the terminal ${type}=True condition`));
    }
  }
  if (num(status.failed) < num(oldStatus.failed)) errs.push(fieldErr.invalid(`${p}.failed`, num(status.failed), 'cannot decrease the failed counter'));
  // Elastic indexed jobs may scale down, and their succeeded counter with them.
  const mayDecreaseSucceeded = isIndexed(spec) && spec.completions === spec.parallelism && !isNil(spec.completions);
  if (!mayDecreaseSucceeded && num(status.succeeded) < num(oldStatus.succeeded)) {
    errs.push(fieldErr.invalid(`${p}.succeeded`, num(status.succeeded), 'cannot decrease the succeeded counter'));
  }
  if (!isNil(status.completionTime) && !isNil(oldStatus.completionTime) && !sameTime(status.completionTime, oldStatus.completionTime)) {
    errs.push(invalidJSON(`${p}.completionTime`, timeJSON(status.completionTime), 'completionTime cannot be mutated'));
  }
  if (startChanged && !isNil(oldStatus.startTime) && spec.suspend !== true) {
    errs.push(fieldErr.required(`${p}.startTime`, 'startTime cannot be removed for unsuspended job'));
  }
  if (isSuccessCriteriaMet(old) && !isSuccessCriteriaMet(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (isJobComplete(old) && !isSuccessCriteriaMet(old) && isSuccessCriteriaMet(job)) {
    errs.push(invalidOmitValue(`${p}.conditions`, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return errs;
}

