/**
 * resource.k8s.io/v1 ResourceClaim and ResourceClaimTemplate: request defaults, the structural
 * validation of their specs (immutable once created), the claim's status subresource, printers.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { arr, isObj, obj } from '../networking/util.js';
import { defaultClaimSpec, validateClaimSpec } from './requests.js';

export const group = 'resource.k8s.io';

function immutable(path: string, now: unknown, before: unknown): FieldError[] {
  return JSON.stringify(now ?? null) === JSON.stringify(before ?? null) ? [] : [fieldErr.invalid(path, now ?? null, 'field is immutable')];
}

/** resourceClaimState: deleted, pending, allocated, reserved. */
function claimState(o: KubeObject): string {
  const states: string[] = [];
  const status = obj(o.status);
  if (o.metadata.deletionTimestamp) states.push('deleted');
  if (!isObj(status.allocation)) {
    if (!o.metadata.deletionTimestamp) states.push('pending');
  } else {
    states.push('allocated');
    if (arr(status.reservedFor).length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaims: KindDefinition = {
  group, version: 'v1', resource: 'resourceclaims',
  strategy: {
    defaults: (o) => defaultClaimSpec(o.spec),
    validate: (o) => validateClaimSpec(o.spec, 'spec'),
    validateUpdate: (o, old) => [...immutable('spec', o.spec, old.spec), ...validateClaimSpec(o.spec, 'spec')],
  },
  table: {
    columns: [column('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'), ageColumn],
    cells: (o) => [claimState(o), ageOf(o.metadata.creationTimestamp)],
  },
};

export const resourceClaimTemplates: KindDefinition = {
  group, version: 'v1', resource: 'resourceclaimtemplates',
  strategy: {
    defaults: (o) => defaultClaimSpec(obj(o.spec).spec),
    validate: (o) => validateClaimSpec(obj(o.spec).spec, 'spec.spec'),
    validateUpdate: (o, old) => [...immutable('spec', o.spec, old.spec), ...validateClaimSpec(obj(o.spec).spec, 'spec.spec')],
  },
  table: { columns: [ageColumn], cells: (o) => [ageOf(o.metadata.creationTimestamp)] },
};
