/**
 * Node selectors of core/v1 (pkg/apis/core/validation): ValidateNodeSelector and its terms
 * (node affinity of pods and PersistentVolumes) and ValidateTopologySelectorTerm
 * (StorageClass allowedTopologies), with kube's messages and field paths.
 */
import { fieldErr, isDNS1123Subdomain, isValidLabelValue, type FieldError } from '@windlass/machinery';
import { validateLabelName } from './labelselector.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function validateNodeSelectorRequirement(req: unknown, allowInvalidLabelValue: boolean, path: string): FieldError[] {
  const r = isObject(req) ? req : {};
  const operator = str(r.operator);
  const values = list(r.values);
  const errs: FieldError[] = [];
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fieldErr.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fieldErr.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(fieldErr.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErr.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(str(r.key), `${path}.key`));
  if (!allowInvalidLabelValue) {
    values.forEach((v, i) => {
      for (const msg of isValidLabelValue(String(v))) errs.push(fieldErr.invalid(`${path}.values[${i}]`, v, msg));
    });
  }
  return errs;
}

/** Node fields a selector may name: only metadata.name, whose values are node names. */
export function validateNodeFieldSelectorRequirement(req: unknown, path: string): FieldError[] {
  const r = isObject(req) ? req : {};
  const operator = str(r.operator);
  const values = list(r.values);
  const errs: FieldError[] = [];
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) errs.push(fieldErr.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    errs.push(fieldErr.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  }
  const key = str(r.key);
  if (key !== 'metadata.name') {
    errs.push(fieldErr.invalid(`${path}.key`, key, 'not a valid field selector key'));
  } else {
    values.forEach((v, i) => {
      for (const msg of isDNS1123Subdomain(String(v))) errs.push(fieldErr.invalid(`${path}.values[${i}]`, v, msg));
    });
  }
  return errs;
}

export function validateNodeSelectorTerm(term: unknown, allowInvalidLabelValue: boolean, path: string): FieldError[] {
  const t = isObject(term) ? term : {};
  const errs: FieldError[] = [];
  list(t.matchExpressions).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(r, allowInvalidLabelValue, `${path}.matchExpressions[${j}]`)));
  list(t.matchFields).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(r, `${path}.matchFields[${j}]`)));
  return errs;
}

/** ValidateNodeSelector: at least one term, each valid. */
export function validateNodeSelector(sel: unknown, allowInvalidLabelValue: boolean, path: string): FieldError[] {
  const terms = list(isObject(sel) ? sel.nodeSelectorTerms : undefined);
  const termPath = `${path}.nodeSelectorTerms`;
  if (terms.length === 0) return [fieldErr.required(termPath, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => validateNodeSelectorTerm(t, allowInvalidLabelValue, `${termPath}[${i}]`));
}

/** ValidateTopologySelectorTerm: returns the term's key → values (for duplicate detection) and its errors. */
export function validateTopologySelectorTerm(term: unknown, path: string): { exprs: Map<string, Set<string>>; errs: FieldError[] } {
  const t = isObject(term) ? term : {};
  const exprs = new Map<string, Set<string>>();
  const errs: FieldError[] = [];
  list(t.matchLabelExpressions).forEach((raw, i) => {
    const idxPath = `${path}.matchLabelExpressions[${i}]`;
    const r = isObject(raw) ? raw : {};
    const values = list(r.values);
    const set = new Set<string>();
    if (values.length === 0) errs.push(fieldErr.required(`${idxPath}.values`));
    values.forEach((v, j) => {
      if (set.has(String(v))) errs.push({ type: 'FieldValueDuplicate', field: `${idxPath}.values[${j}]`, detail: `Duplicate value: ${JSON.stringify(v)}` });
      set.add(String(v));
    });
    const key = str(r.key);
    errs.push(...validateLabelName(key, `${idxPath}.key`));
    if (exprs.has(key)) errs.push({ type: 'FieldValueDuplicate', field: `${idxPath}.key`, detail: `Duplicate value: ${JSON.stringify(key)}` });
    exprs.set(key, set);
  });
  return { exprs, errs };
}
