/**
 * cel-go's conversions between strings and numbers (common/types/string.go and double.go
 * ConvertToType): strings to numbers with Go's strconv.ParseInt / ParseUint (base 10) and
 * ParseFloat, and cel-go's error when they fail, `type conversion error from 'string' to 'int'`;
 * a double to a string as Go's %g prints it. @bufbuild/cel converts with JavaScript's BigInt,
 * Number and toString, which take '' (as 0), spaces and 0x prefixes, fail with their own text,
 * and print 1e6 as 1000000 where Go prints 1e+06.
 */
import { celFunc, CelScalar, celUint } from '@bufbuild/cel';
import { goFormatG } from '@windlass/machinery';
import { maxInt64, minInt64 } from './compare.js';

const { STRING, INT, UINT, DOUBLE } = CelScalar;

const conversionError = (to: string) => new Error(`type conversion error from 'string' to '${to}'`);

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
  celFunc('string', [DOUBLE], STRING, goFormatG),
  celFunc('int', [STRING], INT, parseInt64),
  celFunc('uint', [STRING], UINT, parseUint64),
  celFunc('double', [STRING], DOUBLE, parseFloat64),
];
