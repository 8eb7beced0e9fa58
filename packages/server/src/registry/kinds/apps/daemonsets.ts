/**
 * apps/v1 DaemonSet: SetDefaults_DaemonSet, the registry strategy (status reset, the template
 * generation that apps/v1 carries in the `deprecated.daemonset.template.generation`
 * annotation: 1 on create, +1 with every template change, never the client's to set),
 * ValidateDaemonSet/ValidateDaemonSetStatusUpdate and the printer.
 */
import { fieldErr, newBadRequest, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateLabelSelector, type LabelSelectorValidationOptions } from '../../validation/labelselector.js';
import { labelSelectorIsEmpty, labelSelectorJSON, selectorHasInvalidLabelValue } from './selector.js';
import {
  intOrPercentValue, validateNonnegativeField, validateNotMoreThan100Percent, validatePositiveIntOrPercent,
} from '../../validation/intorpercent.js';
import { defaultPodTemplateSpec } from '../core/podspec/index.js';
import {
  bumpGenerationIf, child, collisionCountDecremented, containerCells, containersColumnDescription, formatLabelSelector,
  formatLabels, imagesColumnDescription, intOrString, invalidJSON, isNil, isObject, keepAllButStatus, keepAnnotation,
  nonnegativeCounters, notSupportedJSON, num, parseInt64, selectorOf, semanticEqual, specOf, statusOf, str, templateLabelsMismatch,
  templateOf, templatePodSpec, validateImmutableSelector, validateTemplate, workloadPodRules, type JsonObject,
} from './common.js';
import { podTemplateWarnings } from '../core/podspec/warnings.js';
import { dnsLabelNameWarning } from '../warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

export function defaultDaemonSet(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  const strategy = child(spec, 'updateStrategy');
  if (!str(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    if (isNil(ru.maxUnavailable)) ru.maxUnavailable = 1;
    if (isNil(ru.maxSurge)) ru.maxSurge = 0;
  }
  if (isNil(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  const template = child(spec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
}

/** spec.templateGeneration of the internal object, read from the annotation (0 without one). */
function templateGeneration(obj: KubeObject): number {
  const raw = obj.metadata.annotations?.[templateGenerationAnnotation];
  if (raw === undefined) return 0;
  const parsed = parseInt64(raw);
  return 'value' in parsed ? parsed.value : 0;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [templateGenerationAnnotation]: String(generation) };
}

/** kube's conversion refuses an annotation that is not an int64. */
function normalizeDaemonSet(obj: KubeObject): void {
  const raw = obj.metadata.annotations?.[templateGenerationAnnotation];
  if (raw === undefined) return;
  const parsed = parseInt64(raw);
  if ('error' in parsed) throw newBadRequest(`DaemonSet in version "v1" cannot be handled as a DaemonSet: ${parsed.error}`);
}

/** ValidateRollingUpdateDaemonSet: exactly one of maxSurge and maxUnavailable is non-zero. */
function validateRollingUpdate(ru: JsonObject, path: string): FieldError[] {
  const maxUnavailable = intOrString(ru.maxUnavailable);
  const maxSurge = intOrString(ru.maxSurge);
  const errs = [
    ...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`),
    ...validateNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`),
    ...validateNotMoreThan100Percent(maxSurge, `${path}.maxSurge`),
  ];
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  if (hasUnavailable && hasSurge) errs.push(invalidJSON(`${path}.maxSurge`, maxSurge, 'may not be set when maxUnavailable is non-zero'));
  else if (!hasUnavailable && !hasSurge) errs.push(fieldErr.required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return errs;
}

/** ValidateDaemonSetUpdateStrategy. Values of internal structs print with Go field names. */
function validateUpdateStrategy(strategy: JsonObject, path: string): FieldError[] {
  const ru = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      return isObject(ru) ? validateRollingUpdate(ru, `${path}.rollingUpdate`) : [fieldErr.required(`${path}.rollingUpdate`)];
    default: {
      const value = {
        Type: str(strategy.type),
        RollingUpdate: isObject(ru) ? { MaxUnavailable: intOrString(ru.maxUnavailable), MaxSurge: intOrString(ru.maxSurge) } : null,
      };
      return [notSupportedJSON(path, value, ['RollingUpdate', 'OnDelete'])];
    }
  }
}

/** ValidateDaemonSetSpec: unlike the other workloads, a missing selector is only a template mismatch. */
export function validateDaemonSetSpec(obj: KubeObject, old?: KubeObject, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  const spec = specOf(obj);
  const template = templateOf(spec);
  const errs = validateLabelSelector(spec.selector, opts, 'spec.selector');
  const selector = selectorOf(spec.selector);
  if (selector) errs.push(...templateLabelsMismatch(template, selector, 'spec.template'));
  if (isObject(spec.selector) && labelSelectorIsEmpty(spec.selector)) errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), 'empty selector is invalid for daemonset'));
  errs.push(...validateTemplate(template, old && templateOf(specOf(old)), 'spec.template'));
  errs.push(...workloadPodRules(template, 'spec.template', 'DaemonSet'));
  errs.push(...validateNonnegativeField(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  errs.push(...validateUpdateStrategy(isObject(spec.updateStrategy) ? spec.updateStrategy : {}, 'spec.updateStrategy'));
  if (!isNil(spec.revisionHistoryLimit)) errs.push(...validateNonnegativeField(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'));
  return errs;
}

/** validateDaemonSetStatus and the collision count rule (object metadata is checked by the Store). */
export function validateDaemonSetStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(obj);
  return [
    ...nonnegativeCounters(status, ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount']),
    ...collisionCountDecremented(status, statusOf(old)),
  ];
}

export const daemonSets: KindDefinition = {
  group: 'apps', version: 'v1', resource: 'daemonsets', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    defaults: defaultDaemonSet,
    normalize: normalizeDaemonSet,
    // apps/v1 has no templateGeneration field: kube's conversion always writes it as the annotation.
    versioned: (obj) => {
      const copy = { ...obj, metadata: { ...obj.metadata } };
      setTemplateGeneration(copy, templateGeneration(obj));
      return copy;
    },
    prepareForCreate(obj) {
      setTemplateGeneration(obj, Math.max(templateGeneration(obj), 1));
    },
    prepareForUpdate(obj, old) {
      const templateChanged = !semanticEqual(specOf(obj).template, specOf(old).template);
      const generation = templateGeneration(old);
      setTemplateGeneration(obj, templateChanged ? generation + 1 : generation);
      bumpGenerationIf(obj, old, templateChanged || !semanticEqual(obj.spec, old.spec));
    },
    validate: (obj) => validateDaemonSetSpec(obj),
    // kube validates the spec twice on update (ValidateDaemonSet, then ValidateDaemonSetUpdate);
    // its message lists each error once, its causes twice.
    validateUpdate: (obj, old) => {
      // A stored selector with a value kube no longer accepts does not block updates.
      const opts = { allowInvalidLabelValueInSelector: selectorHasInvalidLabelValue(specOf(old).selector) };
      return [
        ...validateDaemonSetSpec(obj, old, opts),
        ...validateDaemonSetSpec(obj, old, opts),
        ...validateImmutableSelector(specOf(obj).selector, specOf(old).selector, 'spec.selector'),
      ];
    },
    warningsOnCreate: (obj) => [...dnsLabelNameWarning(obj.metadata.name), ...podTemplateWarnings('spec.template', specOf(obj).template)],
    // kube re-warns when the template generation moved, i.e. the template changed.
    warningsOnUpdate: (obj, old) => (templateGeneration(obj) !== templateGeneration(old) ? podTemplateWarnings('spec.template', specOf(obj).template) : []),
  },
  subresourceStrategies: {
    status: {
      prepareForUpdate(obj, old) {
        keepAllButStatus(obj, old);
        // The template generation is part of the spec a status write keeps.
        keepAnnotation(obj, old, templateGenerationAnnotation);
      },
      validateUpdate: validateDaemonSetStatusUpdate,
    },
  },
  table: {
    columns: [
      column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
      column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
      column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
      column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
      column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node\'s labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
      column('Selector', 'string', 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    cells(obj) {
      const spec = specOf(obj), status = statusOf(obj);
      const template = templateOf(spec);
      const [names, images] = containerCells(template);
      return [
        num(status.desiredNumberScheduled), num(status.currentNumberScheduled), num(status.numberReady),
        num(status.updatedNumberScheduled), num(status.numberAvailable), formatLabels(templatePodSpec(template).nodeSelector),
        ageOf(obj.metadata.creationTimestamp), names, images, formatLabelSelector(spec.selector),
      ];
    },
  },
};
