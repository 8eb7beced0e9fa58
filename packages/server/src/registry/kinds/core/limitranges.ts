/**
 * core/v1 LimitRanges as kube 1.35 serves them: SetDefaults_LimitRangeItem (a container
 * item's default limit comes from max, its default request from the default limit or min) and
 * ValidateLimitRange, whose messages print the Quantity values with Go's %#v.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { canonicalQuantity, compareQuantities, goQuantityRepr, parseQuantity, scaledValue, type Quantity } from '../../validation/quantity.js';
import { duplicate, invalidGo } from '../../validation/goformat.js';
import { isOvercommitAllowed, validateContainerResourceName, validateResourceName } from './podspec/resources.js';

type Obj = Record<string, unknown>;
type LimitRange = KubeObject & { spec?: { limits?: unknown } };
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/** SetDefaults_LimitRangeItem. */
export function defaultLimitRangeItem(item: Obj): void {
  if (item.type !== 'Container') return;
  const def = isObject(item.default) ? item.default : {};
  const defReq = isObject(item.defaultRequest) ? item.defaultRequest : {};
  for (const [k, v] of Object.entries(obj(item.max))) if (!(k in def)) def[k] = v;
  for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
  for (const [k, v] of Object.entries(obj(item.min))) if (!(k in defReq)) defReq[k] = v;
  // Go's encoder leaves the empty maps out (omitempty).
  if (Object.keys(def).length > 0) item.default = def;
  if (Object.keys(defReq).length > 0) item.defaultRequest = defReq;
}

const standardLimitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];

function validateLimitTypeName(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fieldErr.invalid(path, type, m));
  if (errs.length > 0) return errs;
  if (!type.includes('/') && !standardLimitTypes.includes(type)) errs.push(fieldErr.invalid(path, type, 'must be a standard limit type or fully qualified'));
  return errs;
}

function validateLimitResourceName(type: string, name: string, path: string): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);
}

/** Go's %f. */
const goFloat = (n: number) => n.toFixed(6);

export function validateLimitRange(lr: LimitRange): FieldError[] {
  const errs: FieldError[] = [];
  const seenTypes = new Set<string>();
  const limits = Array.isArray(lr.spec?.limits) ? lr.spec!.limits as unknown[] : [];
  limits.forEach((raw, i) => {
    const item = obj(raw);
    const p = `spec.limits[${i}]`;
    const type = String(item.type ?? '');
    errs.push(...validateLimitTypeName(type, `${p}.type`));
    if (seenTypes.has(type)) errs.push(duplicate(`${p}.type`, type));
    seenTypes.add(type);

    const keys: string[] = [];
    const collect = (field: string): Map<string, Quantity> => {
      const out = new Map<string, Quantity>();
      for (const [k, v] of Object.entries(obj(item[field]))) {
        errs.push(...validateLimitResourceName(type, k, `${p}.${field}[${k}]`));
        if (!keys.includes(k)) keys.push(k);
        const q = parseQuantity(String(v));
        if (q) out.set(k, q);
      }
      return out;
    };
    const max = collect('max');
    const min = collect('min');
    let defaults = new Map<string, Quantity>(), defaultRequests = new Map<string, Quantity>();
    if (type === 'Pod') {
      if (Object.keys(obj(item.default)).length > 0) errs.push(fieldErr.forbidden(`${p}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(obj(item.defaultRequest)).length > 0) errs.push(fieldErr.forbidden(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      defaults = collect('default');
      defaultRequests = collect('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !('storage' in obj(item.min)) && !('storage' in obj(item.max))) {
      errs.push(fieldErr.required(`${p}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    const ratios = collect('maxLimitRequestRatio');

    for (const k of keys) {
      const mn = min.get(k), mx = max.get(k), df = defaults.get(k), dr = defaultRequests.get(k), ratio = ratios.get(k);
      const s = canonicalQuantity;
      if (mn && mx && compareQuantities(mn, mx) > 0) errs.push(invalidGo(`${p}.min[${k}]`, goQuantityRepr(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
      if (dr && mn && compareQuantities(mn, dr) > 0) errs.push(invalidGo(`${p}.defaultRequest[${k}]`, goQuantityRepr(dr), `min value ${s(mn)} is greater than default request value ${s(dr)}`));
      if (dr && mx && compareQuantities(dr, mx) > 0) errs.push(invalidGo(`${p}.defaultRequest[${k}]`, goQuantityRepr(dr), `default request value ${s(dr)} is greater than max value ${s(mx)}`));
      if (dr && df && compareQuantities(dr, df) > 0) errs.push(invalidGo(`${p}.defaultRequest[${k}]`, goQuantityRepr(dr), `default request value ${s(dr)} is greater than default limit value ${s(df)}`));
      if (df && mn && compareQuantities(mn, df) > 0) errs.push(invalidGo(`${p}.default[${k}]`, goQuantityRepr(mn), `min value ${s(mn)} is greater than default value ${s(df)}`));
      if (df && mx && compareQuantities(df, mx) > 0) errs.push(invalidGo(`${p}.default[${k}]`, goQuantityRepr(mx), `default value ${s(df)} is greater than max value ${s(mx)}`));
      if (ratio && compareQuantities(ratio, parseQuantity('1')!) < 0) errs.push(invalidGo(`${p}.maxLimitRequestRatio[${k}]`, goQuantityRepr(ratio), `ratio ${s(ratio)} is less than 1`));
      if (ratio && mn && mx) {
        const maxMilli = 9223372036854775807n / 1000n;
        let ratioValue = Number(scaledValue(ratio, 0));
        let minValue = scaledValue(mn, 0), maxValue = scaledValue(mx, 0);
        if (scaledValue(ratio, 0) < maxMilli && minValue < maxMilli && maxValue < maxMilli) {
          ratioValue = Number(scaledValue(ratio, -3)) / 1000;
          minValue = scaledValue(mn, -3);
          maxValue = scaledValue(mx, -3);
        }
        const limit = Number(maxValue) / Number(minValue);
        if (ratioValue > limit) errs.push(invalidGo(`${p}.maxLimitRequestRatio[${k}]`, goQuantityRepr(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
      }
      if (!isOvercommitAllowed(k) && df && dr && compareQuantities(df, dr) !== 0) {
        errs.push(invalidGo(`${p}.defaultRequest[${k}]`, goQuantityRepr(dr), `default value ${s(df)} must equal to defaultRequest value ${s(dr)} in ${k}`));
      }
    }
  });
  return errs;
}

export const limitRanges: KindDefinition = {
  group: '', version: 'v1', resource: 'limitranges',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    defaults(o) {
      const limits = (o as LimitRange).spec?.limits;
      if (Array.isArray(limits)) for (const item of limits) if (isObject(item)) defaultLimitRangeItem(item);
    },
    validate: (o) => validateLimitRange(o as LimitRange),
    validateUpdate: (o) => validateLimitRange(o as LimitRange),
  },
  // kube's printer: Name and Created At, as the default table.
};
