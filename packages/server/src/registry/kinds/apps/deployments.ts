/**
 * apps/v1 Deployment: SetDefaults_Deployment, the registry strategy (status reset, generation
 * moved by spec and annotation changes, immutable selector, status writes keep spec and
 * labels), ValidateDeployment/ValidateDeploymentStatusUpdate, the /scale view and the printer.
 */
import { fieldErr, newBadRequest, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { labelSelectorConvertible, labelSelectorJSON } from './selector.js';
import {
  intOrPercentValue, validateNonnegativeField, validateNotMoreThan100Percent, validatePositiveIntOrPercent,
} from '../../validation/intorpercent.js';
import { defaultPodTemplateSpec } from '../core/podspec/index.js';
import { podTemplateWarnings } from '../core/podspec/warnings.js';
import { dnsLabelNameWarning, pvcSpecWarnings } from '../warnings.js';
import {
  bumpGenerationIf, child, collisionCountDecremented, containerCells, containersColumnDescription, imagesColumnDescription,
  intOrString, invalidJSON, isNil, isObject, keepAllButStatus, keepAnnotation, nonnegativeCounters, notGreaterThan,
  notSupportedJSON, num, parseInt64, selectorOf, selectorString, semanticEqual, specOf, statusOf, str, templateOf,
  validateImmutableSelector, validateRequiredSelector, validateTemplateForReplicaSet, workloadScale, type JsonObject,
} from './common.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

/** apps/v1 keeps the deprecated rollback request as an annotation; kube converts it to spec.rollbackTo. */
export const rollbackToAnnotation = 'deprecated.deployment.rollback.to';

export function defaultDeployment(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (isNil(spec.replicas)) spec.replicas = 1;
  const strategy = child(spec, 'strategy');
  if (!str(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    if (isNil(rollingUpdate.maxUnavailable)) rollingUpdate.maxUnavailable = '25%';
    if (isNil(rollingUpdate.maxSurge)) rollingUpdate.maxSurge = '25%';
  }
  if (isNil(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (isNil(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
  const template = child(spec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
}

/** The revision of spec.rollbackTo as kube's conversion reads it from the annotation. */
function rollbackRevision(obj: KubeObject): number | undefined {
  const raw = obj.metadata.annotations?.[rollbackToAnnotation];
  if (!raw) return undefined;
  const parsed = parseInt64(raw);
  return 'value' in parsed ? parsed.value : undefined;
}

function normalizeDeployment(obj: KubeObject): void {
  const raw = obj.metadata.annotations?.[rollbackToAnnotation];
  if (!raw) return;
  const parsed = parseInt64(raw);
  if ('error' in parsed) {
    throw newBadRequest(`Deployment in version "v1" cannot be handled as a Deployment: failed to parse annotation[${rollbackToAnnotation}]=${raw} as int64: ${parsed.error}`);
  }
}

/** ValidateDeploymentStrategy. Values of internal structs print with Go field names. */
function validateStrategy(strategy: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rollingUpdate = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'Recreate':
      if (!isNil(rollingUpdate)) errs.push(fieldErr.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate':
      if (!isObject(rollingUpdate)) errs.push(fieldErr.required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil'));
      else errs.push(...validateRollingUpdate(rollingUpdate, `${path}.rollingUpdate`));
      break;
    default: {
      const value = {
        Type: str(strategy.type),
        RollingUpdate: isObject(rollingUpdate) ? { MaxUnavailable: intOrString(rollingUpdate.maxUnavailable), MaxSurge: intOrString(rollingUpdate.maxSurge) } : null,
      };
      errs.push(notSupportedJSON(path, value, ['Recreate', 'RollingUpdate']));
    }
  }
  return errs;
}

/** ValidateRollingUpdateDeployment. */
function validateRollingUpdate(ru: JsonObject, path: string): FieldError[] {
  const maxUnavailable = intOrString(ru.maxUnavailable);
  const maxSurge = intOrString(ru.maxSurge);
  const errs = [
    ...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`),
  ];
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
    errs.push(invalidJSON(`${path}.maxUnavailable`, maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  errs.push(...validateNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`));
  return errs;
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [...validateNonnegativeField(num(spec.replicas), 'spec.replicas')];
  errs.push(...validateRequiredSelector(spec.selector, 'spec.selector', 'empty selector is invalid for deployment', (s, p) => validateLabelSelector(s, {}, p)));
  const selector = selectorOf(spec.selector);
  if (!selector) errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), 'invalid label selector'));
  else errs.push(...validateTemplateForReplicaSet(templateOf(spec), selector, 'spec.template', old && templateOf(specOf(old))));
  errs.push(...validateStrategy(isObject(spec.strategy) ? spec.strategy : {}, 'spec.strategy'));
  errs.push(...validateNonnegativeField(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  if (!isNil(spec.revisionHistoryLimit)) errs.push(...validateNonnegativeField(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'));
  const rollback = rollbackRevision(obj);
  if (rollback !== undefined) errs.push(...validateNonnegativeField(rollback, 'spec.rollback.version'));
  if (!isNil(spec.progressDeadlineSeconds)) {
    const deadline = num(spec.progressDeadlineSeconds);
    errs.push(...validateNonnegativeField(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= num(spec.minReadySeconds)) errs.push(fieldErr.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** ValidateDeploymentStatusUpdate (object metadata is checked by the Store). */
export function validateDeploymentStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs = nonnegativeCounters(status, ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas', 'collisionCount']);
  const msg = 'cannot be greater than status.replicas';
  errs.push(...notGreaterThan(status, 'updatedReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'readyReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'));
  errs.push(...collisionCountDecremented(status, statusOf(old)));
  return errs;
}

type Deployment = KubeObject & { spec?: JsonObject; status?: JsonObject };

export const deployments: KindDefinition = {
  group: 'apps', version: 'v1', resource: 'deployments', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    defaults: defaultDeployment,
    normalize: normalizeDeployment,
    prepareForUpdate(obj, old) {
      // Annotations are copied to the ReplicaSets, so their changes move the generation too.
      const changed = !semanticEqual(obj.spec, old.spec) || !semanticEqual(obj.metadata.annotations, old.metadata.annotations);
      bumpGenerationIf(obj, old, changed);
    },
    validate: (obj) => validateDeploymentSpec(obj),
    validateUpdate: (obj, old) => [
      ...validateDeploymentSpec(obj, old),
      ...validateImmutableSelector(specOf(obj).selector, specOf(old).selector, 'spec.selector'),
    ],
    warningsOnCreate: (obj) => [...dnsLabelNameWarning(obj.metadata.name), ...podTemplateWarnings('spec.template', specOf(obj).template)],
    // Only a write that moved the generation changed the template worth warning about again.
    warningsOnUpdate: (obj, old) => (obj.metadata.generation !== old.metadata.generation ? podTemplateWarnings('spec.template', specOf(obj).template) : []),
  },
  subresourceStrategies: {
    status: {
      prepareForUpdate(obj, old) {
        keepAllButStatus(obj, old);
        obj.metadata.labels = old.metadata.labels;
        if (obj.metadata.labels === undefined) delete obj.metadata.labels;
        // spec.rollbackTo lives in this annotation in apps/v1, and a status write keeps the spec.
        keepAnnotation(obj, old, rollbackToAnnotation);
      },
      validateUpdate: validateDeploymentStatusUpdate,
    },
  },
  scale: workloadScale,
  table: {
    columns: [
      column('Ready', 'string', 'Number of the pod with ready state'),
      column('Up-to-date', 'string', 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.'),
      column('Available', 'string', 'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
      column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template\'s labels.', 1),
    ],
    cells(obj) {
      const d = obj as Deployment;
      const spec = specOf(d), status = statusOf(d);
      const [names, images] = containerCells(templateOf(spec));
      return [
        `${num(status.readyReplicas)}/${num(spec.replicas)}`, num(status.updatedReplicas), num(status.availableReplicas),
        ageOf(obj.metadata.creationTimestamp), names, images, labelSelectorConvertible(spec.selector) ? selectorString(spec.selector) : '<invalid>',
      ];
    },
  },
};
