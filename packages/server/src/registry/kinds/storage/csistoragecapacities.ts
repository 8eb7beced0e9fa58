/**
 * storage.k8s.io/v1 CSIStorageCapacities: ValidateCSIStorageCapacity(Update) (node topology
 * selector, class name, non-negative capacity; topology and class fixed once created) and the
 * printer (no Age column in kube's).
 */
import { fieldErr, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { column } from '../common.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { canonicalQuantity, parseQuantity } from '../../validation/quantity.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { str } from './common.js';
import { sameJSON } from '../core/persistentvolumes.js';
import { csiStorageCapacityWarnings } from './warnings.js';

type Capacity = KubeObject & { nodeTopology?: unknown; storageClassName?: unknown; capacity?: unknown; maximumVolumeSize?: unknown };

function validateCapacity(c: Capacity, allowInvalidLabelValue: boolean): FieldError[] {
  const errs = validateMetadataKubeFinalizers(c.metadata);
  errs.push(...validateLabelSelector(c.nodeTopology, { allowInvalidLabelValueInSelector: allowInvalidLabelValue }, 'nodeTopology'));
  const className = str(c.storageClassName);
  for (const m of isDNS1123Subdomain(className)) errs.push(fieldErr.invalid('storageClassName', className, m));
  if (c.capacity !== undefined && c.capacity !== null) {
    const q = parseQuantity(String(c.capacity));
    if (q && q.mantissa < 0n) errs.push(fieldErr.invalid('capacity', canonicalQuantity(q), 'must be greater than or equal to 0'));
  }
  return errs;
}

export const csiStorageCapacities: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities',
  strategy: {
    warningsOnCreate: csiStorageCapacityWarnings,
    warningsOnUpdate: (c) => csiStorageCapacityWarnings(c),
    nameValidator: nameIsDNSSubdomain,
    validate: (o) => validateCapacity(o as Capacity, false),
    validateUpdate(o, old) {
      const c = o as Capacity, prev = old as Capacity;
      const errs = validateCapacity(c, validateLabelSelector(prev.nodeTopology, {}, 'nodeTopology').length > 0);
      if (!sameJSON(c.nodeTopology ?? null, prev.nodeTopology ?? null)) errs.push(fieldErr.invalid('nodeTopology', c.nodeTopology ?? null, 'field is immutable'));
      if (str(c.storageClassName) !== str(prev.storageClassName)) errs.push(fieldErr.invalid('storageClassName', str(c.storageClassName), 'field is immutable'));
      return errs;
    },
  },
  table: {
    columns: [
      column('StorageClassName', 'string', 'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.'),
      column('Capacity', 'string', 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.'),
    ],
    cells(o) {
      const c = o as Capacity;
      const q = c.capacity === undefined || c.capacity === null ? undefined : parseQuantity(String(c.capacity));
      return [str(c.storageClassName), q ? canonicalQuantity(q) : c.capacity === undefined || c.capacity === null ? '<unset>' : String(c.capacity)];
    },
  },
};
