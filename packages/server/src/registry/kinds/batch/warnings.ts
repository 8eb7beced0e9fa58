/**
 * WarningsForJobSpec (Kubernetes 1.35 pkg/api/job/warnings.go), shared by Jobs and CronJobs'
 * job templates: an Indexed Job too big to track its failed indexes, then the pod template's.
 */
import type { KubeObject } from '../../types.js';
import { podTemplateWarnings } from '../core/podspec/warnings.js';
import { dnsLabelNameWarning } from '../warnings.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

const completionsSoftLimit = 100_000;
const parallelismSoftLimitForUnlimitedCompletions = 10_000;

export function jobSpecWarnings(path: string, spec: unknown): string[] {
  const s = obj(spec);
  const warnings: string[] = [];
  if (s.completionMode === 'Indexed') {
    const completions = typeof s.completions === 'number' ? s.completions : 0;
    const parallelism = typeof s.parallelism === 'number' ? s.parallelism : 0;
    if (completions > completionsSoftLimit && parallelism > parallelismSoftLimitForUnlimitedCompletions) {
      warnings.push(`${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`);
    }
  }
  warnings.push(...podTemplateWarnings(`${path}.template`, s.template));
  return warnings;
}

const generationMoved = (o: KubeObject, old: KubeObject) => o.metadata.generation !== old.metadata.generation;

/** jobStrategy.WarningsOnCreate / WarningsOnUpdate (the latter only when the generation moved). */
export const jobWarningsOnCreate = (job: KubeObject): string[] => [...dnsLabelNameWarning(job.metadata.name), ...jobSpecWarnings('spec', job.spec)];
export const jobWarningsOnUpdate = (job: KubeObject, old: KubeObject): string[] => (generationMoved(job, old) ? jobSpecWarnings('spec', job.spec) : []);

const jobTemplateSpec = (cronJob: KubeObject) => obj(obj(cronJob.spec).jobTemplate).spec;

/** cronJobStrategy.WarningsOnCreate. */
export const cronJobWarningsOnCreate = (cronJob: KubeObject): string[] => [
  ...dnsLabelNameWarning(cronJob.metadata.name),
  ...jobSpecWarnings('spec.jobTemplate.spec', jobTemplateSpec(cronJob)),
];

/**
 * cronJobStrategy.WarningsOnUpdate: the job template when the generation moved, and a TZ in the
 * schedule (refused on create, kept on update of a CronJob stored with it); kube's message
 * names the path `spec.spec.schedule`.
 */
export function cronJobWarningsOnUpdate(cronJob: KubeObject, old: KubeObject): string[] {
  const warnings = generationMoved(cronJob, old) ? jobSpecWarnings('spec.jobTemplate.spec', jobTemplateSpec(cronJob)) : [];
  const schedule = obj(cronJob.spec).schedule;
  if (typeof schedule === 'string' && schedule.includes('TZ')) {
    warnings.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details');
  }
  return warnings;
}
