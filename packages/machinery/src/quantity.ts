/**
 * resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity.go), the one port of it
 * the decoder and the server's validation share: ParseQuantity with its three errors, the
 * canonical string MarshalJSON and String() write (`1000m` → `1`, `0.5` → `500m`, `1024Mi`
 * → `1Gi`), including the input string Go keeps when it already was canonical (`100Mi`,
 * `1e3`, `+1`), and the arithmetic validation compares with (Cmp, Sign, ScaledValue).
 *
 * Values are exact decimals (mantissa × 10^exponent) in BigInt, so comparisons never lose
 * precision the way a float would.
 */

export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const quantityNumericError = 'unable to parse numeric part of quantity';
export const quantitySuffixError = "unable to parse quantity's suffix";

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A parsed quantity: its exact value mantissa × 10^exponent, its format and Go's cached string. */
export interface ParsedQuantity {
  mantissa: bigint;
  exponent: number;
  format: QuantityFormat;
  /** The input, when Go keeps it as the canonical string; absent or '' when it does not (Go's empty `s`). */
  cached?: string;
  /**
   * Set when ParseQuantity took its inf.Dec path; otherwise Go holds the value as the
   * int64Amount{value: mantissa, scale: exponent} of its fast path (field.Invalid's `%#v`
   * of a Quantity shows which).
   */
  infDec?: boolean;
}

const maxInt64 = (1n << 63n) - 1n;
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binaryExponents: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixOf = new Map(Object.entries(decimalExponents).map(([s, e]) => [e, s]));
const binarySuffixOf = new Map(Object.entries(binaryExponents).map(([s, e]) => [e, s]));
const suffixChars = new Set('eEinumkKMGTP');

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

interface Parts {
  positive: boolean;
  /** The numeric part as written, sign included (inf.Dec parses it on the slow path). */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString, loop for loop: the only place ErrFormatWrong comes from. */
function splitQuantity(str: string): Parts | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && suffixChars.has(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return quantityFormatError;
}

function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  if (suffix in decimalExponents) return { base: 10, exponent: decimalExponents[suffix], format: 'DecimalSI' };
  if (suffix in binaryExponents) return { base: 2, exponent: binaryExponents[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const rest = suffix.slice(1);
    if (!/^[-+]?[0-9]+$/.test(rest)) return undefined;
    const exponent = Number(rest);
    // strconv.ParseInt(…, 10, 64) then int32(parsed): out of int64 is an error, the rest wraps.
    if (!Number.isSafeInteger(exponent)) return undefined;
    return { base: 10, exponent: (exponent | 0), format: 'DecimalExponent' };
  }
  return undefined;
}

/** inf.Dec's SetString for the numeric part: [sign] digits [. digits]. */
function parseDecimal(value: string): { mantissa: bigint; scale: number } | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const digits = `${m[2]}${m[3] ?? ''}` || '0';
  const mantissa = BigInt(digits);
  return { mantissa: m[1] === '-' ? -mantissa : mantissa, scale: (m[3] ?? '').length };
}

/** ParseQuantity: the quantity, or kube's error message. */
export function parseQuantity(str: string): ParsedQuantity | string {
  if (str.length === 0) return quantityFormatError;
  if (str === '0') return { mantissa: 0n, exponent: 0, format: 'DecimalSI', cached: '0' };
  const parts = splitQuantity(str);
  if (typeof parts === 'string') return parts;
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) return quantitySuffixError;
  const { positive, num, denom } = parts;
  const { base, exponent } = suffix;
  let { format } = suffix;

  // The int64 fast path, taken when kube's precision estimate allows it.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (base === 10) {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  } else if (exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted);
      if (value > maxInt64) return quantityNumericError;
      const product = value * mantissa;
      if (product <= maxInt64) {
        const result = positive ? product : -product;
        let canonical: boolean;
        if (format === 'BinarySI') canonical = exponent % 10 === 0 && (value & 7n) !== 0n;
        else canonical = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { mantissa: result, exponent: scale, format, cached: canonical ? str : undefined };
      }
    }
  }

  // inf.Dec: exact, rounded up (away from zero) to nanos, capped at MaxInt64 for BinarySI.
  const dec = parseDecimal(parts.value);
  if (!dec) return quantityNumericError;
  let m = dec.mantissa < 0n ? -dec.mantissa : dec.mantissa;
  let exp = -dec.scale;
  if (base === 10) exp += exponent;
  else m *= 1n << BigInt(exponent);
  if (m !== 0n && exp < -9) {
    const shift = -9 - exp;
    // A value far below a nano rounds up to one nano without computing 10^shift.
    if (m.toString().length < shift) m = 1n;
    else {
      const div = 10n ** BigInt(shift);
      m = (m + div - 1n) / div;
    }
    exp = -9;
  }
  if (format === 'BinarySI' && compare(m, exp, maxInt64, 0) > 0) {
    m = maxInt64;
    exp = 0;
  }
  if (format === 'BinarySI' && compare(m, exp, 1n, 0) < 0 && m !== 0n) format = 'DecimalSI';
  return { mantissa: dec.mantissa < 0n ? -m : m, exponent: exp, format, infDec: true };
}

function compare(m1: bigint, e1: number, m2: bigint, e2: number): number {
  const e = Math.min(e1, e2);
  const a = m1 * 10n ** BigInt(e1 - e);
  const b = m2 * 10n ** BigInt(e2 - e);
  return a < b ? -1 : a > b ? 1 : 0;
}

function removeFactors(value: bigint, factor: bigint): [bigint, number] {
  let times = 0;
  while (value !== 0n && value % factor === 0n) {
    value /= factor;
    times++;
  }
  return [value, times];
}

/** The value rounded up, away from zero, to an integer; undefined-free. */
function roundUpToInteger(q: ParsedQuantity): { value: bigint; exact: boolean } {
  if (q.exponent >= 0) return { value: q.mantissa * 10n ** BigInt(q.exponent), exact: true };
  const div = 10n ** BigInt(-q.exponent);
  const quotient = q.mantissa / div;
  if (q.mantissa % div === 0n) return { value: quotient, exact: true };
  return { value: q.mantissa > 0n ? quotient + 1n : quotient - 1n, exact: false };
}

/** Quantity.Cmp: -1, 0 or 1. */
export function compareQuantities(a: ParsedQuantity, b: ParsedQuantity): number {
  return compare(a.mantissa, a.exponent, b.mantissa, b.exponent);
}

/** Quantity.Sign: -1, 0 or 1. */
export function quantitySign(q: ParsedQuantity): number {
  return q.mantissa < 0n ? -1 : q.mantissa > 0n ? 1 : 0;
}

/**
 * The value times 10^-scale as an integer, a fraction rounded up towards +∞ (Quantity.ScaledValue
 * for what validation compares: Value() is scale 0, MilliValue() scale -3).
 */
export function scaledValue(q: ParsedQuantity, scale: number): bigint {
  const shift = q.exponent - scale;
  if (shift >= 0) return q.mantissa * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  const quotient = q.mantissa / div;
  return q.mantissa % div === 0n ? quotient : q.mantissa > 0n ? quotient + 1n : quotient;
}

/** Whether the value is a whole number (what AsScale(0) reports as exact). */
export function isIntegral(q: ParsedQuantity): boolean {
  return q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
}

/** Quantity.String() / MarshalJSON: the canonical form. */
export function canonicalQuantity(q: ParsedQuantity): string {
  if (q.cached) return q.cached;
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  let rounded = 0n;
  if (format === 'BinarySI') {
    if (compare(q.mantissa, q.exponent, -1024n, 0) > 0 && compare(q.mantissa, q.exponent, 1024n, 0) < 0) format = 'DecimalSI';
    else {
      const r = roundUpToInteger(q);
      if (!r.exact) format = 'DecimalSI';
      rounded = r.value;
    }
  }
  if (format === 'BinarySI') {
    const [amount, times] = removeFactors(rounded, 1024n);
    return `${amount}${binarySuffixOf.get(times * 10) ?? ''}`;
  }
  let [amount, times] = removeFactors(q.mantissa, 10n);
  let exponent = q.exponent + times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
  return `${amount}${decimalSuffixOf.get(exponent) ?? ''}`;
}

/**
 * Quantity.UnmarshalJSON of a decoded JSON value followed by MarshalJSON: the canonical
 * string, or kube's error. A JSON number is read as its text; quotes are not unescaped.
 */
export function canonicalQuantityJSON(value: unknown): string | { error: string } {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  const q = parseQuantity(text.trim());
  return typeof q === 'string' ? { error: q } : canonicalQuantity(q);
}
