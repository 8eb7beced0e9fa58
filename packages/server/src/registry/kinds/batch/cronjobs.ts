/**
 * batch/v1 CronJob: SetDefaults_CronJob with the job template's pod defaults, kube's cronjob
 * strategy (generation, status kept apart), ValidateCronJobCreate/Update (schedule, time zone,
 * concurrency policy, the job template whose selector is always generated) and the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { labelSelectorJSON } from '../apps/selector.js';
import {
  child, containerCells, containersColumnDescription, formatLabelSelector, imagesColumnDescription, invalidJSON, isNil, isObject,
  specOf, statusOf, str, type JsonObject,
} from '../apps/common.js';
import { defaultPodTemplateSpec } from '../core/podspec/index.js';
import { cronScheduleError, isKnownTimeZone } from './cron.js';
import { nonnegative, validateJobSpecCommon } from './jobspec.js';
import { defaultPodFailurePolicy } from './jobs.js';
import { cronJobWarningsOnCreate, cronJobWarningsOnUpdate } from './warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

/** The cronjob controller appends an 11-character suffix to job names, which are DNS labels. */
const maxCronJobNameLength = 63 - 11;

export function defaultCronJob(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (!str(spec.concurrencyPolicy)) spec.concurrencyPolicy = 'Allow';
  if (isNil(spec.suspend)) spec.suspend = false;
  if (isNil(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (isNil(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  const jobSpec = child(child(spec, 'jobTemplate'), 'spec');
  defaultPodFailurePolicy(jobSpec);
  const template = child(jobSpec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
}

const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone: an IANA name (by its file-name rules), never Local. */
function validateTimeZone(timeZone: unknown, path: string): FieldError[] {
  if (isNil(timeZone)) return [];
  const tz = str(timeZone);
  if (tz.length === 0) return [fieldErr.invalid(path, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !validTimeZoneCharacters.test(part)) {
      return [fieldErr.invalid(path, tz, `unknown time zone ${tz}`)];
    }
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === 'local') errs.push(fieldErr.invalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  else if (!isKnownTimeZone(tz)) errs.push(fieldErr.invalid(path, tz, `unknown time zone ${tz}`));
  return errs;
}

function validateSchedule(schedule: string, allowTZInSchedule: boolean, timeZone: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError) errs.push(fieldErr.invalid(path, schedule, parseError));
  if (allowTZInSchedule && schedule.includes('TZ') && !isNil(timeZone)) {
    errs.push(fieldErr.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZInSchedule && schedule.includes('TZ')) {
    errs.push(fieldErr.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

/** ValidateJobTemplateSpec: a job spec whose selector the controller generates. */
function validateJobTemplateSpec(template: JsonObject, path: string): FieldError[] {
  const spec = isObject(template.spec) ? template.spec : {};
  const errs = validateJobSpecCommon(spec, `${path}.spec`);
  if (!isNil(spec.selector)) errs.push(invalidJSON(`${path}.spec.selector`, labelSelectorJSON(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(fieldErr.notSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return errs;
}

/** validateCronJobSpec; `oldSpec` on updates. */
function validateCronJobSpec(spec: JsonObject, oldSpec: JsonObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec.schedule);
  if (schedule.length === 0) errs.push(fieldErr.required('spec.schedule'));
  else errs.push(...validateSchedule(schedule, oldSpec !== undefined && str(oldSpec.schedule).includes('TZ'), spec.timeZone, 'spec.schedule'));
  errs.push(...nonnegative(spec, 'startingDeadlineSeconds', 'spec'));
  if (!oldSpec || (oldSpec.timeZone ?? null) !== (spec.timeZone ?? null)) errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  const policy = str(spec.concurrencyPolicy);
  if (policy === '') errs.push(fieldErr.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errs.push(fieldErr.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  errs.push(...validateJobTemplateSpec(isObject(spec.jobTemplate) ? spec.jobTemplate : {}, 'spec.jobTemplate'));
  errs.push(...nonnegative(spec, 'successfulJobsHistoryLimit', 'spec'), ...nonnegative(spec, 'failedJobsHistoryLimit', 'spec'));
  return errs;
}

export function validateCronJob(obj: KubeObject): FieldError[] {
  const errs = validateCronJobSpec(specOf(obj), undefined);
  const name = obj.metadata.name ?? '';
  if (name.length > maxCronJobNameLength) errs.push(fieldErr.invalid('metadata.name', name, `must be no more than ${maxCronJobNameLength} characters`));
  return errs;
}

/** Older cronjobs with longer names may still be updated. */
export function validateCronJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return validateCronJobSpec(specOf(obj), specOf(old));
}

const printBool = (v: unknown) => (isNil(v) ? '<unset>' : v === true ? 'True' : 'False');

export function cronJobCells(obj: KubeObject, now = Date.now()): unknown[] {
  const spec = specOf(obj);
  const status = statusOf(obj);
  const jobSpec = isObject(spec.jobTemplate) && isObject(spec.jobTemplate.spec) ? spec.jobTemplate.spec : {};
  const [names, images] = containerCells(isObject(jobSpec.template) ? jobSpec.template : {});
  return [
    str(spec.schedule), isNil(spec.timeZone) ? '<none>' : str(spec.timeZone), printBool(spec.suspend),
    Array.isArray(status.active) ? status.active.length : 0,
    isNil(status.lastScheduleTime) ? '<none>' : ageOf(str(status.lastScheduleTime), now),
    ageOf(obj.metadata.creationTimestamp, now), names, images, formatLabelSelector(jobSpec.selector),
  ];
}

export const cronJobs: KindDefinition = {
  group: 'batch', version: 'v1', resource: 'cronjobs', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    defaults: defaultCronJob, validate: validateCronJob, validateUpdate: validateCronJobUpdate,
    warningsOnCreate: cronJobWarningsOnCreate, warningsOnUpdate: cronJobWarningsOnUpdate,
  },
  table: {
    columns: [
      column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      column('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones'),
      column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.'),
      column('Active', 'integer', 'A list of pointers to currently running jobs.'),
      column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
      column('Selector', 'string', 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    cells: (obj) => cronJobCells(obj),
  },
};
