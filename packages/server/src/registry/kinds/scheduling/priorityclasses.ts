/**
 * scheduling.k8s.io/v1 PriorityClasses: SetDefaults_PriorityClass (preemptionPolicy
 * PreemptLowerPriority), generation 1 on create, ValidatePriorityClass(Update) (the system-
 * prefix rule, the user-definable maximum, immutable value and preemption policy), the printer.
 */
import { fieldErr, newForbidden, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';

type PriorityClass = KubeObject & { value?: unknown; globalDefault?: unknown; preemptionPolicy?: unknown; description?: unknown };

export const highestUserDefinablePriority = 1000000000;
const systemPriorityClasses: Array<[string, number]> = [['system-node-critical', 2000001000], ['system-cluster-critical', 2000000000]];
const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

/** scheduling.IsKnownSystemPriorityClass: undefined when known, else why not. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = systemPriorityClasses.find(([n]) => n === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known[1] !== value) return `value of ${name} PriorityClass must be ${known[1]}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs = validateMetadataKubeFinalizers(pc.metadata);
  const name = pc.metadata.name ?? '';
  const value = typeof pc.value === 'number' ? pc.value : 0;
  if (name.startsWith('system-')) {
    const why = systemClassError(name, value, pc.globalDefault === true);
    if (why) errs.push(fieldErr.forbidden('metadata.name', `priority class names with 'system-' prefix are reserved for system use only. error: ${why}`));
  } else if (value > highestUserDefinablePriority) {
    errs.push(fieldErr.forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  if (typeof pc.preemptionPolicy === 'string') {
    if (pc.preemptionPolicy === '') errs.push(fieldErr.required('preemptionPolicy'));
    else if (!preemptionPolicies.includes(pc.preemptionPolicy)) errs.push(fieldErr.notSupported('preemptionPolicy', pc.preemptionPolicy, preemptionPolicies));
  }
  return errs;
}

export const priorityClasses: KindDefinition = {
  group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses',
  generation: true,
  // The priorityclass REST.Delete: kube-apiserver creates these at start and keeps them.
  refuseDelete: (name) => (systemPriorityClasses.some(([n]) => n === name)
    ? newForbidden({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, name, 'this is a system priority class and cannot be deleted')
    : undefined),
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    defaults(o) {
      const pc = o as PriorityClass;
      if (pc.preemptionPolicy === undefined || pc.preemptionPolicy === null) pc.preemptionPolicy = 'PreemptLowerPriority';
    },
    validate: (o) => validatePriorityClass(o as PriorityClass),
    validateUpdate(o, old) {
      const pc = o as PriorityClass, prev = old as PriorityClass;
      const errs = validateMetadataKubeFinalizers(pc.metadata);
      if ((pc.value ?? 0) !== (prev.value ?? 0)) errs.push(fieldErr.forbidden('value', 'may not be changed in an update.'));
      if ((pc.preemptionPolicy ?? null) !== (prev.preemptionPolicy ?? null)) errs.push(fieldErr.invalid('preemptionPolicy', pc.preemptionPolicy ?? null, 'field is immutable'));
      return errs;
    },
  },
  table: {
    columns: [
      column('Value', 'integer', 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
      column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.'),
      ageColumn,
      column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
    ],
    cells(o) {
      const pc = o as PriorityClass;
      return [typeof pc.value === 'number' ? pc.value : 0, pc.globalDefault === true, ageOf(o.metadata.creationTimestamp), typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : ''];
    },
  },
};
