/**
 * resource.k8s.io/v1 ResourceSlice: generation, device taint times, the spec.nodeName and
 * spec.driver field selectors, structural validation of its node selection and pool, printer.
 */
import { fieldErr, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { arr, isObj, obj, str } from '../networking/util.js';
import { group } from './resourceclaims.js';

function nowSeconds(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** SetDefaults_DeviceTaint: a taint without timeAdded was added now. */
function defaultSlice(o: KubeObject): void {
  for (const d of arr(obj(o.spec).devices)) {
    for (const t of arr(obj(d).taints)) if (isObj(t) && !t.timeAdded) t.timeAdded = nowSeconds();
  }
}

function validateSlice(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const driver = str(spec.driver);
  if (driver === '') errs.push(fieldErr.required('spec.driver'));
  else for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(fieldErr.invalid('spec.driver', driver, msg));
  const pool = obj(spec.pool);
  if (str(pool.name) === '') errs.push(fieldErr.required('spec.pool.name'));
  if (typeof pool.resourceSliceCount === 'number' && pool.resourceSliceCount <= 0) errs.push(fieldErr.invalid('spec.pool.resourceSliceCount', pool.resourceSliceCount, 'must be greater than zero'));
  if (typeof pool.generation === 'number' && pool.generation < 0) errs.push(fieldErr.invalid('spec.pool.generation', pool.generation, 'must be greater than or equal to zero'));
  const fields: Array<[string, boolean]> = [
    ['nodeName', typeof spec.nodeName === 'string' && spec.nodeName !== ''], ['nodeSelector', isObj(spec.nodeSelector)],
    ['allNodes', spec.allNodes === true], ['perDeviceNodeSelection', spec.perDeviceNodeSelection === true],
  ];
  const set = fields.filter(([, on]) => on).map(([name]) => `\`${name}\``);
  const union = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
  if (set.length === 0) errs.push(fieldErr.required('spec', union));
  else if (set.length > 1) errs.push(fieldErr.invalid('spec', `{${set.join(', ')}}`, `${union}, but multiple fields are set`));
  return errs;
}

export const resourceSlices: KindDefinition = {
  group, version: 'v1', resource: 'resourceslices',
  generation: true,
  strategy: {
    defaults: defaultSlice,
    validate: validateSlice,
    validateUpdate(o, old) {
      const errs = validateSlice(o);
      const before = obj(old.spec), now = obj(o.spec);
      for (const key of ['driver', 'nodeName'] as const) {
        if ((now[key] ?? '') !== (before[key] ?? '')) errs.push(fieldErr.invalid(`spec.${key}`, now[key] ?? '', 'field is immutable'));
      }
      if (str(obj(now.pool).name) !== str(obj(before.pool).name)) errs.push(fieldErr.invalid('spec.pool.name', str(obj(now.pool).name), 'field is immutable'));
      return errs;
    },
  },
  selectableFields: {
    'spec.nodeName': (o) => str(obj(o.spec).nodeName),
    'spec.driver': (o) => str(obj(o.spec).driver),
  },
  table: {
    columns: [
      column('Node', 'string', 'NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.'),
      column('Driver', 'string', 'Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.'),
      column('Pool', 'string', 'Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      return [str(spec.nodeName), str(spec.driver), str(obj(spec.pool).name), ageOf(o.metadata.creationTimestamp)];
    },
  },
};
