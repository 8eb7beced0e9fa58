/**
 * policy/v1 PodDisruptionBudget: kube's strategy (generation moved by spec changes, status kept
 * apart), ValidatePodDisruptionBudget and its status update, and the printer. policy/v1 has
 * no defaults, and PDB names only have to be path segments (its validation never checks
 * object metadata, so the generic rule applies).
 */
import { fieldErr, isValidLabelValue, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsPathSegment } from '../../names.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { validatePositiveIntOrPercent, validateNotMoreThan100Percent } from '../../validation/intorpercent.js';
import { labelSelectorJSON } from '../apps/selector.js';
import { invalidJSON, isNil, isObject, num, specOf, statusOf, str } from '../apps/common.js';
import { validateMetaConditions } from '../admissionregistration/validation.js';

const unhealthyPodEvictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

/** An intstr.IntOrString field: its value as encoding/json writes it. */
const intOrString = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? v : 0);

/** The internal PodDisruptionBudgetSpec as encoding/json writes it (no json tags: Go field names). */
function goSpec(spec: Record<string, unknown>): unknown {
  return {
    MinAvailable: isNil(spec.minAvailable) ? null : intOrString(spec.minAvailable),
    Selector: labelSelectorJSON(spec.selector),
    MaxUnavailable: isNil(spec.maxUnavailable) ? null : intOrString(spec.maxUnavailable),
    UnhealthyPodEvictionPolicy: isNil(spec.unhealthyPodEvictionPolicy) ? null : spec.unhealthyPodEvictionPolicy,
  };
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(obj: KubeObject, allowInvalidLabelValueInSelector = false): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (!isNil(spec.minAvailable) && !isNil(spec.maxUnavailable)) errs.push(invalidJSON('spec', goSpec(spec), 'minAvailable and maxUnavailable cannot be both set'));
  for (const name of ['minAvailable', 'maxUnavailable']) {
    if (isNil(spec[name])) continue;
    const v = intOrString(spec[name]);
    errs.push(...validatePositiveIntOrPercent(v, `spec.${name}`), ...validateNotMoreThan100Percent(v, `spec.${name}`));
  }
  errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector }, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (!isNil(policy) && !unhealthyPodEvictionPolicies.includes(str(policy))) {
    errs.push(fieldErr.notSupported('spec.unhealthyPodEvictionPolicy', str(policy), unhealthyPodEvictionPolicies));
  }
  return errs;
}

function selectorHasInvalidLabelValue(sel: unknown): boolean {
  if (!isObject(sel)) return false;
  if (isObject(sel.matchLabels) && Object.values(sel.matchLabels).some((v) => isValidLabelValue(String(v)).length > 0)) return true;
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  return exprs.some((e) => isObject(e) && Array.isArray(e.values) && e.values.some((v) => isValidLabelValue(String(v)).length > 0));
}

/** ValidatePodDisruptionBudgetStatusUpdate for policy/v1. */
export function validatePodDisruptionBudgetStatus(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs = validateMetaConditions(Array.isArray(status.conditions) ? status.conditions : [], 'status.conditions');
  for (const name of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
    const v = num(status[name]);
    if (v < 0) errs.push(fieldErr.invalid(`status.${name}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** IntOrString.String(): the number or the string; `N/A` when unset. */
const boundCell = (v: unknown) => (isNil(v) ? 'N/A' : String(intOrString(v)));

export const podDisruptionBudgets: KindDefinition = {
  group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', generation: true,
  strategy: {
    nameValidator: nameIsPathSegment,
    validate: (obj) => validatePodDisruptionBudget(obj),
    // Selectors stored before label values were checked may keep their values.
    validateUpdate: (obj, old) => validatePodDisruptionBudget(obj, selectorHasInvalidLabelValue(specOf(old).selector)),
  },
  subresourceStrategies: { status: { validateUpdate: (obj) => validatePodDisruptionBudgetStatus(obj) } },
  table: {
    columns: [
      column('Min Available', 'string', 'The minimum number of pods that must be available.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageColumn,
    ],
    cells: (obj) => {
      const spec = specOf(obj);
      return [boundCell(spec.minAvailable), boundCell(spec.maxUnavailable), num(statusOf(obj).disruptionsAllowed), ageOf(obj.metadata.creationTimestamp)];
    },
  },
};
