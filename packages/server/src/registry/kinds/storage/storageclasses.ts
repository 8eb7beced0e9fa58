/**
 * storage.k8s.io/v1 StorageClasses: SetDefaults_StorageClass (reclaimPolicy Delete,
 * volumeBindingMode Immediate), ValidateStorageClass(Update) (provisioner, parameters,
 * reclaimPolicy fixed once created), and the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column, nameColumn } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { validateTopologySelectorTerm } from '../../validation/nodeselector.js';
import { duplicate } from '../../validation/goformat.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { isDefaultStorageClass } from '../../../admission/defaultstorageclass.js';
import { sameStringMap, str, validateParameters, validateProvisioner } from './common.js';
import { storageClassWarnings } from './warnings.js';

type StorageClass = KubeObject & { provisioner?: unknown; parameters?: unknown; reclaimPolicy?: unknown; volumeBindingMode?: unknown; allowVolumeExpansion?: unknown; allowedTopologies?: unknown };

const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

function validateAllowedTopologies(topologies: unknown, path: string): FieldError[] {
  const terms = Array.isArray(topologies) ? topologies : [];
  if (terms.length === 0) return [];
  const errs: FieldError[] = [];
  // kube's list starts with as many empty maps as there are terms, so an empty term is a duplicate.
  const seen: Array<Map<string, Set<string>>> = terms.map(() => new Map());
  terms.forEach((term, i) => {
    const { exprs, errs: termErrs } = validateTopologySelectorTerm(term, `${path}[${i}]`);
    errs.push(...termErrs);
    for (const other of seen) {
      const same = other.size === exprs.size && [...exprs].every(([k, vs]) => other.has(k) && other.get(k)!.size === vs.size && [...vs].every((v) => other.get(k)!.has(v)));
      if (same) errs.push(duplicate(`${path}[${i}].matchLabelExpressions`, ''));
    }
    seen.push(exprs);
  });
  return errs;
}

function validateStorageClass(sc: StorageClass): FieldError[] {
  const errs = validateMetadataKubeFinalizers(sc.metadata);
  errs.push(...validateProvisioner(str(sc.provisioner), 'provisioner'));
  errs.push(...validateParameters(sc.parameters, true, 'parameters'));
  const reclaim = str(sc.reclaimPolicy);
  if (reclaim.length > 0 && !reclaimPolicies.includes(reclaim)) errs.push(fieldErr.notSupported('reclaimPolicy', reclaim, reclaimPolicies));
  if (typeof sc.volumeBindingMode !== 'string') errs.push(fieldErr.required('volumeBindingMode'));
  else if (!bindingModes.includes(sc.volumeBindingMode)) errs.push(fieldErr.notSupported('volumeBindingMode', sc.volumeBindingMode, bindingModes));
  errs.push(...validateAllowedTopologies(sc.allowedTopologies, 'allowedTopologies'));
  return errs;
}

function validateStorageClassUpdate(sc: StorageClass, old: StorageClass): FieldError[] {
  const errs: FieldError[] = [];
  if (!sameStringMap(sc.parameters, old.parameters)) errs.push(fieldErr.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(sc.provisioner) !== str(old.provisioner)) errs.push(fieldErr.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(fieldErr.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if ((sc.volumeBindingMode ?? null) !== (old.volumeBindingMode ?? null)) errs.push(fieldErr.invalid('volumeBindingMode', sc.volumeBindingMode ?? null, 'field is immutable'));
  return errs;
}

export const storageClasses: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses',
  strategy: {
    warningsOnCreate: storageClassWarnings,
    warningsOnUpdate: (sc) => storageClassWarnings(sc),
    nameValidator: nameIsDNSSubdomain,
    defaults(o) {
      const sc = o as StorageClass;
      if (sc.reclaimPolicy === undefined || sc.reclaimPolicy === null) sc.reclaimPolicy = 'Delete';
      if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) sc.volumeBindingMode = 'Immediate';
    },
    validate: (o) => validateStorageClass(o as StorageClass),
    validateUpdate: (o, old) => [...validateStorageClass(o as StorageClass), ...validateStorageClassUpdate(o as StorageClass, old as StorageClass)],
  },
  table: {
    // kube's printer marks the default class in the Name cell.
    ownNameColumn: true,
    columns: [
      nameColumn,
      column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
      column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
      column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.'),
      column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      ageColumn,
    ],
    cells(o) {
      const sc = o as StorageClass;
      return [storageClassNameCell(o), str(sc.provisioner), str(sc.reclaimPolicy) || 'Delete', str(sc.volumeBindingMode) || 'Immediate', sc.allowVolumeExpansion === true, ageOf(o.metadata.creationTimestamp)];
    },
  },
};

/** The Name cell kube prints: ` (default)` after the default class's name. */
export function storageClassNameCell(o: KubeObject): string {
  return isDefaultStorageClass(o) ? `${o.metadata.name ?? ''} (default)` : o.metadata.name ?? '';
}
