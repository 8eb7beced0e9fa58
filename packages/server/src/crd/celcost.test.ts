/**
 * Estimated rule costs, against kube's own expectations (apiextensions-apiserver
 * pkg/apiserver/schema/cel compilation_test.go TestCostEstimation, v0.35.0): each case's cost with
 * the schema's limits unset (sizes from the largest request) and set.
 */
import { checkCel } from '../cel/check.js';
import { optionalOf } from '../cel/checktypes.js';
import { parseKube } from '../cel/index.js';
import { maxCost } from './celcost.js';
import { schemaDecl } from './celtypes.js';
import { validateCRD } from './validation.js';

type Schema = Record<string, unknown>;
type Gen = (max?: number) => Schema;

const typed = (t: string): Schema => (['duration', 'date', 'date-time'].includes(t) ? { type: 'string', format: t } : t === 'int-or-string' ? { 'x-kubernetes-int-or-string': true } : { type: t });
const arrayOf = (t: string): Gen => (max) => ({ type: 'array', items: typed(t), ...(max === undefined ? {} : { maxItems: max }) });
const arrayOfArrays = (t: string): Gen => (max) => ({ type: 'array', items: { type: 'array', items: { type: t } }, ...(max === undefined ? {} : { maxItems: max }) });
const objectArray: Gen = (max) => ({ type: 'array', items: { type: 'object', required: ['required'], properties: { required: { type: 'string' }, optional: { type: 'string' } } }, ...(max === undefined ? {} : { maxItems: max }) });
const mapOf = (t: string): Gen => (max) => ({ type: 'object', additionalProperties: typed(t), ...(max === undefined ? {} : { maxProperties: max }) });
const mapOfItems = (item: Schema): Gen => (max) => ({ type: 'object', additionalProperties: item, ...(max === undefined ? {} : { maxProperties: max }) });
const str: Gen = (max) => ({ type: 'string', ...(max === undefined ? {} : { maxLength: max }) });
const bytes: Gen = (max) => ({ type: 'string', format: 'byte', ...(max === undefined ? {} : { maxLength: max }) });
const nestedSpec: Gen = (max) => ({ type: 'object', additionalProperties: { type: 'string', ...(max === undefined ? {} : { maxLength: max }) }, ...(max === undefined ? {} : { maxProperties: max }) });

function cost(schema: Schema, rule: string): bigint {
  const decl = schemaDecl(schema as never, false, 'selfType0')!;
  const parsed = parseKube(rule);
  const checked = checkCel(parsed, rule, new Map([['self', decl.type], ['oldSelf', decl.type]]));
  expect(checked.issues).toEqual([]);
  return maxCost(parsed.expr!, checked, decl);
}

// [name, generator, rule, cost with no limits, limit set, cost with it]
const cases: Array<[string, Gen, string, number | 'over', number, number]> = [
  ['number array with all', arrayOf('number'), 'self.all(x, true)', 4718591, 10, 32],
  ['string array with all', arrayOf('string'), 'self.all(x, true)', 3145727, 20, 62],
  ['boolean array with all', arrayOf('boolean'), 'self.all(x, true)', 1887437, 5, 17],
  ['array of number arrays with all', arrayOfArrays('number'), 'self.all(x, true)', 3145727, 100, 302],
  ['array of objects with all', objectArray, 'self.all(x, true)', 555128, 50, 152],
  ['map of numbers with all', mapOf('number'), 'self.all(x, true)', 1348169, 10, 32],
  ['map of number maps with all', mapOfItems({ type: 'object', additionalProperties: { type: 'number' } }), 'self.all(x, true)', 1179647, 10, 32],
  ['map of number arrays with all', mapOfItems({ type: 'array', items: { type: 'number' } }), 'self.all(x, true)', 1179647, 25, 77],
  ['map of durations with all', mapOf('duration'), 'self.all(x, true)', 1048577, 5, 17],
  ['map of dates with all', mapOf('date'), 'self.all(x, true)', 524288, 10, 32],
  ['map of date-times with all', mapOf('date-time'), 'self.all(x, true)', 349526, 25, 77],
  ['map of strings with all', mapOf('string'), 'self.all(x, true)', 1179647, 3, 11],
  ['map of booleans with all', mapOf('boolean'), 'self.all(x, true)', 943718, 100, 302],
  ['string with contains', str, "self.contains('test')", 314574, 10, 5],
  ['string with startsWith', str, "self.startsWith('test')", 2, 15, 2],
  ['concat string', str, 'size(self + "hello") > size("hello")', 314578, 4, 7],
  ['index of array with numbers', arrayOf('number'), 'self[1] == 0.0', 2, 5000, 2],
  ['index of array with strings', arrayOf('string'), 'self[1] == self[1]', 314577, 8, 314577],
  ['O(n^2) loop with numbers', arrayOf('number'), 'self.all(x, self.all(y, true))', 'over', 10, 352],
  ['O(n^3) loop with numbers', arrayOf('number'), 'self.all(x, self.all(y, self.all(z, true)))', 'over', 10, 3552],
  ['regex matches simple', str, 'self.matches("x")', 314574, 50, 22],
  ['regex matches empty string', str, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
  ['regex matches empty regex', str, 'self.matches("")', 1, 100, 1],
  ['map of strings with value length', nestedSpec, 'self.all(x, x.contains(self[x]))', 2752507, 10, 72],
  ['set array maxLength to zero', arrayOf('number'), 'self[3] == 0.0', 2, 0, 2],
  ['set map maxLength to zero', mapOf('number'), 'self["x"] == 0.0', 2, 0, 2],
  ['set string maxLength to zero', str, 'self == "x"', 2, 0, 1],
  ['set bytes maxLength to zero', bytes, 'self == b"x"', 2, 0, 1],
  ['set maxLength greater than estimated maxLength', arrayOf('number'), 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
  ['extended library regex find', str, "self.find('[0-9]+') == ''", 629147, 10, 11],
  ['extended library join', (m) => ({ type: 'array', items: str(m), ...(m === undefined ? {} : { maxItems: m }) }), "self.join(' ') == 'aa bb'", 329853068905, 10, 43],
  ['extended library isSorted', (m) => ({ type: 'array', items: str(m), ...(m === undefined ? {} : { maxItems: m }) }), 'self.isSorted() == true', 329854432052, 10, 52],
  ['extended library replace', (m) => ({ type: 'object', properties: { str: str(m), before: str(2), after: str(4) } }), "self.str.replace(self.before, self.after) == 'does not matter'", 629154, 4, 12],
  ['extended library split', (m) => ({ type: 'object', properties: { str: str(m), separator: str(m) } }), 'self.str.split(self.separator) == []', 629160, 10, 22],
  ['extended library lowerAscii', str, "self.lowerAscii() == 'lower!'", 314575, 10, 6],
  ['check cost of size call', mapOf('integer'), 'oldSelf.size() == self.size()', 5, 10, 5],
  ['check cost of timestamp comparison', mapOf('date-time'), 'self["a"] == self["b"]', 8, 7, 8],
  ['check cost of duration comparison', mapOf('duration'), 'self["c"] == self["d"]', 8, 42, 8],
  ['enums with maxLength equals to the longest possible value', (m) => ({ type: 'string', enum: ['A', 'B', 'C', 'LongValue'], ...(m === undefined ? {} : { maxLength: m }) }), "self.contains('A')", 2, 1000, 401],
  ['IntOrString type with quantity rule', (m) => ({ 'x-kubernetes-int-or-string': true, ...(m === undefined ? {} : { maxLength: m }) }), 'isQuantity(self)', 314574, 20, 9],
];

test.each(cases)('%s', (_name, gen, rule, unset, max, set) => {
  const calc = cost(gen(), rule);
  if (unset === 'over') expect(calc).toBeGreaterThan(10_000_000n);
  else expect(calc).toBe(BigInt(unset));
  expect(cost(gen(max), rule)).toBe(BigInt(set));
});

test('optionalOldSelf: oldSelf is an optional of self', () => {
  const decl = schemaDecl({ type: 'string', maxLength: 10 } as never, false, 'selfType0')!;
  const rule = 'self == oldSelf.orValue("")';
  const parsed = parseKube(rule, ['oldSelf']);
  const checked = checkCel(parsed, rule, new Map([['self', decl.type], ['oldSelf', optionalOf(decl.type)]]));
  expect(checked.issues).toEqual([]);
  expect(maxCost(parsed.expr!, checked, decl)).toBeGreaterThan(0n);
});

describe("a CRD's rules refused for their estimated cost, as kube's CRD validation refuses them", () => {
  const crd = (properties: Record<string, unknown>) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties } } }],
    },
    status: { storedVersions: ['v1'] },
  }) as never;
  const root = 'spec.validation.openAPIV3Schema';
  const errors = (properties: Record<string, unknown>) => validateCRD(crd(properties)).map((e) => [e.type, e.field, e.detail]);
  const doubleNested = (value: Record<string, unknown>, map: Record<string, unknown>, key: Record<string, unknown>) => ({
    value: { type: 'array', ...value, items: { type: 'object', ...map, additionalProperties: { type: 'object', required: ['key'], properties: { key } } }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x.all(y, x[y].key == x[y].key))' }] },
  });
  const rule = `${root}.properties[value].x-kubernetes-validations[0].rule`;
  const budget = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

  test('a double-nested rule over unbounded lists and maps: over the rule limit and the total', () => {
    for (const key of [{ type: 'string' }, { type: 'string', maxLength: 10 }]) {
      expect(errors(doubleNested({}, {}, key))).toEqual([
        ['FieldValueForbidden', rule, `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${budget}`],
        ['FieldValueForbidden', rule, 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'],
        ['FieldValueForbidden', root, `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${budget}`],
      ]);
    }
  });

  test('bounded enough, the same rule is allowed', () => {
    expect(errors(doubleNested({ maxItems: 10 }, { maxProperties: 10 }, { type: 'string', maxLength: 10 }))).toEqual([]);
    expect(errors(doubleNested({ maxItems: 4 }, {}, { type: 'number' }))).toEqual([]);
    expect(errors({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 1024' }] } })).toEqual([]);
  });

  test("rules under bounded lists and maps add up past the schema's total", () => {
    const contains = { type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] };
    const errs = errors({
      list: { type: 'array', maxItems: 100000, items: contains },
      map: { type: 'object', maxProperties: 1000, additionalProperties: contains },
      field: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 50 && self < 100' }] },
    });
    const list = `${root}.properties[list].items.x-kubernetes-validations[0].rule`;
    const map = `${root}.properties[map].additionalProperties.x-kubernetes-validations[0].rule`;
    expect(errs.map(([type, field]) => [type, field])).toEqual([
      ['FieldValueForbidden', list], ['FieldValueForbidden', list], ['FieldValueForbidden', map], ['FieldValueForbidden', root],
    ]);
    expect(errs[0][2]).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of \d+\.\dx /);
  });

  test("an update leaving a version's schema as it was does not refuse a rule for its own cost", () => {
    const over = { value: { type: 'array', maxItems: 10000, items: { type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] } } };
    const created = validateCRD(crd(over));
    expect(created.map((e) => e.field)).toEqual([`${root}.properties[value].items.x-kubernetes-validations[0].rule`]);
    expect(created[0].detail).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of 2\.0x /);
    expect(validateCRD(crd(over), crd(over))).toEqual([]);
  });
});
