import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { cronScheduleError } from './cron.js';
import { cronJobCells, cronJobs, defaultCronJob, validateCronJob, validateCronJobUpdate } from './cronjobs.js';

function cronJob(spec: Record<string, unknown> = {}, name = 'nightly'): KubeObject {
  const c: KubeObject = {
    apiVersion: 'batch/v1', kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '0 3 * * *',
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2' }] } } } },
      ...spec,
    },
  };
  defaultCronJob(c);
  return c;
}

const messages = (errs: ReturnType<typeof validateCronJob>) => errs.map(fieldErrorString);

describe('cron schedules (robfig/cron ParseStandard)', () => {
  test('five fields, names, steps and descriptors parse', () => {
    for (const s of ['0 3 * * *', '*/15 9-17 * JAN-jun mon-FRI', '@hourly', '@every 1h30m', '5 4 1,15 */2 0']) expect(cronScheduleError(s)).toBeUndefined();
  });

  test('errors carry the parser\'s words', () => {
    expect(cronScheduleError('bogus')).toBe('expected exactly 5 fields, found 1: [bogus]');
    expect(cronScheduleError('61 * * * *')).toBe('end of range (61) above maximum (59): 61');
    expect(cronScheduleError('* * 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(cronScheduleError('5-1 * * * *')).toBe('beginning of range (5) beyond end of range (1): 5-1');
    expect(cronScheduleError('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(cronScheduleError('x * * * *')).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(cronScheduleError('@weekdays')).toBe('unrecognized descriptor: @weekdays');
    expect(cronScheduleError('@every 5')).toBe('failed to parse duration @every 5: time: missing unit in duration "5"');
  });
});

describe('CronJob defaults (SetDefaults_CronJob)', () => {
  test('concurrency Allow, not suspended, 3 successful and 1 failed job kept', () => {
    expect(cronJob().spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  });

  test('the job template gets no Job defaults (the controller creates jobs from it)', () => {
    const spec = (cronJob().spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    expect(spec.completions).toBeUndefined();
    expect(spec.backoffLimit).toBeUndefined();
  });
});

describe('CronJob validation (ValidateCronJobCreate/Update)', () => {
  test('a defaulted cronjob is valid', () => {
    expect(validateCronJob(cronJob())).toEqual([]);
    expect(validateCronJob(cronJob({ schedule: '@hourly', timeZone: 'Europe/Paris' }))).toEqual([]);
  });

  test('schedule, concurrency policy and time zone', () => {
    const noSchedule = cronJob();
    delete (noSchedule.spec as Record<string, unknown>).schedule;
    expect(messages(validateCronJob(noSchedule))).toEqual(['spec.schedule: Required value']);
    expect(messages(validateCronJob(cronJob({ concurrencyPolicy: 'Sometimes' })))).toEqual(['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']);
    expect(messages(validateCronJob(cronJob({ schedule: 'CRON_TZ=UTC 0 3 * * *' })))).toEqual(['spec.schedule: Invalid value: "CRON_TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']);
    expect(messages(validateCronJob(cronJob({ timeZone: 'Mars/Olympus' })))).toEqual(['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
    expect(messages(validateCronJob(cronJob({ timeZone: 'Local' })))).toEqual(['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
    expect(messages(validateCronJob(cronJob({ timeZone: '' })))).toEqual(['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
  });

  test('the job template: restart policy, no selector, no manual selector', () => {
    const c = cronJob();
    const jobSpec = (c.spec as { jobTemplate: { spec: Record<string, any> } }).jobTemplate.spec;
    jobSpec.template.spec.restartPolicy = 'Always';
    jobSpec.selector = { matchLabels: { a: 'b' } };
    jobSpec.manualSelector = true;
    expect(messages(validateCronJob(c))).toEqual([
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
    ]);
  });

  test('names leave room for the controller\'s suffix on create only', () => {
    const name = 'n'.repeat(53);
    const c = cronJob({}, name);
    expect(messages(validateCronJob(c))).toEqual([`metadata.name: Invalid value: "${name}": must be no more than 52 characters`]);
    expect(validateCronJobUpdate(c, c)).toEqual([]);
  });

  test('a schedule stored with TZ may keep it on update, unless a timeZone is set too', () => {
    const old = cronJob();
    (old.spec as Record<string, unknown>).schedule = 'TZ=UTC 0 3 * * *';
    const updated = structuredClone(old);
    expect(validateCronJobUpdate(updated, old)).toEqual([]);
    (updated.spec as Record<string, unknown>).timeZone = 'UTC';
    expect(messages(validateCronJobUpdate(updated, old))).toEqual(['spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule']);
  });
});

describe('CronJob printer', () => {
  test('schedule, time zone, suspension, active jobs and last schedule', () => {
    const c = cronJob();
    c.metadata.creationTimestamp = '2026-01-02T03:00:00Z';
    c.status = { active: [{ name: 'nightly-1' }], lastScheduleTime: '2026-01-02T03:04:00Z' };
    expect(cronJobs.table!.columns.map((col) => col.name)).toEqual(['Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    expect(cronJobCells(c, Date.parse('2026-01-02T03:05:00Z'))).toEqual(['0 3 * * *', '<none>', 'False', 1, '60s', '5m', 'app', 'registry.example.com/team/app:1.4.2', '<none>']);
  });
});
