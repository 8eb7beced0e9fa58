/**
 * resource.Quantity as kube's validation sees it (k8s.io/apimachinery pkg/api/resource):
 * ParseQuantity's value, comparisons, the canonical String() used in messages, and the Go
 * `%#v` rendering that field.Invalid prints for a Quantity value (LimitRange messages).
 *
 * Values are exact decimals (mantissa × 10^exponent) in BigInt, so comparisons never lose
 * precision the way a float would. Malformed strings are the decoder's to refuse (400);
 * here they parse to undefined.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value is mantissa × 10^exponent. */
  mantissa: bigint;
  exponent: number;
  format: QuantityFormat;
  /** How Go holds it: the int64 fast path (value, scale), or an inf.Dec. */
  internal: { kind: 'int64'; value: bigint; scale: number } | { kind: 'dec' };
  /** The cached string Go keeps when the input already was canonical, else ''. */
  cached: string;
}

const maxInt64 = (1n << 63n) - 1n;
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

interface Parts { positive: boolean; num: string; denom: string; suffix: string }

/** parseQuantityString: sign, numerator (leading zeros stripped), denominator and suffix. */
function splitQuantity(str: string): Parts | undefined {
  let pos = 0;
  let positive = true;
  if (str[0] === '-') { positive = false; pos++; } else if (str[0] === '+') pos++;
  while (pos < str.length && str[pos] === '0') pos++;
  if (pos >= str.length) return { positive, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < str.length && str[i] >= '0' && str[i] <= '9') i++;
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < str.length && str[i] >= '0' && str[i] <= '9') i++;
    denom = str.slice(pos, i);
    pos = i;
  }
  const suffix = str.slice(pos);
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) return undefined;
  return { positive, num, denom, suffix };
}

function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  if (suffix in decimalSuffixes) return { base: 10, exponent: decimalSuffixes[suffix], format: 'DecimalSI' };
  if (suffix in binarySuffixes) return { base: 2, exponent: binarySuffixes[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const rest = suffix.slice(1);
    if (!/^[-+]?[0-9]+$/.test(rest)) return undefined;
    const exponent = Number(rest);
    if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 2 ** 31) return undefined;
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

/** ParseQuantity. Undefined for what kube refuses to decode. */
export function parseQuantity(input: string): Quantity | undefined {
  const str = input.trim();
  if (str.length === 0) return undefined;
  if (str === '0') return { mantissa: 0n, exponent: 0, format: 'DecimalSI', internal: { kind: 'int64', value: 0n, scale: 0 }, cached: '0' };
  if (!/^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.test(str)) return undefined;
  const parts = splitQuantity(str);
  if (!parts) return undefined;
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) return undefined;
  const { positive, num, denom } = parts;
  const { base, exponent, format } = suffix;

  // The int64 fast path, with kube's precision estimate deciding whether it is taken.
  let precision: number;
  let scale = 0;
  let multiplier = 1n;
  if (base === 10) {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  } else if (exponent >= 0 && denom.length === 0) {
    multiplier = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(Math.fround(exponent * 3 / 10)) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted);
      const product = value * multiplier;
      if (value <= maxInt64 && product <= maxInt64) {
        const result = positive ? product : -product;
        let canonical: boolean;
        if (format === 'BinarySI') canonical = exponent % 10 === 0 && (value & 7n) !== 0n;
        else canonical = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { mantissa: result, exponent: scale, format, internal: { kind: 'int64', value: result, scale }, cached: canonical ? str : '' };
      }
    }
  }

  // inf.Dec: exact, then rounded up (away from zero) to nanos, capped for BinarySI.
  let mantissa = BigInt(num + denom);
  let exp = -denom.length;
  if (base === 10) exp += exponent;
  else mantissa *= 1n << BigInt(exponent);
  if (mantissa !== 0n && exp < -9) {
    const div = 10n ** BigInt(-9 - exp);
    mantissa = (mantissa + div - 1n) / div;
    exp = -9;
  }
  if (format === 'BinarySI' && compareParts(mantissa, exp, maxInt64, 0) > 0) {
    mantissa = maxInt64;
    exp = 0;
  }
  return { mantissa: positive ? mantissa : -mantissa, exponent: exp, format, internal: { kind: 'dec' }, cached: '' };
}

function compareParts(m1: bigint, e1: number, m2: bigint, e2: number): number {
  const e = Math.min(e1, e2);
  const a = m1 * 10n ** BigInt(e1 - e);
  const b = m2 * 10n ** BigInt(e2 - e);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Quantity.Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return compareParts(a.mantissa, a.exponent, b.mantissa, b.exponent);
}

export function quantitySign(q: Quantity): number {
  return q.mantissa < 0n ? -1 : q.mantissa > 0n ? 1 : 0;
}

/** The value times 10^scale, rounded up (Quantity.ScaledValue); Value() is scale 0, MilliValue() scale -3. */
export function scaledValue(q: Quantity, scale: number): bigint {
  const shift = q.exponent - scale;
  if (shift >= 0) return q.mantissa * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  const quotient = q.mantissa / div;
  return q.mantissa % div === 0n ? quotient : q.mantissa > 0n ? quotient + 1n : quotient;
}

export function isIntegral(q: Quantity): boolean {
  return q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
}

function removeFactors(value: bigint, factor: bigint): [bigint, number] {
  let times = 0;
  while (value !== 0n && value % factor === 0n) {
    value /= factor;
    times++;
  }
  return [value, times];
}

const decimalSuffixOf = new Map(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binarySuffixOf = new Map(Object.entries(binarySuffixes).map(([s, e]) => [e, s]));

/** Quantity.String(): kube's canonical form (`1000m` → `1`, `1024Mi` → `1Gi`, `1.5Gi` → `1536Mi`). */
export function canonicalQuantity(q: Quantity): string {
  if (q.cached) return q.cached;
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = compareParts(q.mantissa, q.exponent, -1024n, 0) > 0 && compareParts(q.mantissa, q.exponent, 1024n, 0) < 0;
    if (small || !isIntegral(q)) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    const [amount, times] = removeFactors(scaledValue(q, 0), 1024n);
    return `${amount}${binarySuffixOf.get(times * 10) ?? ''}`;
  }
  let [amount, times] = removeFactors(q.mantissa, 10n);
  let exponent = q.exponent + times;
  while (((exponent % 3) + 3) % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
  return `${amount}${decimalSuffixOf.get(exponent) ?? ''}`;
}

/** Canonical form of a quantity string; the string itself when it does not parse. */
export function canonicalQuantityString(s: string): string {
  const q = parseQuantity(s);
  return q ? canonicalQuantity(q) : s;
}

/**
 * Go's `%#v` of a resource.Quantity value, as field.Invalid prints one (its String method
 * has a pointer receiver, so a value is printed field by field).
 */
export function goQuantityRepr(q: Quantity): string {
  const i = q.internal.kind === 'int64' ? `resource.int64Amount{value:${q.internal.value}, scale:${q.internal.scale}}` : 'resource.int64Amount{value:0, scale:0}';
  const d = q.internal.kind === 'dec' ? 'resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}' : 'resource.infDecAmount{Dec:(*inf.Dec)(nil)}';
  return `resource.Quantity{i:${i}, d:${d}, s:${JSON.stringify(q.cached)}, Format:${JSON.stringify(q.format)}}`;
}

/** Quantities of a ResourceList object that parse, by resource name. */
export function quantityEntries(list: unknown): Array<[string, Quantity]> {
  if (!list || typeof list !== 'object' || Array.isArray(list)) return [];
  const out: Array<[string, Quantity]> = [];
  for (const [k, v] of Object.entries(list as Record<string, unknown>)) {
    const q = typeof v === 'string' ? parseQuantity(v) : typeof v === 'number' ? parseQuantity(String(v)) : undefined;
    if (q) out.push([k, q]);
  }
  return out;
}
