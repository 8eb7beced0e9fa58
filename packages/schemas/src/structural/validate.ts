/**
 * Validation of a custom resource against its version's schema, as the apiextensions-apiserver
 * runs kube-openapi's validator and converts its results (pkg/apiserver/validation/validation.go
 * kubeOpenAPIResultToFieldErrors): Required, NotSupported (enum), TooLong (maxLength), TooMany
 * (maxItems, maxProperties), and Invalid with go-openapi's message for everything else
 * (`spec.x in body should be less than or equal to 10`). Then kube's list-type checks
 * (x-kubernetes-list-type set and map: duplicates). CEL rules are not evaluated.
 */
import { fieldErr, goQuote, isDNS1035Label, validateLabels, validateAnnotations, type FieldError } from '@windlass/machinery';
import { child, index, isObject, type StructuralSchema } from './schema.js';
import { checkFormat } from './formats.js';
import { compileGoRegexp, type GoRegexp } from './goregexp.js';

/** go-openapi's type name of a JSON value, as its type errors print it. */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'boolean': return typeof v === 'boolean';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    default: return true;
  }
}

/** go-openapi's messages name the field as `<path> in body`; the root's path is empty. */
const inBody = (path: string) => `${path} in body`;

/** %v of a float64 as Go prints it. */
const goNumber = (n: number) => String(n);

function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany' as FieldError['type'], field, detail: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

/** A schema's pattern (Go syntax), or Go's error for one it does not compile (kube accepts such a CRD). */
function patternOf(p: string): GoRegexp | Error {
  try {
    return compileGoRegexp(p);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Deep equality of JSON values (enum membership, list-set duplicates). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The value an update replaces at the same place, when one correlates (kube's CRD validation
 * ratcheting: object fields by name, list-map items by their keys); absent for a create.
 */
export type Old = { value: unknown } | undefined;

function oldField(old: Old, key: string): Old {
  return old && isObject(old.value) && key in old.value ? { value: old.value[key] } : undefined;
}

function oldItem(old: Old, item: unknown, s: StructuralSchema): Old {
  if (!old || !Array.isArray(old.value) || s['x-kubernetes-list-type'] !== 'map' || !isObject(item)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const match = old.value.find((o) => isObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
  return match === undefined ? undefined : { value: match };
}

/**
 * Validates `value` at `path` against `s`, appending kube's field errors. With `old`, a value
 * unchanged from the one it replaces is not validated (kube's CRDValidationRatcheting, on by
 * default since 1.30): objects stored under an older schema stay updatable.
 */
/**
 * kube-openapi's anyOf/oneOf: how many alternatives `value` validates against, and the errors
 * of the failing one that matched most (its MatchCount: here the schema nodes it walked; the
 * first wins a tie), which kube reports beside the anyOf/oneOf error.
 */
function alternatives(value: unknown, subs: StructuralSchema[], path: string): { passing: number; best: FieldError[] } {
  let passing = 0;
  let best: FieldError[] = [];
  let bestCount = -1;
  for (const sub of subs) {
    const e: FieldError[] = [];
    const before = walked;
    validateValue(value, sub, path, e);
    const count = walked - before;
    if (e.length === 0) passing++;
    else if (passing === 0 && count > bestCount) {
      best = e;
      bestCount = count;
    }
  }
  return { passing, best };
}

/**
 * kube-openapi's anyOf/oneOf/allOf/not failures are plain errors, not field validations, so kube's
 * kubeOpenAPIResultToFieldErrors reports them at the validator's own path (nil for a custom
 * resource: `<nil>: Invalid value: "": "spec" must validate …`), the failing schema's path only
 * in the message. Here the field is empty; each caller names it as kube does.
 */
function composite(message: string): FieldError {
  return fieldErr.invalid('', '', message);
}

/** Errors added unless already reported, as kube-openapi's Result.AddErrors does. */
function mergeErrors(errs: FieldError[], more: FieldError[]): void {
  for (const e of more) if (!errs.some((x) => x.field === e.field && x.detail === e.detail)) errs.push(e);
}

/** Schema nodes validated so far: the measure of how far a value matched an alternative. */
let walked = 0;

export function validateValue(value: unknown, s: StructuralSchema, path: string, errs: FieldError[], old?: Old): void {
  walked++;
  if (old && jsonEqual(old.value, value)) return;
  // kube-openapi's SchemaValidator runs its enum check (the common validator) after a type error
  // too, and on null, even where null is allowed: a null or mistyped value also gets NotSupported.
  if (value === null) {
    if (!s.nullable && s.type) errs.push(fieldErr.typeInvalid(path, 'null', `${inBody(path)} must be of type ${s.type}: "null"`));
    validateEnum(value, s, path, errs);
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
      errs.push(fieldErr.typeInvalid(path, jsonType(value), `${inBody(path)} must be of type integer,string: ${JSON.stringify(jsonType(value))}`));
      validateEnum(value, s, path, errs);
      return;
    }
  } else if (s.type && !typeMatches(s.type, value)) {
    errs.push(fieldErr.typeInvalid(path, jsonType(value), `${inBody(path)} must be of type ${s.type}: ${JSON.stringify(jsonType(value))}`));
    validateEnum(value, s, path, errs);
    return;
  }
  // kube-openapi's schemaPropsValidator: anyOf, oneOf, allOf, then not.
  if (s.anyOf?.length) {
    const { passing, best } = alternatives(value, s.anyOf, path);
    if (passing === 0) {
      errs.push(composite(`${goQuote(path)} must validate at least one schema (anyOf)`));
      mergeErrors(errs, best);
    }
  }
  if (s.oneOf?.length) {
    const { passing, best } = alternatives(value, s.oneOf, path);
    if (passing !== 1) {
      errs.push(composite(`${goQuote(path)} must validate one and only one schema (oneOf). ${passing === 0 ? 'Found none valid' : `Found ${passing} valid alternatives`}`));
      if (passing === 0) mergeErrors(errs, best);
    }
  }
  if (s.allOf?.length) {
    let passing = 0;
    for (const sub of s.allOf) {
      const e: FieldError[] = [];
      validateValue(value, sub, path, e);
      if (e.length === 0) passing++;
      mergeErrors(errs, e);
    }
    if (passing !== s.allOf.length) errs.push(composite(`${goQuote(path)} must validate all the schemas (allOf)${passing === 0 ? '. None validated' : ''}`));
  }
  if (s.not) {
    const e: FieldError[] = [];
    validateValue(value, s.not, path, e);
    if (e.length === 0) errs.push(composite(`${goQuote(path)} must not validate the schema (not)`));
  }
  if (typeof value === 'string') validateString(value, s, path, errs);
  else if (typeof value === 'number') validateNumber(value, s, path, errs);
  validateEnum(value, s, path, errs);
  if (Array.isArray(value)) validateArray(value, s, path, errs, old);
  else if (isObject(value)) validateObject(value, s, path, errs, old);
}

/** kube-openapi's basicCommonValidator: a null matches no enum value, not even a null one (it skips untyped values). */
function validateEnum(value: unknown, s: StructuralSchema, path: string, errs: FieldError[]): void {
  if (s.enum && (value === null || !s.enum.some((e) => e !== null && jsonEqual(e, value)))) {
    errs.push(fieldErr.notSupported(path, value, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
}

function validateString(v: string, s: StructuralSchema, path: string, errs: FieldError[]): void {
  if (s.maxLength !== undefined && [...v].length > s.maxLength) errs.push(fieldErr.tooLong(path, s.maxLength));
  if (s.minLength !== undefined && [...v].length < s.minLength) errs.push(fieldErr.invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  if (s.pattern !== undefined) {
    const re = patternOf(s.pattern);
    // kube-openapi's Pattern: every value fails a pattern that does not compile, with Go's reason.
    if (re instanceof Error) errs.push(fieldErr.invalid(path, v, `${inBody(path)} should match '${s.pattern}, but pattern is invalid: ${re.message}'`));
    else if (!re.test(v)) errs.push(fieldErr.invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  }
  if (s.format && (s.type === 'string' || s.type === undefined) && !checkFormat(s.format, v)) {
    errs.push(fieldErr.typeInvalid(path, v, `${inBody(path)} must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
}

function validateNumber(v: number, s: StructuralSchema, path: string, errs: FieldError[]): void {
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
    errs.push(fieldErr.invalid(path, v, `${inBody(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goNumber(s.maximum)}`));
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
    errs.push(fieldErr.invalid(path, v, `${inBody(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goNumber(s.minimum)}`));
  }
  if (s.multipleOf !== undefined && s.multipleOf !== 0 && !Number.isInteger(v / s.multipleOf)) {
    errs.push(fieldErr.invalid(path, v, `${inBody(path)} should be a multiple of ${goNumber(s.multipleOf)}`));
  }
}

function validateArray(v: unknown[], s: StructuralSchema, path: string, errs: FieldError[], old: Old): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(fieldErr.invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  if (s.items) v.forEach((item, i) => validateValue(item, s.items!, index(path, i), errs, oldItem(old, item, s)));
  validateListType(v, s, path, errs);
}

/**
 * kube's objectmeta validateEmbeddedResource: an embedded resource needs apiVersion and kind;
 * its metadata's labels and annotations are validated (its name may be empty).
 */
function validateEmbedded(v: Record<string, unknown>, path: string, errs: FieldError[]): void {
  for (const key of ['apiVersion', 'kind']) if (!(key in v)) errs.push(fieldErr.required(child(path, key)));
  if ('apiVersion' in v) {
    const a = v.apiVersion;
    if (typeof a !== 'string') errs.push(fieldErr.invalid(child(path, 'apiVersion'), a, 'must be a string'));
    else if (a === '') errs.push(fieldErr.invalid(child(path, 'apiVersion'), a, 'must not be empty'));
    else if (a.split('/').length > 2) errs.push(fieldErr.invalid(child(path, 'apiVersion'), a, `unexpected GroupVersion string: ${a}`));
  }
  if ('kind' in v) {
    const k = v.kind;
    if (typeof k !== 'string') errs.push(fieldErr.invalid(child(path, 'kind'), k, 'must be a string'));
    else if (k === '') errs.push(fieldErr.invalid(child(path, 'kind'), k, 'must not be empty'));
    else {
      const msgs = isDNS1035Label(k.toLowerCase());
      if (msgs.length > 0) errs.push(fieldErr.invalid(child(path, 'kind'), k, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
    }
  }
  const meta = v.metadata;
  if (isObject(meta)) {
    errs.push(...validateLabels(meta.labels, child(path, 'metadata.labels')));
    errs.push(...validateAnnotations(meta.annotations, child(path, 'metadata.annotations')));
  }
}

function validateObject(v: Record<string, unknown>, s: StructuralSchema, path: string, errs: FieldError[], old: Old): void {
  if (s['x-kubernetes-embedded-resource'] && path !== '') validateEmbedded(v, path, errs);
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) errs.push(tooMany(path, n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) errs.push(fieldErr.invalid(path, n, `${inBody(path)} should have at least ${s.minProperties} properties`));
  for (const r of s.required ?? []) if (!(r in v)) errs.push(fieldErr.required(child(path, r)));
  const additional = isObject(s.additionalProperties) ? (s.additionalProperties as StructuralSchema) : undefined;
  for (const [key, val] of Object.entries(v)) {
    const prop = s.properties?.[key] ?? additional;
    if (prop) validateValue(val, prop, child(path, key), errs, oldField(old, key));
  }
}

/** Go's %#v of a map[string]interface{} of a list-map item's keys, as field.Duplicate prints it. */
function goKeyMap(keys: Record<string, unknown>): string {
  const entries = Object.keys(keys).sort().map((k) => `${JSON.stringify(k)}:${goValue(keys[k])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

function goValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}` : String(v);
  if (v === undefined || v === null) return 'interface {}(nil)';
  return String(v);
}

/** kube's listtype.ValidateListSetsAndMaps: items of a set, and the keys of a map's items, are unique. */
function validateListType(v: unknown[], s: StructuralSchema, path: string, errs: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (let i = 0; i < v.length; i++) {
      if (v.slice(0, i).some((x) => jsonEqual(x, v[i]))) {
        errs.push({ type: 'FieldValueDuplicate', field: index(path, i), detail: `Duplicate value: ${typeof v[i] === 'object' ? JSON.stringify(v[i]) : JSON.stringify(v[i])}` });
      }
    }
  } else if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen: Record<string, unknown>[] = [];
    v.forEach((item, i) => {
      if (!isObject(item)) return;
      const k: Record<string, unknown> = {};
      for (const key of keys) {
        // A missing key takes its default, as kube's map-list key does.
        k[key] = key in item ? item[key] : s.items?.properties?.[key]?.default;
      }
      if (seen.some((o) => jsonEqual(o, k))) errs.push({ type: 'FieldValueDuplicate', field: index(path, i), detail: `Duplicate value: ${goKeyMap(k)}` });
      else seen.push(k);
    });
  }
}

/** Validates a whole custom resource (its metadata is validated apart, as kube's ObjectMeta); `old` on updates. */
export function validateCustomResource(obj: Record<string, unknown>, schema: StructuralSchema | undefined, old?: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!schema) return errs;
  // The root's metadata is validated as ObjectMeta; the schema only says it is required.
  const rootSchema: StructuralSchema = { ...schema, properties: { ...(schema.properties ?? {}) } };
  delete rootSchema.properties!.metadata;
  validateValue(obj, rootSchema, '', errs, old && { value: { ...old, metadata: obj.metadata } });
  // kube's customResourceValidator passes a nil field path: errors without one print as <nil>.
  return errs.map((e) => (e.field ? e : { ...e, field: '<nil>' }));
}

/** Whether the schema has CEL rules (x-kubernetes-validations) anywhere. */
export function hasValidationRules(s: StructuralSchema | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  const additional = isObject(s.additionalProperties) ? (s.additionalProperties as StructuralSchema) : undefined;
  return Object.values(s.properties ?? {}).some(hasValidationRules) || hasValidationRules(s.items) || hasValidationRules(additional);
}

/**
 * kube's hasBlockingErr: with errors of these types the CEL rules are not evaluated, and one
 * more error says so.
 */
export function blockingRulesError(errs: FieldError[]): FieldError | undefined {
  const blocking = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
  if (!errs.some((e) => blocking.has(e.type))) return undefined;
  return { type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' };
}

/**
 * kube's ValidateStatusUpdate for a write through the status subresource: the status alone
 * against its own schema, its errors at `status.…` with messages naming paths within the status
 * (`addresses[0].value in body …`), as kube-apiserver's status validator reports them.
 */
export function validateCustomResourceStatus(obj: Record<string, unknown>, schema: StructuralSchema | undefined, old?: Record<string, unknown>): FieldError[] {
  const statusSchema = schema?.properties?.status;
  if (!statusSchema || obj.status === undefined) return [];
  const errs: FieldError[] = [];
  validateValue(obj.status, statusSchema, '', errs, old && { value: old.status });
  return errs.map((e) => ({ ...e, field: !e.field ? 'status' : e.field.startsWith('[') ? `status${e.field}` : `status.${e.field}` }));
}
