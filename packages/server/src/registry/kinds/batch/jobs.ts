/**
 * batch/v1 Job: SetDefaults_Job, kube's job strategy (the generated selector and the pod
 * labels naming the job, both the batch.kubernetes.io ones and the legacy ones; generation;
 * status writes), ValidateJob/ValidateJobUpdate, the status.successful field selector and
 * the printer.
 */
import { fieldErr, isDNS1123Label, isValidLabelValue, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf, humanDuration } from '../../age.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { labelSelectorJSON, sortedMap } from '../apps/selector.js';
import {
  child, containerCells, containersColumnDescription, formatLabelSelector, imagesColumnDescription, invalidJSON, isNil, isObject,
  num, selectorOf, semanticEqual, specOf, statusOf, str, templateLabelsMismatch, templateOf, type JsonObject,
} from '../apps/common.js';
import { defaultPodTemplateSpec } from '../core/podspec/index.js';
import { goPodFailurePolicy, goSuccessPolicy, isIndexed, validateJobSpecCommon } from './jobspec.js';
import { validateJobStatusUpdate } from './jobstatus.js';
import { jobWarningsOnCreate, jobWarningsOnUpdate } from './warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const legacyControllerUidLabel = 'controller-uid';
export const legacyJobNameLabel = 'job-name';

const maxInt32 = 2147483647;

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern over a job spec's rules. */
export function defaultPodFailurePolicy(spec: JsonObject): void {
  if (!isObject(spec.podFailurePolicy) || !Array.isArray(spec.podFailurePolicy.rules)) return;
  for (const rule of spec.podFailurePolicy.rules) {
    if (!isObject(rule) || !Array.isArray(rule.onPodConditions)) continue;
    for (const pattern of rule.onPodConditions) if (isObject(pattern) && !str(pattern.status)) pattern.status = 'True';
  }
}

/** SetDefaults_Job with the pod template's defaults. */
export function defaultJob(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  // A non-parallel job may leave both unset.
  if (isNil(spec.completions) && isNil(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (isNil(spec.parallelism)) spec.parallelism = 1;
  if (isNil(spec.backoffLimit)) spec.backoffLimit = isNil(spec.backoffLimitPerIndex) ? 6 : maxInt32;
  copyTemplateLabels(obj);
  if (isNil(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (isNil(spec.suspend)) spec.suspend = false;
  if (isNil(spec.podReplacementPolicy)) spec.podReplacementPolicy = isObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (isNil(spec.manualSelector)) spec.manualSelector = false;
  defaultPodFailurePolicy(spec);
  const template = child(spec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
}

/** A job without labels of its own takes its pod template's. */
function copyTemplateLabels(obj: KubeObject): void {
  const template = templateOf(specOf(obj));
  const labels = isObject(template.metadata) ? template.metadata.labels : undefined;
  const own = obj.metadata.labels;
  if (isObject(labels) && (!own || Object.keys(own).length === 0)) obj.metadata.labels = { ...(labels as Record<string, string>) };
}

/**
 * generateSelector: the template gets the job's name and uid as labels (unless set by the
 * user, which validation then checks) and the selector matches the uid.
 */
export function generateSelector(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  const meta = child(child(spec, 'template'), 'metadata');
  const labels = (isObject(meta.labels) ? meta.labels : (meta.labels = {})) as Record<string, string>;
  const name = obj.metadata.name ?? '';
  const uid = obj.metadata.uid ?? '';
  for (const key of [legacyJobNameLabel, jobNameLabel]) if (!(key in labels)) labels[key] = name;
  for (const key of [legacyControllerUidLabel, controllerUidLabel]) if (!(key in labels)) labels[key] = uid;
  const selector = child(spec, 'selector');
  const matchLabels = (isObject(selector.matchLabels) ? selector.matchLabels : (selector.matchLabels = {})) as Record<string, string>;
  if (!(controllerUidLabel in matchLabels)) matchLabels[controllerUidLabel] = uid;
}

export function prepareJobForCreate(obj: KubeObject): void {
  if (specOf(obj).manualSelector !== true) generateSelector(obj);
  // kube answers the object decoded back from storage, whose defaulting copies the labels
  // generated above onto a job that had none.
  copyTemplateLabels(obj);
}

export interface JobValidationOptions {
  allowInvalidLabelValueInSelector: boolean;
  requirePrefixedLabels: boolean;
  allowMutableSchedulingDirectives: boolean;
}

const createOptions: JobValidationOptions = { allowInvalidLabelValueInSelector: false, requirePrefixedLabels: true, allowMutableSchedulingDirectives: false };

/** ValidateHasLabel: the template must carry the label with exactly that value. */
function validateHasLabel(meta: JsonObject, path: string, key: string, expected: string): FieldError[] {
  const labels = isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
  const p = `${path}.labels[${key}]`;
  if (!(key in labels)) return [fieldErr.required(p, expected)];
  if (labels[key] !== expected) return [invalidJSON(p, sortedMap(meta.labels), `must be '${expected}'`)];
  return [];
}

/** validateGeneratedSelector: a generated selector and the template labels must name this job. */
function validateGeneratedSelector(obj: KubeObject, requirePrefixedLabels: boolean): FieldError[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true || isNil(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = obj.metadata.uid ?? '';
  const name = obj.metadata.name ?? '';
  if (uid === '') errs.push(fieldErr.required('metadata.uid'));
  const template = templateOf(spec);
  const meta = isObject(template.metadata) ? template.metadata : {};
  const path = 'spec.template.metadata';
  errs.push(...validateHasLabel(meta, path, legacyControllerUidLabel, uid), ...validateHasLabel(meta, path, legacyJobNameLabel, name));
  const expected: Record<string, string> = { [legacyControllerUidLabel]: uid, [legacyJobNameLabel]: name };
  if (requirePrefixedLabels) {
    errs.push(...validateHasLabel(meta, path, controllerUidLabel, uid), ...validateHasLabel(meta, path, jobNameLabel, name));
    expected[controllerUidLabel] = uid;
    expected[jobNameLabel] = name;
  }
  const selector = selectorOf(spec.selector);
  if (selector && !selector.matches(expected)) errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), '`selector` not auto-generated'));
  return errs;
}

/** ValidateJobSpec: the shared checks plus the selector, which must select the template. */
function validateJobSpec(spec: JsonObject, opts: JobValidationOptions): FieldError[] {
  const errs = validateJobSpecCommon(spec, 'spec');
  if (isNil(spec.selector)) errs.push(fieldErr.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }, 'spec.selector'));
  const selector = selectorOf(spec.selector);
  if (selector) errs.push(...templateLabelsMismatch(templateOf(spec), selector, 'spec.template'));
  return errs;
}

/** ValidateJob (object metadata is validated by the Store). */
export function validateJob(obj: KubeObject, opts: JobValidationOptions = createOptions): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateGeneratedSelector(obj, opts.requirePrefixedLabels), ...validateJobSpec(spec, opts)];
  if (isIndexed(spec) && typeof spec.completions === 'number' && spec.completions > 0) {
    // Indexed pods are named <job>-<index>, which becomes their hostname.
    const name = obj.metadata.name ?? '';
    const hostname = `${name}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) errs.push(fieldErr.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

function selectorHasInvalidLabelValue(sel: unknown): boolean {
  if (!isObject(sel)) return false;
  if (isObject(sel.matchLabels) && Object.values(sel.matchLabels).some((v) => isValidLabelValue(String(v)).length > 0)) return true;
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  return exprs.some((e) => isObject(e) && Array.isArray(e.values) && e.values.some((v) => isValidLabelValue(String(v)).length > 0));
}

/** validationOptionsForJob on update. */
export function updateOptions(old: KubeObject): JobValidationOptions {
  const oldSpec = specOf(old);
  const meta = templateOf(oldSpec).metadata;
  const labels = isObject(meta) && isObject(meta.labels) ? meta.labels : {};
  return {
    allowInvalidLabelValueInSelector: selectorHasInvalidLabelValue(oldSpec.selector),
    // Jobs created before the prefixed labels existed may keep lacking them.
    requirePrefixedLabels: jobNameLabel in labels && controllerUidLabel in labels,
    // Scheduling directives of a suspended job that never started may still change.
    allowMutableSchedulingDirectives: oldSpec.suspend === true && isNil(statusOf(old).startTime),
  };
}

/** The template as it must stay: old, with what a never-started suspended job may change taken from the new one. */
function comparableOldTemplate(template: JsonObject, oldTemplate: JsonObject, opts: JobValidationOptions): JsonObject {
  if (!opts.allowMutableSchedulingDirectives) return oldTemplate;
  const old = structuredClone(oldTemplate);
  const pod = isObject(template.spec) ? template.spec : {};
  const oldPod = child(old, 'spec');
  const oldMeta = child(old, 'metadata');
  const meta = isObject(template.metadata) ? template.metadata : {};
  const affinity = isObject(pod.affinity) ? pod.affinity : undefined;
  const oldAffinity = isObject(oldPod.affinity) ? oldPod.affinity : undefined;
  if (!affinity && oldAffinity) {
    delete oldAffinity.nodeAffinity;
    if (Object.keys(oldAffinity).length === 0) delete oldPod.affinity;
  } else if (affinity && !oldAffinity) {
    oldPod.affinity = isNil(affinity.nodeAffinity) ? {} : { nodeAffinity: affinity.nodeAffinity };
  } else if (affinity && oldAffinity) {
    if (isNil(affinity.nodeAffinity)) delete oldAffinity.nodeAffinity;
    else oldAffinity.nodeAffinity = affinity.nodeAffinity;
  }
  for (const [target, source, key] of [[oldPod, pod, 'nodeSelector'], [oldPod, pod, 'tolerations'], [oldMeta, meta, 'annotations'], [oldMeta, meta, 'labels'], [oldPod, pod, 'schedulingGates']] as const) {
    if (isNil(source[key])) delete target[key];
    else target[key] = source[key];
  }
  return old;
}

function immutable(path: string, value: unknown, oldValue: unknown, shown: unknown): FieldError[] {
  return semanticEqual(value, oldValue) ? [] : [invalidJSON(path, shown, 'field is immutable')];
}

/** ValidateJobSpecUpdate (it repeats ValidateJobSpec, so kube reports those errors twice). */
function validateJobSpecUpdate(spec: JsonObject, oldSpec: JsonObject, opts: JobValidationOptions): FieldError[] {
  const errs = validateJobSpec(spec, opts);
  // Elastic indexed jobs scale completions together with parallelism.
  if (!semanticEqual(spec.completions, oldSpec.completions)) {
    if (!isIndexed(spec)) errs.push(invalidJSON('spec.completions', isNil(spec.completions) ? null : spec.completions, 'field is immutable'));
    else if (!isNil(spec.completions) && spec.completions !== spec.parallelism) {
      errs.push(fieldErr.invalid('spec.completions', num(spec.completions), 'can only be modified in tandem with spec.parallelism'));
    }
  }
  errs.push(...immutable('spec.selector', spec.selector, oldSpec.selector, labelSelectorJSON(spec.selector)));
  const template = templateOf(spec);
  // kube prints its internal PodTemplateSpec (metadata, then the spec by Go field name); the
  // versioned template, metadata first, stands in for it.
  const shown = { metadata: template.metadata ?? {}, spec: template.spec ?? {} };
  errs.push(...immutable('spec.template', template, comparableOldTemplate(template, templateOf(oldSpec), opts), shown));
  errs.push(...immutable('spec.completionMode', spec.completionMode, oldSpec.completionMode, spec.completionMode ?? null));
  errs.push(...immutable('spec.podFailurePolicy', spec.podFailurePolicy, oldSpec.podFailurePolicy, goPodFailurePolicy(spec.podFailurePolicy)));
  errs.push(...immutable('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex, oldSpec.backoffLimitPerIndex, spec.backoffLimitPerIndex ?? null));
  errs.push(...immutable('spec.managedBy', spec.managedBy, oldSpec.managedBy, spec.managedBy ?? null));
  errs.push(...immutable('spec.successPolicy', spec.successPolicy, oldSpec.successPolicy, goSuccessPolicy(spec.successPolicy)));
  return errs;
}

export function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const opts = updateOptions(old);
  return [...validateJob(obj, opts), ...validateJobSpecUpdate(specOf(obj), specOf(old), opts)];
}

/** hasJobCondition: the first condition of the type decides. */
function hasJobCondition(obj: KubeObject, type: string): boolean {
  const conditions = statusOf(obj).conditions;
  const c = Array.isArray(conditions) ? conditions.find((x) => isObject(x) && x.type === type) : undefined;
  return isObject(c) && c.status === 'True';
}

function jobStatusCell(obj: KubeObject): string {
  if (hasJobCondition(obj, 'Complete')) return 'Complete';
  if (hasJobCondition(obj, 'Failed')) return 'Failed';
  if (obj.metadata.deletionTimestamp) return 'Terminating';
  if (hasJobCondition(obj, 'Suspended')) return 'Suspended';
  if (hasJobCondition(obj, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

export function jobCells(obj: KubeObject, now = Date.now()): unknown[] {
  const spec = specOf(obj);
  const status = statusOf(obj);
  const succeeded = num(status.succeeded);
  let completions: string;
  if (!isNil(spec.completions)) completions = `${succeeded}/${num(spec.completions)}`;
  else completions = num(spec.parallelism) > 1 ? `${succeeded}/1 of ${num(spec.parallelism)}` : `${succeeded}/1`;
  let duration = '';
  if (!isNil(status.startTime)) {
    const end = isNil(status.completionTime) ? now : Date.parse(str(status.completionTime));
    duration = humanDuration(end - Date.parse(str(status.startTime)));
  }
  const [names, images] = containerCells(templateOf(spec));
  return [jobStatusCell(obj), completions, duration, ageOf(obj.metadata.creationTimestamp, now), names, images, formatLabelSelector(spec.selector)];
}

export const jobs: KindDefinition = {
  group: 'batch', version: 'v1', resource: 'jobs', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    defaults: defaultJob,
    prepareForCreate: prepareJobForCreate,
    validate: (obj) => validateJob(obj),
    validateUpdate: validateJobUpdate,
    warningsOnCreate: jobWarningsOnCreate,
    warningsOnUpdate: jobWarningsOnUpdate,
  },
  subresourceStrategies: { status: { validateUpdate: validateJobStatusUpdate } },
  selectableFields: { 'status.successful': (obj) => String(num(statusOf(obj).succeeded)) },
  table: {
    columns: [
      column('Status', 'string', 'Status of the job.'),
      column('Completions', 'string', 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.'),
      column('Duration', 'string', 'Time required to complete the job.'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
      column('Selector', 'string', 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    cells: (obj) => jobCells(obj),
  },
};
