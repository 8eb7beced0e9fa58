/** Query parameters as kube's parameter codec converts them (runtime's Convert_Slice_string_To_bool, strconv.ParseInt). */
import { boolParam, goParseInt64, int64Param } from './queryparams.js';

test('a boolean is false only for 0 and false in any case, true for anything else given, the empty value and f included', () => {
  const b = (q: string) => boolParam(new URLSearchParams(q), 'x');
  expect(b('')).toBeUndefined();
  expect([b('x=0'), b('x=false'), b('x=FALSE'), b('x=False')]).toEqual([false, false, false, false]);
  expect([b('x='), b('x=f'), b('x=F'), b('x=no'), b('x=1'), b('x=true')]).toEqual([true, true, true, true, true, true]);
  expect(b('x=false&x=true')).toBe(false);
});

test('an int64 is strconv.ParseInt base 10, with its errors', () => {
  expect(goParseInt64('-42')).toBe(-42n);
  expect(goParseInt64('0x10')).toBe('strconv.ParseInt: parsing "0x10": invalid syntax');
  expect(goParseInt64('9223372036854775808')).toBe('strconv.ParseInt: parsing "9223372036854775808": value out of range');
  expect(() => int64Param(new URLSearchParams('n=ten'), 'n')).toThrow('strconv.ParseInt: parsing "ten": invalid syntax');
});
