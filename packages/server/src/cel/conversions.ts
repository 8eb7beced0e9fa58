/**
 * cel-go's conversions between strings and numbers (common/types/string.go and double.go
 * ConvertToType): strings to numbers with Go's strconv.ParseInt / ParseUint (base 10) and
 * ParseFloat, and cel-go's error when they fail, `type conversion error from 'string' to 'int'`;
 * a double to a string as Go's %g prints it. @bufbuild/cel converts with JavaScript's BigInt,
 * Number and toString, which take '' (as 0), spaces and 0x prefixes, fail with their own text,
 * and print 1e6 as 1000000 where Go prints 1e+06.
 */
import { celFunc, CelScalar, celUint } from '@bufbuild/cel';

const { STRING, INT, UINT, DOUBLE } = CelScalar;

const conversionError = (to: string) => new Error(`type conversion error from 'string' to '${to}'`);
const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);

function parseInt64(s: string): bigint {
  if (!/^[+-]?\d+$/.test(s)) throw conversionError('int');
  const n = BigInt(s);
  if (n > maxInt64 || n < minInt64) throw conversionError('int');
  return n;
}

function parseUint64(s: string) {
  if (!/^\+?\d+$/.test(s)) throw conversionError('uint');
  const n = BigInt(s);
  if (n >= 1n << 64n) throw conversionError('uint');
  return celUint(n);
}

function parseFloat64(s: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2].toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  // Decimal forms; ParseFloat's hexadecimal floats and digit underscores are left out.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw conversionError('double');
  return Number(s);
}

/** Go's %g of a float64 (strconv.FormatFloat(x, 'g', -1, 64)): shortest digits, exponent form below 1e-4 and from 1e6 on. */
export function goFormatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, e] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(e);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}${frac ? `.${frac}` : ''}`;
}

export const conversionFunctions = [
  celFunc('string', [DOUBLE], STRING, goFormatG),
  celFunc('int', [STRING], INT, parseInt64),
  celFunc('uint', [STRING], UINT, parseUint64),
  celFunc('double', [STRING], DOUBLE, parseFloat64),
];
