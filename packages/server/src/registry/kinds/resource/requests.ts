/**
 * resource.k8s.io/v1 device requests as kube defaults and checks them: SetDefaults_ExactDeviceRequest
 * and SetDefaults_DeviceSubRequest, and the structural rules every claim spec must meet.
 * CEL selectors are required but not compiled here.
 */
import { fieldErr, isDNS1123Label, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import { arr, isObj, obj, str, type Json } from '../networking/util.js';

function defaultCount(req: Json): void {
  if (!str(req.allocationMode)) req.allocationMode = 'ExactCount';
  if (req.allocationMode === 'ExactCount' && !req.count) req.count = 1;
}

/** Defaults of a ResourceClaimSpec's requests (exactly and firstAvailable alternatives). */
export function defaultClaimSpec(spec: unknown): void {
  for (const raw of arr(obj(obj(spec).devices).requests)) {
    if (!isObj(raw)) continue;
    if (isObj(raw.exactly)) defaultCount(raw.exactly);
    for (const sub of arr(raw.firstAvailable)) if (isObj(sub)) defaultCount(sub);
  }
}

const allocationModes = ['All', 'ExactCount'];

function validateSelectors(selectors: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  selectors.forEach((raw, i) => {
    const sel = obj(raw);
    if (!isObj(sel.cel)) errs.push(fieldErr.required(`${path}[${i}].cel`));
    else if (str(sel.cel.expression).trim() === '') errs.push(fieldErr.required(`${path}[${i}].cel.expression`));
  });
  return errs;
}

function validateExact(req: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const className = str(req.deviceClassName);
  if (className === '') errs.push(fieldErr.required(`${path}.deviceClassName`));
  else for (const msg of isDNS1123Subdomain(className)) errs.push(fieldErr.invalid(`${path}.deviceClassName`, className, msg));
  errs.push(...validateSelectors(arr(req.selectors), `${path}.selectors`));
  const mode = str(req.allocationMode);
  if (mode === 'ExactCount') {
    if (typeof req.count === 'number' && req.count <= 0) errs.push(fieldErr.invalid(`${path}.count`, req.count, 'must be greater than zero'));
  } else if (mode === 'All') {
    if (typeof req.count === 'number' && req.count !== 0) errs.push(fieldErr.invalid(`${path}.count`, req.count, 'must not be specified when allocationMode is \'All\''));
  } else {
    errs.push(fieldErr.notSupported(`${path}.allocationMode`, mode, allocationModes));
  }
  return errs;
}

function validateName(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErr.required(path)];
  return isDNS1123Label(name).map((msg) => fieldErr.invalid(path, name, msg));
}

/** The structural checks of validateResourceClaimSpec (requests, their names and alternatives). */
export function validateClaimSpec(spec: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(obj(obj(spec).devices).requests).forEach((raw, i) => {
    const req = obj(raw);
    const p = `${path}.devices.requests[${i}]`;
    const name = str(req.name);
    errs.push(...validateName(name, `${p}.name`));
    if (name !== '') {
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
      names.add(name);
    }
    const hasExact = isObj(req.exactly), subs = arr(req.firstAvailable);
    if (hasExact && subs.length > 0) errs.push(fieldErr.invalid(p, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'));
    else if (!hasExact && subs.length === 0) errs.push(fieldErr.required(p, 'exactly one of `exactly` or `firstAvailable` is required'));
    if (hasExact) errs.push(...validateExact(req.exactly as Json, `${p}.exactly`));
    const subNames = new Set<string>();
    subs.forEach((s, j) => {
      const sub = obj(s);
      const sp = `${p}.firstAvailable[${j}]`;
      const subName = str(sub.name);
      errs.push(...validateName(subName, `${sp}.name`));
      if (subName !== '') {
        if (subNames.has(subName)) errs.push({ type: 'FieldValueDuplicate', field: `${sp}.name`, detail: `Duplicate value: ${JSON.stringify(subName)}` });
        subNames.add(subName);
      }
      errs.push(...validateExact(sub, sp));
    });
  });
  return errs;
}
