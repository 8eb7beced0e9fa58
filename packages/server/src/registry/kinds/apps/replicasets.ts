/**
 * apps/v1 ReplicaSet: SetDefaults_ReplicaSet, the registry strategy (status reset, generation
 * on spec changes, immutable selector), ValidateReplicaSet/ValidateReplicaSetStatusUpdate, the
 * `status.replicas` field selector, the /scale view and the printer.
 */
import type { FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { labelSelectorJSON } from './selector.js';
import { validateNonnegativeField } from '../../validation/intorpercent.js';
import { defaultPodTemplateSpec } from '../core/podspec/index.js';
import {
  bumpGenerationIf, child, containerCells, containersColumnDescription, formatLabelSelector, imagesColumnDescription,
  invalidJSON, isNil, nonnegativeCounters, notGreaterThan, num, selectorOf, semanticEqual, specOf, statusOf, templateOf,
  validateImmutableSelector, validateRequiredSelector, validateTemplateForReplicaSet, workloadScale, type JsonObject,
} from './common.js';
import { podTemplateWarnings } from '../core/podspec/warnings.js';
import { dnsLabelNameWarning } from '../warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

export function defaultReplicaSet(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (isNil(spec.replicas)) spec.replicas = 1;
  const template = child(spec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
}

/** ValidateReplicaSetSpec (its empty-selector message says "deployment" in kube too). */
export function validateReplicaSetSpec(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [
    ...validateNonnegativeField(num(spec.replicas), 'spec.replicas'),
    ...validateNonnegativeField(num(spec.minReadySeconds), 'spec.minReadySeconds'),
    ...validateRequiredSelector(spec.selector, 'spec.selector', 'empty selector is invalid for deployment', (s, p) => validateLabelSelector(s, {}, p)),
  ];
  const selector = selectorOf(spec.selector);
  if (!selector) errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), 'invalid label selector'));
  else errs.push(...validateTemplateForReplicaSet(templateOf(spec), selector, 'spec.template', old && templateOf(specOf(old))));
  return errs;
}

/** ValidateReplicaSetStatus (object metadata is checked by the Store). */
export function validateReplicaSetStatusUpdate(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs = nonnegativeCounters(status, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'terminatingReplicas', 'observedGeneration']);
  const msg = 'cannot be greater than status.replicas';
  errs.push(...notGreaterThan(status, 'fullyLabeledReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'readyReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'));
  return errs;
}

export const replicaSets: KindDefinition = {
  group: 'apps', version: 'v1', resource: 'replicasets', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    defaults: defaultReplicaSet,
    prepareForUpdate: (obj, old) => bumpGenerationIf(obj, old, !semanticEqual(obj.spec, old.spec)),
    validate: (obj) => validateReplicaSetSpec(obj),
    // kube validates the spec twice on update (ValidateReplicaSet, then ValidateReplicaSetUpdate);
    // its message lists each error once, its causes twice.
    validateUpdate: (obj, old) => [
      ...validateReplicaSetSpec(obj, old),
      ...validateReplicaSetSpec(obj, old),
      ...validateImmutableSelector(specOf(obj).selector, specOf(old).selector, 'spec.selector'),
    ],
    warningsOnCreate: (obj) => [...dnsLabelNameWarning(obj.metadata.name), ...podTemplateWarnings('spec.template', specOf(obj).template)],
    warningsOnUpdate: (obj, old) => (obj.metadata.generation !== old.metadata.generation ? podTemplateWarnings('spec.template', specOf(obj).template) : []),
  },
  subresourceStrategies: { status: { validateUpdate: validateReplicaSetStatusUpdate } },
  selectableFields: { 'status.replicas': (obj) => String(num(statusOf(obj).replicas)) },
  scale: workloadScale,
  table: {
    columns: [
      column('Desired', 'integer', 'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset'),
      column('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset'),
      column('Ready', 'integer', 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
      column('Selector', 'string', 'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    cells(obj) {
      const spec = specOf(obj), status = statusOf(obj);
      const [names, images] = containerCells(templateOf(spec));
      return [num(spec.replicas), num(status.replicas), num(status.readyReplicas), ageOf(obj.metadata.creationTimestamp), names, images, formatLabelSelector(spec.selector)];
    },
  },
};
