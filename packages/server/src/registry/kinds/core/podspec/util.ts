/**
 * Small helpers the pod-spec validation shares: typed reads of decoded JSON, field errors
 * machinery lacks (NotFound, Duplicate, values printed as Go's %#v) and kube's generic
 * numeric checks.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const objs = (v: unknown): JsonObject[] => arr(v).map(obj);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const strs = (v: unknown): string[] => arr(v).map(str);
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** Get or create a child object (for defaulting). */
export function child(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps). */
export function goStringMap(m: unknown): string {
  const entries = Object.entries(obj(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(str(v))}`).join(', ')}}`;
}

/** Go's %#v of a []string. */
export function goStringSlice(v: unknown): string {
  return `[]string{${strs(v).map((s) => JSON.stringify(s)).join(', ')}}`;
}

/** field.Invalid whose value Go prints with %#v (maps, slices, structs): `repr` is that rendering. */
export function invalidRepr(field: string, repr: string, msg: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${repr}: ${msg}` };
}

function quote(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** field.NotFound (machinery's FieldError union lacks the reason; the Status carries it as is). */
export function notFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound' as FieldError['type'], field, detail: `Not found: ${quote(value)}` };
}

/** NotFound with an explanation in place of the value (ResourceClaim names). */
export function notFoundDetail(field: string, detail: string): FieldError {
  return { type: 'FieldValueNotFound' as FieldError['type'], field, detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${quote(value)}` };
}

export function duplicateRepr(field: string, repr: string): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${repr}` };
}

export const isNegativeErrorMsg = 'must be greater than or equal to 0';
export const isNotPositiveErrorMsg = 'must be greater than zero';
export const fileModeErrorMsg = 'must be a number between 0 and 0777 (octal), both inclusive';

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** ValidateNonnegativeField. */
export function nonnegative(value: number, path: string): FieldError[] {
  return value < 0 ? [fieldErr.invalid(path, value, isNegativeErrorMsg)] : [];
}

/** A mode field (defaultMode, items[].mode) between 0 and 0777. */
export function fileMode(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'number') return [];
  return value > 0o777 || value < 0 ? [fieldErr.invalid(path, value, fileModeErrorMsg)] : [];
}

/** Key order-insensitive deep equality of decoded JSON (apimachinery's semantic DeepEqual for our purposes). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Containers of a spec with their list name, in kube's VisitContainers order. */
export function visitContainers(spec: JsonObject, fn: (c: JsonObject, path: string) => void, base = 'spec'): void {
  objs(spec.initContainers).forEach((c, i) => fn(c, `${base}.initContainers[${i}]`));
  objs(spec.containers).forEach((c, i) => fn(c, `${base}.containers[${i}]`));
  objs(spec.ephemeralContainers).forEach((c, i) => fn(c, `${base}.ephemeralContainers[${i}]`));
}
