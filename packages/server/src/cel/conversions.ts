/**
 * cel-go's conversions of strings to numbers (common/types/string.go ConvertToType): Go's
 * strconv.ParseInt / ParseUint (base 10) and ParseFloat, and cel-go's error when they fail,
 * `type conversion error from 'string' to 'int'`. @bufbuild/cel converts with JavaScript's
 * BigInt and Number, which take '' (as 0), spaces and 0x prefixes, and fail with their own text.
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

export const conversionFunctions = [
  celFunc('int', [STRING], INT, parseInt64),
  celFunc('uint', [STRING], UINT, parseUint64),
  celFunc('double', [STRING], DOUBLE, parseFloat64),
];
