/**
 * apps/v1 StatefulSet: SetDefaults_StatefulSet as 1.35 runs it (maxUnavailable defaulted now
 * that MaxUnavailableStatefulSet is beta, the PVC retention policy since StatefulSetAutoDeletePVC
 * went GA), the claim templates' PVC defaults and the apiVersion/kind kube's conversion writes
 * into them, the registry strategy (only replicas, ordinals, template, updateStrategy,
 * revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and minReadySeconds may change),
 * ValidateStatefulSet with the pod template validated over the claim templates' volumes, the
 * /scale view and the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { nameIsDNSLabel } from '../../names.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { labelSelectorIsEmpty, labelSelectorJSON } from './selector.js';
import {
  intOrPercentValue, validateNonnegativeField, validateNotMoreThan100Percent, validatePositiveIntOrPercent,
} from '../../validation/intorpercent.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec, validatePodTemplateSpecUpdate } from '../core/podspec/index.js';
import { defaultPersistentVolumeClaimSpec, validatePersistentVolumeClaimSpec } from '../core/persistentvolumeclaims.js';
import {
  bumpGenerationIf, child, collisionCountDecremented, containerCells, containersColumnDescription, imagesColumnDescription,
  intOrString, invalidJSON, isNil, isObject, nonnegativeCounters, notGreaterThan, num, selectorOf, semanticEqual, specOf,
  statusOf, str, templateLabelsMismatch, templateOf, templatePodSpec, workloadPodRules, workloadScale, type JsonObject,
} from './common.js';
import { podTemplateWarnings } from '../core/podspec/warnings.js';
import { pvcSpecWarnings } from '../warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

const retentionPolicies = ['Retain', 'Delete'];

/** SetDefaults_PersistentVolumeClaim and SetDefaults_PersistentVolumeClaimSpec, as the generated defaulter walks claim templates. */
function defaultClaimTemplate(pvc: JsonObject): void {
  defaultPersistentVolumeClaimSpec(child(pvc, 'spec'));
  const status = child(pvc, 'status');
  if (!str(status.phase)) status.phase = 'Pending';
}

export function defaultStatefulSet(obj: KubeObject): void {
  const spec = child(obj as JsonObject, 'spec');
  if (!str(spec.podManagementPolicy)) spec.podManagementPolicy = 'OrderedReady';
  const strategy = child(spec, 'updateStrategy');
  if (!str(strategy.type)) {
    strategy.type = 'RollingUpdate';
    if (isNil(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) {
    const ru = strategy.rollingUpdate;
    if (isNil(ru.partition)) ru.partition = 0;
    if (isNil(ru.maxUnavailable)) ru.maxUnavailable = 1;
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (!str(retention.whenDeleted)) retention.whenDeleted = 'Retain';
  if (!str(retention.whenScaled)) retention.whenScaled = 'Retain';
  if (isNil(spec.replicas)) spec.replicas = 1;
  if (isNil(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  const template = child(spec, 'template');
  child(template, 'spec');
  defaultPodTemplateSpec(template);
  if (Array.isArray(spec.volumeClaimTemplates)) for (const pvc of spec.volumeClaimTemplates) if (isObject(pvc)) defaultClaimTemplate(pvc);
}

/** kube's apps/v1 conversion writes apiVersion and kind into every claim template (issue 87583). */
function normalizeStatefulSet(obj: KubeObject): void {
  const templates = specOf(obj).volumeClaimTemplates;
  if (!Array.isArray(templates)) return;
  templates.forEach((pvc, i) => {
    if (!isObject(pvc)) return;
    const { apiVersion: _a, kind: _k, ...rest } = pvc;
    templates[i] = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...rest };
  });
}

/** RollingUpdateStatefulSetStrategy as encoding/json prints the internal struct. */
function rollingUpdateValue(ru: unknown): unknown {
  if (!isObject(ru)) return null;
  return { Partition: num(ru.partition), MaxUnavailable: isNil(ru.maxUnavailable) ? null : ru.maxUnavailable };
}

function validateUpdateStrategy(strategy: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(strategy.type);
  const ru = strategy.rollingUpdate;
  switch (type) {
    case '':
      errs.push(fieldErr.required(path));
      break;
    case 'OnDelete':
      if (!isNil(ru)) errs.push(invalidJSON(`${path}.rollingUpdate`, rollingUpdateValue(ru), "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (isObject(ru)) errs.push(...validateRollingUpdate(ru, `${path}.rollingUpdate`));
      break;
    default:
      errs.push(invalidJSON(path, { Type: type, RollingUpdate: rollingUpdateValue(ru) }, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  return errs;
}

/** validateRollingUpdateStatefulSet. */
function validateRollingUpdate(ru: JsonObject, path: string): FieldError[] {
  const errs = validateNonnegativeField(num(ru.partition), `${path}.partition`);
  if (!isNil(ru.maxUnavailable)) {
    const maxUnavailable = intOrString(ru.maxUnavailable);
    errs.push(...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`));
    if (intOrPercentValue(maxUnavailable) === 0) errs.push(invalidJSON(`${path}.maxUnavailable`, maxUnavailable, 'cannot be 0'));
    errs.push(...validateNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`));
  }
  return errs;
}

function validateRetentionPolicy(policy: unknown, path: string): FieldError[] {
  if (!isObject(policy)) return [];
  const errs: FieldError[] = [];
  for (const key of ['whenDeleted', 'whenScaled']) {
    const v = str(policy[key]);
    if (!retentionPolicies.includes(v)) errs.push(fieldErr.notSupported(`${path}.${key}`, v, retentionPolicies));
  }
  return errs;
}

/**
 * The pod template as kube validates it: every claim template is a volume of the pod (a
 * persistentVolumeClaim source named after it), ahead of the template's own volumes, whose
 * same-named entries it replaces.
 */
function templateWithClaimVolumes(spec: JsonObject): JsonObject {
  const template = templateOf(spec);
  const claims = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.filter(isObject) : [];
  if (claims.length === 0) return template;
  const volumes: JsonObject[] = [];
  const claimed = new Set<string>();
  for (const pvc of claims) {
    const name = str(isObject(pvc.metadata) ? pvc.metadata.name : undefined);
    if (claimed.has(name)) continue;
    claimed.add(name);
    volumes.push({ name, persistentVolumeClaim: { claimName: name } });
  }
  const own = templatePodSpec(template).volumes;
  for (const v of Array.isArray(own) ? own : []) if (!(isObject(v) && claimed.has(str(v.name)))) volumes.push(v as JsonObject);
  return { ...template, spec: { ...templatePodSpec(template), volumes } };
}

/** ValidateVolumeClaimTemplates (1.34+): each claim template's spec as a PersistentVolumeClaim's. */
function validateClaimTemplates(spec: JsonObject): FieldError[] {
  const templates = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  return templates.flatMap((pvc, i) => validatePersistentVolumeClaimSpec(isObject(pvc) && isObject(pvc.spec) ? pvc.spec : {}, `spec.volumeClaimTemplates[${i}].spec`));
}

/**
 * ValidateStatefulSetSpec. kube added the claim-template and pod-template checks in 1.34 and
 * ratchets them: an update of a set whose stored templates already fail them is not refused
 * for it.
 */
export function validateStatefulSetSpec(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = old ? specOf(old) : undefined;
  const errs: FieldError[] = [];
  const policy = str(spec.podManagementPolicy);
  if (policy === '') errs.push(fieldErr.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(fieldErr.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  errs.push(...validateUpdateStrategy(isObject(spec.updateStrategy) ? spec.updateStrategy : {}, 'spec.updateStrategy'));
  errs.push(...validateRetentionPolicy(spec.persistentVolumeClaimRetentionPolicy, 'spec.persistentVolumeClaimRetentionPolicy'));
  if (!oldSpec || validateClaimTemplates(oldSpec).length === 0) errs.push(...validateClaimTemplates(spec));
  errs.push(...validateNonnegativeField(num(spec.replicas), 'spec.replicas'));
  errs.push(...validateNonnegativeField(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  if (isObject(spec.ordinals)) errs.push(...validateNonnegativeField(num(spec.ordinals.start), 'spec.ordinals.start'));
  if (isNil(spec.selector)) {
    errs.push(fieldErr.required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(spec.selector, {}, 'spec.selector'));
    if (labelSelectorIsEmpty(spec.selector)) errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), 'empty selector is invalid for statefulset'));
  }
  const selector = selectorOf(spec.selector);
  if (!selector) {
    errs.push(invalidJSON('spec.selector', labelSelectorJSON(spec.selector), ''));
  } else {
    const template = templateWithClaimVolumes(spec);
    if (!selector.empty) errs.push(...templateLabelsMismatch(template, selector, 'spec.template'));
    if (!oldSpec) {
      errs.push(...validatePodTemplateSpec(template, 'spec.template'));
    } else {
      const oldTemplate = templateWithClaimVolumes(oldSpec);
      if (validatePodTemplateSpec(oldTemplate, 'spec.template').length === 0) errs.push(...validatePodTemplateSpecUpdate(template, oldTemplate, 'spec.template'));
    }
  }
  errs.push(...workloadPodRules(templateOf(spec), 'spec.template', 'StatefulSet'));
  return errs;
}

/** Fields an update may change; everything else in the spec is fixed at creation. */
const mutableSpecFields = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStatefulSetSpec(obj, old);
  const fixed = (o: KubeObject) => {
    const rest: JsonObject = { ...specOf(o) };
    for (const f of mutableSpecFields) delete rest[f];
    return rest;
  };
  if (!semanticEqual(fixed(obj), fixed(old))) {
    errs.push(fieldErr.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

/** ValidateStatefulSetStatusUpdate (object metadata is checked by the Store). */
export function validateStatefulSetStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs = nonnegativeCounters(status, ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']);
  const msg = 'cannot be greater than status.replicas';
  errs.push(...notGreaterThan(status, 'readyReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'currentReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'updatedReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'replicas', msg));
  errs.push(...notGreaterThan(status, 'availableReplicas', 'readyReplicas', 'cannot be greater than status.readyReplicas'));
  errs.push(...collisionCountDecremented(status, statusOf(old)));
  return errs;
}

/**
 * statefulSetStrategy.WarningsOnCreate/Update: the pod template (on update only when the
 * generation moved), the claim templates and a negative history limit. kube names the claim
 * templates' path differently on update (`…[0].Spec.resources…`), and so do we.
 */
function statefulSetWarnings(obj: KubeObject, when: 'create' | 'update' | 'unchanged'): string[] {
  const spec = specOf(obj);
  const warnings = when === 'unchanged' ? [] : podTemplateWarnings('spec.template', spec.template);
  (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []).forEach((pvc, i) => {
    const path = when === 'create' ? `spec.volumeClaimTemplates[${i}]` : `spec.volumeClaimTemplates[${i}].Spec`;
    warnings.push(...pvcSpecWarnings(path, isObject(pvc) ? pvc.spec : undefined));
  });
  if (typeof spec.revisionHistoryLimit === 'number' && spec.revisionHistoryLimit < 0) {
    warnings.push('spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended');
  }
  return warnings;
}

export const statefulSets: KindDefinition = {
  group: 'apps', version: 'v1', resource: 'statefulsets', generation: true,
  admission: [podSecurityControllerAdmission],
  strategy: {
    // Pods take the set's name as their hostname, so kube has required a DNS label since 1.27.
    nameValidator: nameIsDNSLabel,
    defaults: defaultStatefulSet,
    normalize: normalizeStatefulSet,
    prepareForUpdate: (obj, old) => bumpGenerationIf(obj, old, !semanticEqual(obj.spec, old.spec)),
    validate: (obj) => validateStatefulSetSpec(obj),
    validateUpdate: validateStatefulSetUpdate,
    warningsOnCreate: (obj) => statefulSetWarnings(obj, 'create'),
    warningsOnUpdate: (obj, old) => statefulSetWarnings(obj, obj.metadata.generation !== old.metadata.generation ? 'update' : 'unchanged'),
  },
  subresourceStrategies: { status: { validateUpdate: validateStatefulSetStatusUpdate } },
  scale: workloadScale,
  table: {
    columns: [
      column('Ready', 'string', 'Number of the pod with ready state'),
      ageColumn,
      column('Containers', 'string', containersColumnDescription, 1),
      column('Images', 'string', imagesColumnDescription, 1),
    ],
    cells(obj) {
      const spec = specOf(obj), status = statusOf(obj);
      const [names, images] = containerCells(templateOf(spec));
      return [`${num(status.readyReplicas)}/${num(spec.replicas)}`, ageOf(obj.metadata.creationTimestamp), names, images];
    },
  },
};
