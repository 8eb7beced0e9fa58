import { fieldErrorString } from '@windlass/machinery';
import type { KubeObject, StatusStrategy } from '../../types.js';
import { controllerUidLabel, defaultJob, jobCells, jobNameLabel, jobs, prepareJobForCreate, validateJob, validateJobUpdate } from './jobs.js';

const uid = '0b5ac6b4-1111-4222-8333-944455556666';

function job(spec: Record<string, unknown> = {}, name = 'migrate'): KubeObject {
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: { name, namespace: 'default', uid },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2' }] } }, ...spec },
  };
}

/** A job as the Store has it after a create: defaulted, then prepared. */
function created(spec: Record<string, unknown> = {}, name?: string): KubeObject {
  const j = job(spec, name);
  defaultJob(j);
  prepareJobForCreate(j);
  return j;
}

const messages = (errs: ReturnType<typeof validateJob>) => errs.map(fieldErrorString);
const specOf = (j: KubeObject) => j.spec as Record<string, any>;

describe('Job defaults (SetDefaults_Job, kube 1.35)', () => {
  test('a minimal job runs one pod once, with six retries, and is neither suspended nor manually selected', () => {
    const j = job();
    defaultJob(j);
    expect(j.spec).toMatchObject({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed', manualSelector: false,
    });
  });

  test('completions alone leave it to parallelism 1; a per-index backoff limit lifts the global one', () => {
    const j = job({ completions: 5, completionMode: 'Indexed', backoffLimitPerIndex: 1 });
    defaultJob(j);
    expect(j.spec).toMatchObject({ completions: 5, parallelism: 1, backoffLimit: 2147483647 });
  });

  test('a pod failure policy makes replacement wait for Failed pods and its condition patterns default to True', () => {
    const j = job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } });
    defaultJob(j);
    expect(specOf(j).podReplacementPolicy).toBe('Failed');
    expect(specOf(j).podFailurePolicy.rules[0].onPodConditions[0].status).toBe('True');
  });

  test('a job without labels takes its template labels', () => {
    const j = job({ template: { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'Never', containers: [] } } });
    defaultJob(j);
    expect(j.metadata.labels).toEqual({ app: 'web' });
  });
});

describe('Job create (jobStrategy.PrepareForCreate)', () => {
  test('the selector is generated from the uid and the template gets both the prefixed and the legacy labels', () => {
    const j = created();
    expect(specOf(j).selector).toEqual({ matchLabels: { [controllerUidLabel]: uid } });
    const labels = { 'controller-uid': uid, 'job-name': 'migrate', [controllerUidLabel]: uid, [jobNameLabel]: 'migrate' };
    expect(specOf(j).template.metadata.labels).toEqual(labels);
    // The answer kube gives comes back through storage decoding, which copies them onto the job.
    expect(j.metadata.labels).toEqual(labels);
    expect(validateJob(j)).toEqual([]);
  });

  test('a manual selector is kept as sent', () => {
    const pod = { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2' }] };
    const j = created({ manualSelector: true, selector: { matchLabels: { run: 'manual' } }, template: { metadata: { labels: { run: 'manual' } }, spec: pod } });
    expect(specOf(j).selector).toEqual({ matchLabels: { run: 'manual' } });
    expect(specOf(j).template.metadata.labels).toEqual({ run: 'manual' });
    expect(j.metadata.labels).toEqual({ run: 'manual' });
    expect(validateJob(j)).toEqual([]);
  });
});

describe('Job validation (ValidateJob)', () => {
  test('restartPolicy Always is refused as kube words it', () => {
    const j = created();
    specOf(j).template.spec.restartPolicy = 'Always';
    expect(messages(validateJob(j))).toEqual(['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
  });

  test('an unknown completion mode and a negative backoff limit', () => {
    expect(messages(validateJob(created({ completionMode: 'Sequential' })))).toEqual(['spec.completionMode: Unsupported value: "Sequential": supported values: "NonIndexed", "Indexed"']);
    expect(messages(validateJob(created({ backoffLimit: -1 })))).toEqual(['spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('an indexed job needs completions, and its last pod hostname must be a DNS label', () => {
    expect(messages(validateJob(created({ completionMode: 'Indexed', parallelism: 2 })))).toEqual(['spec.completions: Required value: when completion mode is Indexed']);
    const long = 'a'.repeat(60);
    expect(messages(validateJob(created({ completionMode: 'Indexed', completions: 1000 }, long)))).toEqual([
      `metadata.name: Invalid value: "${long}": will not able to create pod with invalid DNS label: ${long}-999`,
    ]);
  });

  test('a selector that is not the generated one, and a template label naming another job', () => {
    const j = created();
    specOf(j).selector.matchLabels[controllerUidLabel] = 'other';
    expect(messages(validateJob(j))).toEqual([
      `spec.selector: Invalid value: {"matchLabels":{"batch.kubernetes.io/controller-uid":"other"}}: \`selector\` not auto-generated`,
      `spec.template.metadata.labels: Invalid value: {"batch.kubernetes.io/controller-uid":"${uid}","batch.kubernetes.io/job-name":"migrate","controller-uid":"${uid}","job-name":"migrate"}: \`selector\` does not match template \`labels\``,
    ]);
    const k = created();
    specOf(k).template.metadata.labels['job-name'] = 'other';
    expect(messages(validateJob(k))[0]).toBe(
      `spec.template.metadata.labels[job-name]: Invalid value: {"batch.kubernetes.io/controller-uid":"${uid}","batch.kubernetes.io/job-name":"migrate","controller-uid":"${uid}","job-name":"other"}: must be 'migrate'`,
    );
  });

  test('pod failure policy rules', () => {
    const j = created({
      podFailurePolicy: { rules: [
        { action: 'FailIndex', onExitCodes: { operator: 'In', values: [3, 0, 3] } },
        { action: 'Count' },
      ] },
    });
    expect(messages(validateJob(j))).toEqual([
      'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,0,3]: must be ordered',
      'spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    ]);
  });

  test('a success policy needs indexed completion and indexes below completions', () => {
    expect(messages(validateJob(created({ successPolicy: { rules: [{ succeededCount: 1 }] } })))).toEqual([
      'spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}: requires indexed completion mode',
    ]);
    expect(messages(validateJob(created({ completionMode: 'Indexed', completions: 3, successPolicy: { rules: [{ succeededIndexes: '0-5', succeededCount: 4 }] } })))).toEqual([
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-5": error parsing succeededIndexes: too large index: "5"',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of specified completions)',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
    ]);
  });

  test('managedBy must be a domain-prefixed path', () => {
    expect(messages(validateJob(created({ managedBy: 'kueue' })))).toEqual(['spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")']);
    expect(validateJob(created({ managedBy: 'kueue.x-k8s.io/multikueue' }))).toEqual([]);
  });
});

describe('Job update (ValidateJobUpdate)', () => {
  test('the pod template is immutable', () => {
    const old = created();
    const j = structuredClone(old);
    specOf(j).template.spec.containers[0].image = 'registry.example.com/team/app:9';
    const errs = messages(validateJobUpdate(j, old));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.template: Invalid value: \{"metadata":.*: field is immutable$/);
  });

  test('suspend and parallelism may change, completions of a non-indexed job may not', () => {
    const old = created();
    const j = structuredClone(old);
    Object.assign(j.spec as object, { suspend: true, parallelism: 3 });
    expect(validateJobUpdate(j, old)).toEqual([]);
    specOf(j).completions = 4;
    expect(messages(validateJobUpdate(j, old))).toEqual(['spec.completions: Invalid value: 4: field is immutable']);
  });

  test('elastic indexed jobs change completions together with parallelism', () => {
    const old = created({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
    const j = structuredClone(old);
    specOf(j).completions = 5;
    expect(messages(validateJobUpdate(j, old))).toEqual(['spec.completions: Invalid value: 5: can only be modified in tandem with spec.parallelism']);
    specOf(j).parallelism = 5;
    expect(validateJobUpdate(j, old)).toEqual([]);
  });

  test('a suspended job that never started may change its scheduling directives only', () => {
    const old = created({ suspend: true });
    const j = structuredClone(old);
    specOf(j).template.spec.nodeSelector = { zone: 'a' };
    specOf(j).template.metadata.annotations = { note: 'x' };
    expect(validateJobUpdate(j, old)).toEqual([]);
    const started = structuredClone(old);
    started.status = { startTime: '2026-01-02T03:04:05Z' };
    expect(messages(validateJobUpdate(j, started))[0]).toMatch(/^spec\.template: Invalid value: .*field is immutable$/);
  });
});

describe('Job status writes (jobStatusStrategy)', () => {
  const status = jobs.subresourceStrategies!.status as Required<StatusStrategy>;

  test('a running status is accepted', () => {
    const old = created();
    const j = structuredClone(old);
    j.status = { active: 1, ready: 0, startTime: '2026-01-02T03:04:05Z' };
    expect(status.validateUpdate(j, old)).toEqual([]);
  });

  test('counters never decrease, terminal conditions stay, and a complete job has a completion time', () => {
    const old = created();
    old.status = { failed: 2, startTime: '2026-01-02T03:04:05Z', conditions: [{ type: 'Failed', status: 'True' }, { type: 'FailureTarget', status: 'True' }] };
    const j = structuredClone(old);
    j.status = { failed: 1, startTime: '2026-01-02T03:04:05Z', conditions: [{ type: 'Complete', status: 'True' }, { type: 'SuccessCriteriaMet', status: 'True' }] };
    expect(messages(status.validateUpdate(j, old))).toEqual([
      'status.completionTime: Required value: completionTime is required for Complete jobs',
      'status.conditions: Invalid value: cannot disable the terminal Failed=True condition',
      'status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition',
      'status.failed: Invalid value: 1: cannot decrease the failed counter',
    ]);
  });
});

describe('Job listing', () => {
  test('status.successful selects on the succeeded counter', () => {
    const j = created();
    expect(jobs.selectableFields!['status.successful'](j)).toBe('0');
    j.status = { succeeded: 2 };
    expect(jobs.selectableFields!['status.successful'](j)).toBe('2');
  });

  test('the printer shows status, completions, duration and the wide columns', () => {
    const j = created({ completions: 3 });
    j.metadata.creationTimestamp = '2026-01-02T03:00:00Z';
    j.status = { succeeded: 1, startTime: '2026-01-02T03:00:00Z', completionTime: '2026-01-02T03:01:30Z', conditions: [{ type: 'Complete', status: 'True' }] };
    const now = Date.parse('2026-01-02T03:05:00Z');
    expect(jobCells(j, now)).toEqual(['Complete', '1/3', '90s', '5m', 'app', 'registry.example.com/team/app:1.4.2', `${controllerUidLabel}=${uid}`]);
    expect(jobs.table!.columns.map((c) => c.name)).toEqual(['Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    const running = created({ parallelism: 3 });
    expect(jobCells(running, now).slice(0, 3)).toEqual(['Running', '0/1 of 3', '']);
  });
});
