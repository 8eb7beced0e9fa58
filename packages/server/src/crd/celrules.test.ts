/**
 * CRD rules as kube 1.35 evaluates them over a custom resource: escaped property names, typed
 * formats, optionalOldSelf, fieldPath into maps, and the refusal of CRDs whose rules do not
 * compile (apiextensions-apiserver's validation.go and schema/cel/validation.go).
 */
import { validateCELRules } from './cel.js';
import { escapeProperty, parseDuration } from './celvalues.js';
import { validateCRD } from './validation.js';

const rule = (r: string, extra: Record<string, unknown> = {}) => ({ rule: r, ...extra });
const root = (spec: Record<string, unknown>) => ({ type: 'object', properties: { spec } }) as never;

test('property names are reached escaped, as kube\'s Escape gives them; map keys are not', () => {
  expect(['namespace', 'a-b', 'x.y', 'a__b', 'p/q', 'ok', '1x', 'a b'].map(escapeProperty))
    .toEqual(['__namespace__', 'a__dash__b', 'x__dot__y', 'a__underscores__b', 'p__slash__q', 'ok', undefined, undefined]);
  const schema = root({
    type: 'object',
    properties: { namespace: { type: 'string' }, 'a-b': { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
    'x-kubernetes-validations': [rule("self.__namespace__ == 'ns' && self.a__dash__b == 'v' && self.labels['a-b'] == 'l'")],
  });
  expect(validateCELRules({ spec: { namespace: 'ns', 'a-b': 'v', labels: { 'a-b': 'l' } } }, schema)).toEqual([]);
  expect(validateCELRules({ spec: { namespace: 'other', 'a-b': 'v', labels: { 'a-b': 'l' } } }, schema)).toHaveLength(1);
});

test('strings of format duration and date-time are durations and timestamps', () => {
  expect(parseDuration('1h30m')).toBe(5400n * 10n ** 9n);
  expect(parseDuration('7d')).toBe(7n * 86400n * 10n ** 9n);
  expect(parseDuration('nope')).toBeUndefined();
  const schema = root({
    type: 'object',
    properties: {
      delay: { type: 'string', format: 'duration', 'x-kubernetes-validations': [rule('duration("0") <= self && self <= duration("5m")', { message: 'between 0 and 5m' })] },
      at: { type: 'string', format: 'date-time', 'x-kubernetes-validations': [rule("self < timestamp('2030-01-01T00:00:00Z')")] },
    },
  });
  expect(validateCELRules({ spec: { delay: '90s', at: '2029-12-31T23:59:59.5Z' } }, schema)).toEqual([]);
  expect(validateCELRules({ spec: { delay: '6m', at: '2031-01-01T00:00:00Z' } }, schema)).toEqual([
    { type: 'FieldValueInvalid', field: 'spec.delay', detail: 'Invalid value: "6m": between 0 and 5m' },
    { type: 'FieldValueInvalid', field: 'spec.at', detail: 'Invalid value: "2031-01-01T00:00:00Z": failed rule: self < timestamp(\'2030-01-01T00:00:00Z\')' },
  ]);
});

test('optionalOldSelf: the rule runs on create with oldSelf none, on update with oldSelf set', () => {
  const schema = root({
    type: 'object',
    properties: { mode: { type: 'string', 'x-kubernetes-validations': [rule('!oldSelf.hasValue() || self == oldSelf.value()', { optionalOldSelf: true, message: 'mode is immutable once set' })] } },
    'x-kubernetes-validations': [rule("oldSelf.hasValue() || self.mode != 'locked'", { optionalOldSelf: true, message: 'cannot be created locked' })],
  });
  expect(validateCELRules({ spec: { mode: 'a' } }, schema)).toEqual([]);
  expect(validateCELRules({ spec: { mode: 'locked' } }, schema)).toEqual([{ type: 'FieldValueInvalid', field: 'spec', detail: 'Invalid value: cannot be created locked' }]);
  expect(validateCELRules({ spec: { mode: 'b' } }, schema, { spec: { mode: 'a' } })).toEqual([
    { type: 'FieldValueInvalid', field: 'spec.mode', detail: 'Invalid value: "b": mode is immutable once set' },
  ]);
  // A field added on update has no old value to correlate: none.
  expect(validateCELRules({ spec: { mode: 'b' } }, schema, { spec: {} })).toEqual([]);
});

test('optionalOldSelf: a field of oldSelf is an optional select, as cel-go types a select on an optional', () => {
  // openshift/api's MachineOSConfig: the name may stay mismatched once persisted.
  const schema = {
    type: 'object',
    properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } }, spec: { type: 'object', properties: { pool: { type: 'object', properties: { name: { type: 'string' } } } } } },
    'x-kubernetes-validations': [rule('self.metadata.name == self.spec.pool.name || oldSelf.hasValue() && oldSelf.spec.pool.name.value() == self.spec.pool.name', { optionalOldSelf: true, message: 'names must match' })],
  } as never;
  const persisted = { metadata: { name: 'a' }, spec: { pool: { name: 'b' } } };
  expect(validateCELRules(persisted, schema)).toEqual([{ type: 'FieldValueInvalid', field: '', detail: 'Invalid value: names must match' }]);
  expect(validateCELRules({ ...persisted, other: 1 }, schema, persisted)).toEqual([]);
  expect(validateCELRules({ metadata: { name: 'a' }, spec: { pool: { name: 'c' } } }, schema, persisted)).toHaveLength(1);
  // An absent field of a present oldSelf is none: value() fails, hasValue() is false.
  const absent = { ...schema as object, 'x-kubernetes-validations': [rule('!oldSelf.hasValue() || !oldSelf.spec.pool.hasValue()', { optionalOldSelf: true })] } as never;
  expect(validateCELRules({ metadata: { name: 'a' }, spec: {} }, absent, { metadata: { name: 'a' }, spec: {} })).toEqual([]);
});

test('ratcheting: an item that correlates with nothing (an atomic list\'s) ratchets while its nearest correlated ancestor is unchanged', () => {
  const schema = root({
    type: 'object',
    properties: {
      blocked: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [rule("!self.contains(':')", { message: 'no tags' })] } },
      note: { type: 'string' },
    },
  });
  const persisted = { spec: { blocked: ['registry.io/repo:latest'], note: 'a' } };
  // The list unchanged, another field changed: the persisted item's failure ratchets.
  expect(validateCELRules({ spec: { blocked: ['registry.io/repo:latest'], note: 'b' } }, schema, persisted)).toEqual([]);
  // The list changed: an atomic list's items are all validated again.
  expect(validateCELRules({ spec: { blocked: ['registry.io/repo:latest', 'ok.io'], note: 'a' } }, schema, persisted).map((e) => e.field)).toEqual(['spec.blocked[0]']);
  // On create nothing ratchets.
  expect(validateCELRules(persisted, schema)).toHaveLength(1);
});

test('a rule\'s fieldPath walks the schema: a map key is printed as [key], properties as .name', () => {
  const schema = root({
    type: 'object',
    properties: {
      params: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true } },
      a: { type: 'object', properties: { 'b.c': { type: 'string' } } },
    },
    'x-kubernetes-validations': [
      rule('self.?params.log_directory.optMap(v, type(v) == string).orValue(true)', { fieldPath: '.params.log_directory', message: 'log_directory must be a string' }),
      rule("!has(self.a) || self.a.b__dot__c != 'x'", { fieldPath: ".a['b.c']", message: 'not x' }),
    ],
  });
  expect(validateCELRules({ spec: { params: { log_directory: 'logs' }, a: { 'b.c': 'y' } } }, schema)).toEqual([]);
  expect(validateCELRules({ spec: { params: { log_directory: 99 }, a: { 'b.c': 'x' } } }, schema)).toEqual([
    { type: 'FieldValueInvalid', field: 'spec.params[log_directory]', detail: 'Invalid value: log_directory must be a string' },
    { type: 'FieldValueInvalid', field: 'spec.a.b.c', detail: 'Invalid value: not x' },
  ]);
});

test('a CRD whose rule does not compile is refused, as kube refuses it when written', () => {
  const properties = { a: { type: 'object', properties: { b: { type: 'integer' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } };
  const crd = (validations: unknown[]) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': validations } } } } }],
    },
    status: { storedVersions: ['v1'] },
  }) as never;
  expect(validateCRD(crd([rule('self.?a.b.orValue(1) == 1'), rule('self.m.all(k, v, v != "")')]))).toEqual([]);
  const errs = validateCRD(crd([rule('self.a ==', { message: 'm' })]));
  expect(errs).toHaveLength(1);
  expect(errs[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
  expect(errs[0].detail).toMatch(/^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a ==", Message:"m", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: /);
});

test('a wrong type met at run time (an int-or-string value) is refused with kube\'s overload wording', () => {
  const schema = root({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [rule('self.?x.hasValue()', { message: 'm' })] } } });
  expect(validateCELRules({ spec: { p: 5 } }, schema)).toEqual([
    { type: 'FieldValueInvalid', field: 'spec.p', detail: "Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: m" },
  ]);
});
