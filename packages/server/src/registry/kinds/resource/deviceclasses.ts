/** resource.k8s.io/v1 DeviceClass: generation tracked on spec changes, selectors required to carry CEL, printer. */
import type { KindDefinition } from '../../types.js';
import { ageColumn } from '../common.js';
import { ageOf } from '../../age.js';
import { fieldErr, type FieldError } from '@windlass/machinery';
import { arr, isObj, obj, str } from '../networking/util.js';
import { group } from './resourceclaims.js';

function validateDeviceClass(spec: unknown): FieldError[] {
  const errs: FieldError[] = [];
  arr(obj(spec).selectors).forEach((raw, i) => {
    const sel = obj(raw);
    if (!isObj(sel.cel)) errs.push(fieldErr.required(`spec.selectors[${i}].cel`));
    else if (str(sel.cel.expression).trim() === '') errs.push(fieldErr.required(`spec.selectors[${i}].cel.expression`));
  });
  return errs;
}

export const deviceClasses: KindDefinition = {
  group, version: 'v1', resource: 'deviceclasses',
  generation: true,
  strategy: { validate: (o) => validateDeviceClass(o.spec), validateUpdate: (o) => validateDeviceClass(o.spec) },
  table: { columns: [ageColumn], cells: (o) => [ageOf(o.metadata.creationTimestamp)] },
};
