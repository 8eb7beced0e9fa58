/**
 * coordination.k8s.io/v1 Lease: kube's validation (durations, transitions, the coordinated
 * leader election strategy), create on PUT as leader election does it, and the printer.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageColumn, column, standardVerbs } from '../common.js';
import { ageOf } from '../../age.js';

type Lease = KubeObject & { spec?: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; strategy?: string; preferredHolder?: string } };

const validLeaseStrategies = ['OldestEmulationVersion'];

/** ValidateLeaseSpec. */
export function validateLeaseSpec(obj: KubeObject): FieldError[] {
  const spec = (obj as Lease).spec ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErr.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push(fieldErr.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (typeof spec.strategy === 'string') {
    // kube appends "strategy" to the strategy's own path, hence the doubled segment.
    const path = 'spec.strategy.strategy';
    if (!spec.strategy.includes('/')) {
      if (!validLeaseStrategies.includes(spec.strategy)) errs.push(fieldErr.notSupported(path, spec.strategy, validLeaseStrategies));
    } else {
      for (const msg of isQualifiedName(spec.strategy)) errs.push(fieldErr.invalid(path, spec.strategy, msg));
    }
  }
  if (spec.preferredHolder && !spec.strategy) errs.push(fieldErr.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

export const leases: ResourceDefinition = {
  group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', listKind: 'LeaseList', resource: 'leases', singularName: 'lease',
  namespaced: true, verbs: standardVerbs, storageVersionHash: 'gqkMMb/YqFM=',
  allowCreateOnUpdate: true,
  strategy: { nameValidator: nameIsDNSSubdomain, validate: validateLeaseSpec, validateUpdate: (o) => validateLeaseSpec(o) },
  table: {
    columns: [column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.'), ageColumn],
    cells: (obj) => [(obj as Lease).spec?.holderIdentity ?? '', ageOf(obj.metadata.creationTimestamp)],
  },
};
