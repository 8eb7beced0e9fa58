/**
 * storage.k8s.io/v1 VolumeAttributesClasses (GA in 1.34): a driver name and at least one
 * parameter, both fixed once created; the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { sameStringMap, str, validateParameters, validateProvisioner } from './common.js';

type VolumeAttributesClass = KubeObject & { driverName?: unknown; parameters?: unknown };

function validateClass(c: VolumeAttributesClass): FieldError[] {
  return [...validateMetadataKubeFinalizers(c.metadata), ...validateProvisioner(str(c.driverName), 'driverName'), ...validateParameters(c.parameters, false, 'parameters')];
}

export const volumeAttributesClasses: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'volumeattributesclasses',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    validate: (o) => validateClass(o as VolumeAttributesClass),
    validateUpdate(o, old) {
      const c = o as VolumeAttributesClass, prev = old as VolumeAttributesClass;
      const errs = validateClass(c);
      if (str(c.driverName) !== str(prev.driverName)) errs.push(fieldErr.forbidden('driverName', 'updates to driverName are forbidden.'));
      if (!sameStringMap(c.parameters, prev.parameters)) errs.push(fieldErr.forbidden('parameters', 'updates to parameters are forbidden.'));
      return errs;
    },
  },
  table: {
    columns: [column('DriverName', 'string', 'Name of the CSI driver This field is immutable.'), ageColumn],
    cells: (o) => [str((o as VolumeAttributesClass).driverName), ageOf(o.metadata.creationTimestamp)],
  },
};
