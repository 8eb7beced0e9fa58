/**
 * The value-level helpers structured-merge-diff's `value` package gives the rest of it:
 * a total order over JSON values (keys of set items and map-list items are compared with
 * it, so it decides where they sit in a field set and in FieldsV1), equality, Go's `%v`
 * rendering (path strings in conflict messages) and Go's JSON encoding (FieldsV1 bytes).
 */
import { goFormatG, goQuote } from '@windlass/machinery';
import type { JsonValue } from './types.js';

export type JsonObject = { [key: string]: JsonValue };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Go's strings.Compare works on UTF-8 bytes, i.e. code point order; JS compares UTF-16
 * units, which differ only where a surrogate meets a unit in U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

// SMD's kind rank in value.Compare: numbers, strings, booleans, lists, maps, null.
function rank(v: JsonValue): number {
  switch (typeof v) {
    case 'number':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      return v === null ? 5 : Array.isArray(v) ? 3 : 4;
  }
}

export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const l = a as JsonValue[];
      const r = b as JsonValue[];
      const n = l.length < r.length ? l.length : r.length;
      for (let i = 0; i < n; i++) {
        const c = compareValues(l[i], r[i]);
        if (c !== 0) return c;
      }
      return l.length === r.length ? 0 : l.length < r.length ? -1 : 1;
    }
    case 4:
      return compareMaps(a as JsonObject, b as JsonObject);
    default:
      return 0;
  }
}

/**
 * value.MapCompare: walks the union of keys in order; the side that runs out of keys
 * first, or that lacks the next key of the union, decides.
 */
function compareMaps(l: JsonObject, r: JsonObject): number {
  const lk = Object.keys(l);
  const rk = Object.keys(r);
  if (lk.length === 0 && rk.length === 0) return 0;
  const keys = [...new Set([...lk, ...rk])].sort(compareStrings);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    let c: number;
    if (i === lk.length) c = -1;
    else if (i === rk.length) c = 1;
    else if (!Object.prototype.hasOwnProperty.call(l, k)) c = 1;
    else if (!Object.prototype.hasOwnProperty.call(r, k)) c = -1;
    else c = compareValues(l[k], r[k]);
    if (c !== 0) return c;
  }
  return 0;
}

export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !valuesEqual(a[k], b[k])) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

// Kube decodes integral JSON numbers that fit an int64 as int64, everything else as float64.
const isGoInt = (n: number) => Number.isInteger(n) && Math.abs(n) < 9223372036854775808;

/** value.ToString: how keys and set values appear in a path's String(). */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return isGoInt(v) ? String(v) : goFormatG(v);
    case 'string':
      return goQuote(v);
    case 'boolean':
      return String(v);
  }
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  let out = '';
  for (const k of Object.keys(v)) out += `${k}=${valueToString(v[k])}`;
  return out;
}

const hex = '0123456789abcdef';

/** encoding/json's string form (HTML-safe, lone surrogates become U+FFFD), which SMD's writer reproduces. */
export function goJSONString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20) {
      esc = c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : `\\u00${hex[c >> 4]}${hex[c & 15]}`;
    } else if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = '\\\\';
    else if (c === 0x3c) esc = '\\u003c';
    else if (c === 0x3e) esc = '\\u003e';
    else if (c === 0x26) esc = '\\u0026';
    else if (c === 0x2028) esc = '\\u2028';
    else if (c === 0x2029) esc = '\\u2029';
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = '\ufffd';
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

function goJSONNumber(n: number): string {
  // Go prints -0 as "-0"; the exponent thresholds (1e-6, 1e21) and forms match JS's.
  return Object.is(n, -0) ? '-0' : String(n);
}

/** json.Marshal of an unstructured value: object keys sorted. */
export function goJSON(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return goJSONNumber(v);
    case 'string':
      return goJSONString(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  const keys = Object.keys(v).sort(compareStrings);
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i ? ',' : ''}${goJSONString(keys[i])}:${goJSON(v[keys[i]])}`;
  return out + '}';
}
