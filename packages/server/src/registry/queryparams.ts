/**
 * Query parameters read as kube's parameter codec converts url.Values into options structs
 * (k8s.io/apimachinery/pkg/runtime/conversion.go): integers with strconv.ParseInt and its
 * errors (`strconv.ParseInt: parsing "abc": invalid syntax`, 400 in the handlers), booleans
 * leniently (Convert_Slice_string_To_bool: only `0` and `false`, in any case, are false; nothing
 * is an error).
 */
import { goQuote, newBadRequest } from '@windlass/machinery';

const int64Max = 2n ** 63n - 1n;
const int64Min = -(2n ** 63n);

/** strconv.ParseInt(s, 10, 64): the value, or Go's error text. */
export function goParseInt64(s: string): bigint | string {
  if (!/^[+-]?[0-9]+$/.test(s)) return `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`;
  const v = BigInt(s);
  if (v > int64Max || v < int64Min) return `strconv.ParseInt: parsing ${goQuote(s)}: value out of range`;
  return v;
}

/**
 * An int64 query parameter (only the first value counts): undefined when absent, else the
 * number (clamped to what a JS number holds), or 400 with ParseInt's error.
 */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  const n = goParseInt64(v);
  if (typeof n === 'string') throw newBadRequest(n);
  return Number(n);
}

/** A boolean query parameter: undefined when absent, else everything but 0 and false (any case) is true. */
export function boolParam(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}
