/**
 * metav1 LabelSelector validation (k8s.io/apimachinery pkg/apis/meta/v1/validation):
 * ValidateLabelSelector, ValidateLabelSelectorRequirement and ValidateLabelName, with
 * kube's messages and field paths.
 */
import { fieldErr, isQualifiedName, isValidLabelValue, validateLabels, type FieldError } from '@windlass/machinery';

export interface LabelSelectorValidationOptions {
  /** Tolerated on updates of objects whose stored selector already had such a value. */
  allowInvalidLabelValueInSelector?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ValidateLabelName: a label key used as a value somewhere (selector keys, toleration keys). */
export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErr.invalid(path, name, msg));
}

export function validateLabelSelectorRequirement(req: unknown, opts: LabelSelectorValidationOptions, path: string): FieldError[] {
  const r = isObject(req) ? req : {};
  const operator = typeof r.operator === 'string' ? r.operator : '';
  const values = Array.isArray(r.values) ? (r.values as unknown[]) : [];
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
    default:
      errs.push(fieldErr.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(typeof r.key === 'string' ? r.key : '', `${path}.key`));
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((v, i) => {
      for (const msg of isValidLabelValue(String(v))) errs.push(fieldErr.invalid(`${path}.values[${i}]`, v, msg));
    });
  }
  return errs;
}

/** ValidateLabelSelector; a nil selector is valid. */
export function validateLabelSelector(sel: unknown, opts: LabelSelectorValidationOptions, path: string): FieldError[] {
  if (!isObject(sel)) return [];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((e, i) => errs.push(...validateLabelSelectorRequirement(e, opts, `${path}.matchExpressions[${i}]`)));
  return errs;
}
