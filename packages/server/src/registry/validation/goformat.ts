/**
 * Field errors whose value kube prints with Go's `%#v` (field.Invalid of a slice, a map, a
 * struct or a Quantity value): the rendering is passed in already formatted, since
 * fieldErr.invalid would print JSON.
 */
import { goQuote, type FieldError } from '@windlass/machinery';
import { goQuantityRepr, parseQuantity } from './quantity.js';

export function invalidGo(field: string, goValue: string, msg: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${goValue}: ${msg}` };
}

export function notSupportedGo(field: string, goValue: string, supported: string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, detail: `Unsupported value: ${goValue}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null)}` };
}

/** `[]string{"a", "b"}`, `[]core.ResourceQuotaScope{"Forever"}`; `[]T(nil)` for an absent list. */
export function goStringSlice(elemType: string, values: unknown): string {
  if (!Array.isArray(values)) return `[]${elemType}(nil)`;
  return `[]${elemType}{${values.map((v) => goQuote(String(v))).join(', ')}}`;
}

/** `core.ResourceList{"cpu":resource.Quantity{...}}` with Go's sorted map keys; `core.ResourceList(nil)` when absent. */
export function goResourceList(list: unknown, typeName = 'core.ResourceList'): string {
  if (!list || typeof list !== 'object' || Array.isArray(list)) return `${typeName}(nil)`;
  const entries = Object.entries(list as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${typeName}{${entries.map(([k, v]) => {
    const q = parseQuantity(String(v));
    return `${goQuote(k)}:${q ? goQuantityRepr(q) : 'resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:""}'}`;
  }).join(', ')}}`;
}

/** A Go pointer as `%#v` prints it inside a struct: `(*T)(nil)` or an address (normalized by clients comparing). */
export function goPointer(type: string, set: boolean): string {
  return set ? `(*${type})(0xc000000000)` : `(*${type})(nil)`;
}
