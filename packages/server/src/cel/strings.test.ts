/**
 * cel-go's strings extension semantics (ext/strings.go): Go's SplitN and Replace counts, and
 * positions in code points. @bufbuild/cel's own split truncates where Go keeps the rest.
 */
import { expectCases } from './testhelpers.js';

test('split with a count keeps the rest in the last part, as Go\'s strings.SplitN', () => {
  expectCases([
    ["'a.b.c'.split('.')", ['a', 'b', 'c']],
    ["'a.b.c'.split('.', 2)", ['a', 'b.c']],
    ["'a.b.c'.split('.', 1)", ['a.b.c']],
    ["'a.b.c'.split('.', 0)", []],
    ["'a.b.c'.split('.', -1)", ['a', 'b', 'c']],
    ["''.split('.')", ['']],
    ["'ab😀'.split('')", ['a', 'b', '😀']],
    ["'abc'.split('', 2)", ['a', 'bc']],
    // openshift/api's CompatibilityRequirement: the unsplit rest fails the per-field pattern.
    ["'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q'.split('.', 16).all(f, f.matches('^[a-zA-Z][a-zA-Z0-9_]{0,62}$'))", false],
  ]);
});

test('replace with a count, negative meaning all, as Go\'s strings.Replace', () => {
  expectCases([
    ["'aaa'.replace('a', 'b')", 'bbb'],
    ["'aaa'.replace('a', 'b', 2)", 'bba'],
    ["'aaa'.replace('a', 'b', -1)", 'bbb'],
    ["'aaa'.replace('a', 'b', 0)", 'aaa'],
    ["'ab'.replace('', '-')", '-a-b-'],
    ["'ab'.replace('', '-', 2)", '-a-b'],
    ["'aa'.replace('a', 'aa')", 'aaaa'],
  ]);
});

test('positions count code points, and out-of-range indexes are errors with cel-go\'s text', () => {
  expectCases([
    ["'héllo'.indexOf('l')", 2n],
    ["'héllo'.indexOf('l', 3)", 3n],
    ["'héllo'.lastIndexOf('l')", 3n],
    ["'héllo'.lastIndexOf('l', 2)", 2n],
    ["'abc'.indexOf('', 2)", 2n],
    ["'abc'.lastIndexOf('')", 3n],
    ["'😀a'.charAt(1)", 'a'],
    ["'abc'.charAt(3)", ''],
    ["'héllo'.substring(1, 3)", 'él'],
    ["'héllo'.substring(4)", 'o'],
    ["'abc'.indexOf('a', 3)", { error: 'index out of range: 3' }],
    ["'abc'.charAt(4)", { error: 'index out of range: 4' }],
    ["'abc'.substring(2, 1)", { error: 'invalid substring range. start: 2, end: 1' }],
    ["'abc'.substring(4)", { error: 'index out of range: 4' }],
  ]);
});

test('strings convert to numbers as Go\'s strconv parses them, with cel-go\'s conversion error', () => {
  expectCases([
    ["int('42')", 42n],
    ["int('-7')", -7n],
    ["int('+7')", 7n],
    ["int('acd')", { error: "type conversion error from 'string' to 'int'" }],
    ["int('')", { error: "type conversion error from 'string' to 'int'" }],
    ["int(' 1')", { error: "type conversion error from 'string' to 'int'" }],
    ["int('0x10')", { error: "type conversion error from 'string' to 'int'" }],
    ["int('9223372036854775808')", { error: "type conversion error from 'string' to 'int'" }],
    ["uint('42')", 42n],
    ["uint('-1')", { error: "type conversion error from 'string' to 'uint'" }],
    ["double('1.5e3')", 1500],
    ["double('-inf') < 0.0", true],
    ["double('')", { error: "type conversion error from 'string' to 'double'" }],
    ["double('0x10')", { error: "type conversion error from 'string' to 'double'" }],
  ]);
});

test('a double prints as Go\'s %g, as cel-go\'s string(double) does', () => {
  expectCases([
    ['string(1.5)', '1.5'],
    ['string(100000.0)', '100000'],
    ['string(1000000.0)', '1e+06'],
    ['string(1234567.0)', '1.234567e+06'],
    ['string(0.0001)', '0.0001'],
    ['string(0.00001)', '1e-05'],
    ['string(-2.5e-10)', '-2.5e-10'],
    ['string(1e100)', '1e+100'],
    ['string(0.1 + 0.2)', '0.30000000000000004'],
    ['string(-0.0)', '-0'],
    ['string(double("inf"))', '+Inf'],
    ['string(double("nan"))', 'NaN'],
    ['string(123456.5)', '123456.5'],
  ]);
});
