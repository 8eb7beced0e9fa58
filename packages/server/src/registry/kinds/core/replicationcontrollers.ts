/**
 * ReplicationControllers (pkg/registry/core/replicationcontroller): the selector and labels
 * default to the template's labels and replicas to 1; ValidateReplicationController's rules
 * (a selector matching the template, restartPolicy Always); status and scale subresources;
 * the `status.replicas` field selector and `kubectl get rc` columns.
 */
import { fieldErr, labelSelectorFromSet, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, ScaleDefinition } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageOf } from '../../age.js';
import { ageColumn, column } from '../common.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec, validatePodTemplateSpecUpdate } from './podspec/index.js';
import { containerCells, formatLabels } from './podtemplates.js';
import { podTemplateWarnings } from './podspec/warnings.js';
import { dnsLabelNameWarning } from '../warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

const specOf = (rc: KubeObject) => obj(rc.spec);
const statusOf = (rc: KubeObject) => obj(rc.status);

/** Go's %#v of a map[string]string. */
function goStringMap(m: Json): string {
  const entries = Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(String(v))}`).join(', ')}}`;
}

/** SetObjectDefaults_ReplicationController. */
function defaultReplicationController(rc: KubeObject): void {
  const spec = isObject(rc.spec) ? rc.spec : (rc.spec = {}) as Json;
  const template = isObject(spec.template) ? spec.template : undefined;
  const labels = template && isObject(obj(template.metadata).labels) ? (obj(template.metadata).labels as Json) : undefined;
  if (labels) {
    if (Object.keys(obj(spec.selector)).length === 0) spec.selector = { ...labels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...(labels as Record<string, string>) };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (template) defaultPodTemplateSpec(template);
}

const nonnegative = (v: number, path: string): FieldError[] => (v < 0 ? [fieldErr.invalid(path, v, 'must be greater than or equal to 0')] : []);

/** ValidateReplicationControllerSpec (with the old template's usages allowed on update). */
function validateSpec(rc: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(rc);
  const errs: FieldError[] = [];
  errs.push(...nonnegative(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  const selector = obj(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(fieldErr.required('spec.selector'));
  errs.push(...nonnegative(num(spec.replicas), 'spec.replicas'));
  const template = spec.template;
  if (!isObject(template)) {
    errs.push(fieldErr.required('spec.template'));
    return errs;
  }
  const labels = obj(obj(template.metadata).labels);
  if (Object.keys(selector).length > 0 && !labelSelectorFromSet(selector as Record<string, string>).matches(labels as Record<string, string>)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', detail: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\`` });
  }
  const oldTemplate = old ? obj(specOf(old).template) : undefined;
  errs.push(...(old ? validatePodTemplateSpecUpdate(template, oldTemplate, 'spec.template') : validatePodTemplateSpec(template, 'spec.template')));
  const restartPolicy = String(obj(template.spec).restartPolicy ?? '');
  if (restartPolicy !== 'Always') errs.push(fieldErr.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (obj(template.spec).activeDeadlineSeconds !== undefined && obj(template.spec).activeDeadlineSeconds !== null) {
    errs.push(fieldErr.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** ValidateReplicationControllerStatus. */
function validateStatus(rc: KubeObject): FieldError[] {
  const s = statusOf(rc);
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) errs.push(...nonnegative(num(s[f]), `status.${f}`));
  const msg = 'cannot be greater than status.replicas';
  if (num(s.fullyLabeledReplicas) > num(s.replicas)) errs.push(fieldErr.invalid('status.fullyLabeledReplicas', num(s.fullyLabeledReplicas), msg));
  if (num(s.readyReplicas) > num(s.replicas)) errs.push(fieldErr.invalid('status.readyReplicas', num(s.readyReplicas), msg));
  if (num(s.availableReplicas) > num(s.replicas)) errs.push(fieldErr.invalid('status.availableReplicas', num(s.availableReplicas), msg));
  if (num(s.availableReplicas) > num(s.readyReplicas)) errs.push(fieldErr.invalid('status.availableReplicas', num(s.availableReplicas), 'cannot be greater than readyReplicas'));
  return errs;
}

export const replicationControllerScale: ScaleDefinition = {
  specReplicas: (rc) => num(specOf(rc).replicas),
  statusReplicas: (rc) => num(statusOf(rc).replicas),
  selector: (rc) => labelSelectorFromSet(obj(specOf(rc).selector) as Record<string, string>).toString(),
  setSpecReplicas(rc, replicas) {
    rc.spec = { ...specOf(rc), replicas };
  },
};

export const replicationControllers: KindDefinition = {
  group: '', version: 'v1', resource: 'replicationcontrollers',
  admission: [podSecurityControllerAdmission],
  generation: true,
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    defaults: defaultReplicationController,
    prepareForCreate(rc) {
      rc.status = {};
    },
    validate: (rc) => validateSpec(rc),
    validateUpdate: (rc, old) => validateSpec(rc, old),
    warningsOnCreate: (rc) => [...dnsLabelNameWarning(rc.metadata.name), ...podTemplateWarnings('spec.template', (rc.spec as Record<string, unknown> | undefined)?.template)],
    // kube's rcStrategy.WarningsOnUpdate passes the old template where the new one belongs, so
    // an update that moved the generation warns about what the controller had before.
    warningsOnUpdate: (rc, old) => (rc.metadata.generation !== old.metadata.generation ? podTemplateWarnings('spec.template', (old.spec as Record<string, unknown> | undefined)?.template) : []),
  },
  subresourceStrategies: { status: { validateUpdate: (rc) => validateStatus(rc) } },
  scale: replicationControllerScale,
  table: {
    columns: [
      column('Desired', 'integer', 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller'),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller'),
      column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', 1),
      column('Images', 'string', 'Images referenced by each container in the template.', 1),
      column('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    cells: (rc) => {
      const spec = specOf(rc);
      const status = statusOf(rc);
      return [num(spec.replicas), num(status.replicas), num(status.readyReplicas), ageOf(rc.metadata.creationTimestamp), ...containerCells(obj(spec.template).spec), formatLabels(spec.selector)];
    },
  },
  selectableFields: { 'status.replicas': (rc) => String(num(statusOf(rc).replicas)) },
};
