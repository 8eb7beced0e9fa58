/**
 * kube's ValidateStructural (apiextensions-apiserver pkg/apiserver/schema/validation.go): what
 * makes a CRD schema structural. Every node has a type (or is int-or-string or preserves unknown
 * fields), arrays have items, additionalProperties is not at the root, embedded resources are
 * objects, metadata at the root says nothing but name and generateName, and the value
 * validations under anyOf, allOf, oneOf and not only restrict values: no types, defaults,
 * descriptions, nullable or x-kubernetes extensions there. kube sorts these errors by their text.
 */
import { fieldErr, fieldErrorString, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';

type Schema = structural.StructuralSchema & Record<string, unknown>;
type Level = 'root' | 'item' | 'field';

const isSchema = (v: unknown): v is Schema => structural.isObject(v);

/** Whether a JSONSchemaProps value is Go's zero value (what reflect.DeepEqual with an empty struct ignores). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return structural.isObject(v) && Object.keys(v).length === 0;
}

/** The anyOf of x-kubernetes-int-or-string's expanded form: integer, then string. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && isSchema(anyOf[0]) && isSchema(anyOf[1])
    && Object.keys(anyOf[0]).length === 1 && anyOf[0].type === 'integer' && Object.keys(anyOf[1]).length === 1 && anyOf[1].type === 'string';
}

export function validateStructural(root: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  invariants(root, 'root', path, errs);
  return errs.sort((a, b) => (fieldErrorString(a) < fieldErrorString(b) ? -1 : fieldErrorString(a) > fieldErrorString(b) ? 1 : 0));
}

function invariants(s: Schema, lvl: Level, path: string, errs: FieldError[]): void {
  if (s.type === 'array' && s.items === undefined) errs.push(fieldErr.required(`${path}.items`, 'must be specified'));
  if (isSchema(s.items)) invariants(s.items, 'item', `${path}.items`, errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) if (isSchema(v)) invariants(v, 'field', `${path}.properties[${k}]`, errs);
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(fieldErr.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isSchema(s.additionalProperties)) invariants(s.additionalProperties, 'field', `${path}.additionalProperties`, errs);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  // validateExtensions
  if (intOrString && preserve) errs.push(fieldErr.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldErr.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  valueValidation(s, isIntOrStringAnyOf(s.anyOf), Array.isArray(s.allOf) && isSchema(s.allOf[0]) && isIntOrStringAnyOf(s.allOf[0].anyOf), path, errs);

  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    if (type === '') errs.push(fieldErr.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErr.invalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(fieldErr.required(`${path}.type`, `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined) errs.push(fieldErr.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(fieldErr.invalid(`${path}.type`, type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || embedded;
  const props = s.properties ?? {};
  for (const key of ['kind', 'apiVersion']) {
    if (checkMetadata && key in props && props[key]?.type !== 'string') errs.push(fieldErr.invalid(`${path}.properties[${key}].type`, props[key]?.type ?? '', 'must be string'));
  }
  if ('metadata' in props && isSchema(props.metadata)) metadataInvariants(props.metadata, checkMetadata, lvl, `${path}.properties[metadata]`, errs);
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(fieldErr.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** validateStructuralMetadataInvariants: at the root, metadata may only restrict name and generateName. */
function metadataInvariants(s: Schema, checkMetadata: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (checkMetadata && s.type !== 'object') errs.push(fieldErr.invalid(`${path}.type`, s.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const rest: Record<string, unknown> = { ...s };
  const names = Object.keys(s.properties ?? {});
  if (names.length > 0 && names.every((n) => n === 'name' || n === 'generateName')) delete rest.properties;
  delete rest.type;
  delete rest.default;
  if (Object.values(rest).some((v) => !isZero(v))) {
    errs.push(fieldErr.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

/** validateValueValidation: the junctors' schemas, and (skipped for int-or-string's own anyOf) theirs. */
function valueValidation(s: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, errs: FieldError[]): void {
  if (!skipAnyOf) (s.anyOf ?? []).forEach((v, i) => isSchema(v) && nested(v, false, `${path}.anyOf[${i}]`, errs));
  (s.allOf ?? []).forEach((v, i) => isSchema(v) && nested(v, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`, errs));
  (s.oneOf ?? []).forEach((v, i) => isSchema(v) && nested(v, false, `${path}.oneOf[${i}]`, errs));
  if (isSchema(s.not)) nested(s.not, false, `${path}.not`, errs);
}

const forbiddenInNested: [string, string][] = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

/** validateNestedValueValidation: a schema under a junctor only validates values. */
function nested(s: Schema, skipAnyOf: boolean, path: string, errs: FieldError[]): void {
  valueValidation(s, skipAnyOf, false, path, errs);
  if (isSchema(s.items)) nested(s.items, false, `${path}.items`, errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) if (isSchema(v)) nested(v, false, `${path}.properties[${k}]`, errs);
  for (const [key, message] of forbiddenInNested) {
    // list-type and map-type are pointers in kube's schema: set at all is too much.
    const set = key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type' || key === 'additionalProperties' || key === 'default'
      ? s[key] !== undefined && s[key] !== null
      : !isZero(s[key]);
    if (set) errs.push(fieldErr.forbidden(`${path}.${key}`, message));
  }
  if (s.properties && 'metadata' in s.properties) errs.push(fieldErr.forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
}
