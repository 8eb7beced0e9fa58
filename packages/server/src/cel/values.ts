/** JSON values as admission's CEL expressions see them (object, oldObject, request, params). */
import type { CelInput } from '@bufbuild/cel';

/**
 * A JSON value as CEL sees it. Without the kind's schema at hand, integral numbers are CEL
 * ints, as kube types them for the integer fields every built-in kind has.
 */
export function toCelValue(v: unknown): CelInput {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(toCelValue) as CelInput;
  if (typeof v === 'object') return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toCelValue(x)])) as CelInput;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}
