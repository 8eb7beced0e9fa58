/**
 * Optional syntax, the optMap/optFlatMap macros, two-variable comprehensions and the global
 * `matches`, as cel-go evaluates them in kube 1.35's environment (cel-go's optional and
 * comprehensions tests' cases), parsed through ./syntax.ts.
 */
import { markOptionalSyntax } from './syntax.js';
import { evalCel, expectCases } from './testhelpers.js';

const some = (v: string) => `optional_type(some:${v})`;

test('the text marks: strings, comments and ternaries are left alone', () => {
  expect(markOptionalSyntax('a.?b.c')).toBe('a.__opt__b.c');
  expect(markOptionalSyntax('a . ? b')).toBe('a .__opt__b');
  expect(markOptionalSyntax('a[?k][j]')).toBe('a[__opt__(k)][j]');
  expect(markOptionalSyntax('[?x, y, ?f(1, 2)]')).toBe('[__opt__(x), y, __opt__(f(1, 2))]');
  expect(markOptionalSyntax("{?'k': v, 'j': a ? b : c}")).toBe("{__opt__('k'): v, 'j': a ? b : c}");
  expect(markOptionalSyntax('"a.?b" + r\'[?\' + x ? y : z // .?c')).toBe('"a.?b" + r\'[?\' + x ? y : z // .?c');
});

test('optional selection and indexing: an optional step makes the rest of the chain optional', () => {
  const self = new Map<string, unknown>([['a', new Map([['b', 1n]])], ['l', [5n, 6n]]]);
  const cases: Array<[string, unknown]> = [
    ['self.?a', `optional_type(some:#`],
    ['self.?a.b', some('n1')],
    ['self.?a.c', 'optional_type()'],
    ['self.?x.b.c', 'optional_type()'],
    ['self.?a.b.orValue(7)', 1n],
    ['self.?x.b.orValue(7)', 7n],
    ['self.a.?b.hasValue()', true],
    ['self[?"a"].b.value()', 1n],
    ['self.l[?1]', some('n6')],
    ['self.l[?2].hasValue()', false],
    ['self.?l[5].orValue(0)', 0n],
    ['!self.?a.b.hasValue() || self.a.b == 1', true],
    ['has(self.?a.b)', true],
    ['has(self.?a.c)', false],
    ['has(self.?x.b)', false],
  ];
  for (const [expr, want] of cases) {
    const got = evalCel(expr, { self });
    if (typeof want === 'string' && want.endsWith('#')) expect(String(got)).toMatch(/^optional_type\(some:/);
    else expect({ expr, got }).toEqual({ expr, got: want });
  }
  expect(evalCel('self.x.?b', { self })).toEqual({ error: expect.stringMatching(/x/) });
});

test('optional list elements and map entries, optMap and optFlatMap', () => {
  expectCases([
    ['[1, ?optional.none(), ?optional.of(3)]', [1n, 3n]],
    ['[?optional.none()]', []],
    ["{?'a': optional.none(), 'b': 1}", { b: 1n }],
    ["{?'a': optional.of(2), 'b': 1}", { a: 2n, b: 1n }],
    ['optional.of(2).optMap(x, x * 3).value()', 6n],
    ['optional.none().optMap(x, x * 3).hasValue()', false],
    ['optional.of(2).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).value()', 2n],
    ['optional.of(1).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).hasValue()', false],
  ]);
});

test('two-variable comprehensions over lists (index, value) and maps (key, value)', () => {
  expectCases([
    ['[1, 2, 3].all(i, v, v > i)', true],
    ['[1, 0].all(i, v, v > i)', false],
    ["{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)", true],
    ['[1, 2, 1].existsOne(i, v, v == 2)', true],
    ['[1, 2, 2].exists_one(i, v, v == 2)', false],
    ['[10, 20].transformList(i, v, i + v)', [10n, 21n]],
    ['[1, 2, 3].transformList(i, v, v > 1, v * 10)', [20n, 30n]],
    ["{'a': 1, 'b': 2}.transformMap(k, v, v * 2)", { a: 2n, b: 4n }],
    ["{'a': 1, 'b': 2}.transformMap(k, v, k == 'a', v)", { a: 1n }],
    ["{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k})", { 1: 'a', 2: 'b' }],
    ["{'a': 1, 'b': 2}.transformMapEntry(k, v, {'x': v})", { error: 'insert failed: key x already exists' }],
    ['[[1], [2]].all(i, l, l.all(j, v, v == i + 1))', true],
  ]);
});

test('matches as a global function, as cel-go\'s standard library declares it', () => {
  expectCases([
    ["matches('v1.6.1', 'v1.[0-5].\\\\d+')", false],
    ["matches('v1.4.0', 'v1.[0-5].\\\\d+')", true],
  ]);
});

test('a select or index on a call that makes an optional continues the optional chain (cel-spec optionals suite)', () => {
  expectCases([
    ["optional.of({'c': {'index': 'goodbye'}}).c.index.orValue('default value')", 'goodbye'],
    ["optional.of({'c': {}}).c.missing.or(optional.none()[0]).orValue('default value')", 'default value'],
    ["optional.of({'c': {}}).c.missing.or(optional.of(['list-value'])[0]).orValue('default value')", 'list-value'],
    ["optional.of({'c': {'index': 'goodbye'}}).c['index'].orValue('default value')", 'goodbye'],
    ["has(optional.of({'c': {'entry': 'hello world'}}).c) && !has(optional.of({'c': {'entry': 'hello world'}}).c.missing)", true],
    ["optional.none().c.hasValue()", false],
  ]);
});
