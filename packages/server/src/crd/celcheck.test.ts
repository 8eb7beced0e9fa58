/**
 * Rules type-checked against their schema when a CRD is written, with the cases and expected
 * messages of kube's own tests (apiextensions-apiserver pkg/apiserver/schema/cel
 * validation_test.go and pkg/apis/apiextensions/validation validation_test.go, v0.35.0): each
 * `valid` rule there must be accepted, each error must be refused with a message containing kube's.
 */
import { validateCELRules } from './cel.js';
import { validateCRD } from './validation.js';

type Schema = Record<string, unknown>;
const str = { type: 'string' };
const int = { type: 'integer' };
const obj = (properties: Record<string, Schema>, extra: Schema = {}) => ({ type: 'object', properties, ...extra });

function crd(openAPIV3Schema: Schema) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
    status: { storedVersions: ['v1'] },
  } as never;
}

/** Refusals for a rule's estimated cost, which ./celcost.test.ts covers: these schemas set no limits. */
const isCost = (e: { detail: string }) => /exceeds budget|contributed to estimated rule cost/.test(e.detail);

/** The CRD's field errors for rules placed on `spec` (or on the root when `root`), but those of cost. */
function errorsFor(schema: Schema, rules: Array<Record<string, unknown>>, root = false) {
  const withRules = { ...schema, 'x-kubernetes-validations': rules };
  return validateCRD(crd(root ? withRules : obj({ spec: withRules }))).filter((e) => !isCost(e));
}

function expectCases(schema: Schema, valid: string[], errors: Record<string, string>, root = false) {
  for (const rule of valid) expect([rule, errorsFor(schema, [{ rule }], root)]).toEqual([rule, []]);
  for (const [rule, want] of Object.entries(errors)) {
    const errs = errorsFor(schema, [{ rule }], root);
    expect([rule, errs.length]).toEqual([rule, 1]);
    expect(errs[0].detail).toContain(want);
  }
}

test('objects: fields by name, no undefined fields (not even with has), no indexing, no comparison with a map literal', () => {
  expectCases(obj({
    a: obj({ b: int, c: int, d: { ...int, nullable: true } }),
    a1: obj({ b1: obj({ c1: int }), d2: obj({ e2: int }) }),
    objs: { type: 'array', items: obj({ f1: str, f2: str }) },
  }), [
    'has(self.a.b)', '!has(self.a.c)', '!has(self.a.d)', 'has(self.a1.b1.c1)', '!(has(self.a1.d2) && has(self.a1.d2.e2))',
    'self.objs[0] == self.objs[1]', 'size(self.objs) > 0', 'self.objs.all(o, o.f1 != o.f2)',
  ], {
    'has(self.a.z)': "undefined field 'z'",
    "self.a['b'] == 1": "no matching overload for '_[_]'",
    "self.objs[0] == {'f1': 'a', 'f2': 'b'}": "found no matching overload for '_==_'",
  });
});

test('maps and list-maps: literals must be homogeneous', () => {
  const listMap = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: str, v: str }, { required: ['k'] }) };
  expectCases(obj({ val1: { type: 'object', additionalProperties: str }, val2: { type: 'object', additionalProperties: str }, objs: { type: 'array', items: listMap } }), [
    'self.val1 == self.val2', "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}",
    'self.objs[0] == [self.objs[0][0], self.objs[0][1]]', 'size(self.objs[0] + [self.objs[3][0]]) == 3',
  ], {
    "{'k1': 'a', 'k2': 1, 'k2': false} == self.val1": "expected type 'string' but found 'int'",
    "self.objs[0][0] == {'k': 'a', 'v': '1'}": "no matching overload for '_==_'",
  });
});

test("typemeta and objectmeta: a resource's apiVersion, kind and metadata's name and generateName, nothing else of metadata", () => {
  const spec = obj({ field1: str });
  expectCases(obj({ spec }), [
    "self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'", "self.metadata.generateName == 'pickItForMe'", "self.spec.field1 == 'a'",
  ], { 'has(self.metadata.namespace)': "undefined field 'namespace'" }, true);

  const embedded = { type: 'object', 'x-kubernetes-embedded-resource': true };
  expectCases(obj({ embedded: { ...embedded, properties: { spec: obj({ field1: str }) } } }), [
    "self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'", "self.embedded.metadata.name == 'foo'", "self.embedded.metadata.generateName == 'x'",
    "self.embedded.spec.field1 == 'a'",
  ], { 'has(self.embedded.metadata.namespace)': "undefined field 'namespace'", 'has(self.embedded.status)': "undefined field 'status'" });

  const preserving = { ...embedded, 'x-kubernetes-preserve-unknown-fields': true };
  expectCases(obj({ embedded: preserving }), ["self.embedded.kind == 'Pod'", 'has(self.embedded)'], { 'has(self.embedded.spec)': "undefined field 'spec'" });

  // A reserved word is reached escaped, and (kube 1.31+) as it is.
  const keywords = { ...embedded, properties: { kind: str, apiVersion: str, metadata: obj({ name: str, generateName: str, namespace: str }), spec: obj({ if: str }) } };
  expectCases(obj({ embedded: keywords }), [
    'has(self.embedded.metadata.namespace)', "self.embedded.metadata.namespace == 'ns'", 'has(self.embedded.spec.if)', "self.embedded.spec.__if__ == 'x'",
  ], {});
});

test('unknown fields cannot be selected: an object that preserves them has only its declared fields, an untyped field is not there at all', () => {
  const unknownObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const anything = { 'x-kubernetes-preserve-unknown-fields': true };
  expectCases(obj({
    withUnknown: unknownObject,
    withUnknownList: { type: 'array', items: unknownObject },
    anyvalList: { type: 'array', items: anything },
    anyvalMap: { type: 'object', additionalProperties: anything },
    anyvalField1: anything,
    known: obj({ known: int }, { 'x-kubernetes-preserve-unknown-fields': true }),
  }), [
    'has(self.withUnknown)', 'self.withUnknownList.size() == 5', 'self.withUnknownList[0] != self.withUnknownList[1]', 'self.known.known == 1',
  ], {
    'has(self.withUnknown.field1)': "undefined field 'field1'",
    'has(self.anyvalList)': "undefined field 'anyvalList'",
    'has(self.anyvalMap)': "undefined field 'anyvalMap'",
    'has(self.anyvalField1)': "undefined field 'anyvalField1'",
    'has(self.known.unknown)': "undefined field 'unknown'",
  });
});

test('null: only objects, opaque values, timestamps and durations compare with null', () => {
  expectCases(obj({ plain: str, nullable: { ...str, nullable: true }, when: { ...str, format: 'date-time' }, o: obj({ x: int }) }), [
    'type(self.nullable) != null_type', 'self.when != null', 'self.o != null', "format.dns1123Label().validate(self.plain) == null",
  ], {
    'self.plain == null': "no matching overload for '_==_' applied to '(string, null)'",
    'self.nullable != null': "no matching overload for '_!=_' applied to '(string, null)'",
  });
});

test("kube's libraries and cel-go's extensions type-check with their declared overloads", () => {
  const schema = obj({
    name: str, count: int, ratio: { type: 'number' }, tags: { type: 'array', items: str }, labels: { type: 'object', additionalProperties: str },
    ios: { 'x-kubernetes-int-or-string': true }, when: { ...str, format: 'date-time' }, ttl: { ...str, format: 'duration' }, raw: { ...str, format: 'byte' },
  });
  expectCases(schema, [
    "quantity(self.name).isLessThan(quantity('1Gi')) && sign(quantity(self.name)) >= 0",
    "isURL(self.name) && url(self.name).getScheme() == 'https'", "ip(self.name).family() == 4 && cidr('10.0.0.0/8').containsIP(self.name)",
    "self.name.find('[a-z]+') != '' && self.name.findAll('a').size() < 3", "self.tags.isSorted() && self.tags.indexOf('a') >= -1",
    "sets.contains(self.tags, ['a']) && self.tags.sortBy(t, t.size()) == self.tags", "semver(self.name).major() > 0 && isSemver(self.name, true)",
    "self.labels.all(k, v, k.startsWith('a') && v != '')", "self.tags.exists(t, t == self.name) || self.tags.map(t, t.size()).all(n, n > 0)",
    "type(self.ios) == int ? self.ios > 0 : self.ios.endsWith('%')", "self.when < timestamp('2030-01-01T00:00:00Z') && self.ttl > duration('1s')",
    "self.when + self.ttl > self.when && self.when.getFullYear() > 2000", "size(self.raw) > 0 && string(self.raw) != ''",
    "self.count < self.ratio && self.count == int(self.ratio) && double(self.count) == self.ratio", "self.?name.orValue('') != '' && self.labels[?'x'].hasValue()",
    "'%s-%d'.format([self.name, self.count]) != '' && self.name.split(',').size() > 0 && self.tags.join(',') != ''",
    "optional.of(self.name).hasValue() && lists.range(3).size() == 3 && strings.quote(self.name) != ''",
    "format.named('dns1123Label').hasValue() && self.name.matches('^a') && matches(self.name, '^a')",
    "self.ttl < duration('1h30m') && self.when > timestamp(0) && self.when > timestamp('2020-01-01T00:00:00.5+01:00')",
    // PGO's rules: optMap gives an optional, and orValue of it a bool (here dyn, not refused).
    "self.?name.optMap(v, v.startsWith('/pgtmp') || size(self.tags) > 0).orValue(true)",
  ], {
    'fakeFunction(self.name)': "undeclared reference to 'fakeFunction' (in container '')",
    'self.count == 1.0': "found no matching overload for '_==_' applied to '(int, double)'",
    "self.count > '3'": "found no matching overload for '_>_' applied to '(int, string)'",
    'self.name.startsWith(1)': "found no matching overload for 'startsWith' applied to 'string.(int)'",
    "self.count in ['a']": "found no matching overload for '@in' applied to '(int, list(string))'",
    'self.count.x == 1': "type 'int' does not support field selection",
    "quantity('1').sign() == 1": "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'",
    "authorizer.group('').resource('x').check('get').allowed()": "undeclared reference to 'authorizer' (in container '')",
    "self.name.all(c, c == 'a')": "expression of type 'string' cannot be range of a comprehension (must be list, map, or dynamic)",
    "[self.name, self.count].size() == 2": "expected type 'string' but found 'int'",
    "self.ttl > duration('1x')": "ERROR: <input>:1:21: invalid duration argument",
    "self.when > timestamp('2020-13-01T00:00:00Z')": "invalid timestamp argument",
    "self.name.matches('(')": "ERROR: <input>:1:19: invalid matches argument",
    "{'a': self.name, 'b': self.count}.size() == 2": "expected type 'string' but found 'int'",
  });
});

test("errors are cel-go's: located at the operator, the selection's dot or the call's parenthesis, with the line and a caret", () => {
  const [err] = errorsFor(obj({ name: str }), [{ rule: "self.name.size() > 0 &&\n  self.nam == 'x'", message: 'm' }]);
  expect(err.field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
  expect(err.detail).toMatch(/: compilation failed: ERROR: <input>:2:7: undefined field 'nam'\n \|   self\.nam == 'x'\n \| \.\.\.\.\.\.\^$/);
  const [call] = errorsFor(obj({ name: str }), [{ rule: 'has(self.x) || size(1) > 0' }]);
  expect(call.detail).toContain("ERROR: <input>:1:4: undefined field 'x'\n | has(self.x) || size(1) > 0\n | ...^\nERROR: <input>:1:20: found no matching overload for 'size' applied to '(int)'");
});

test("a rule's other fields: a one-line message (required for a rule on several lines), a known reason, a fieldPath the schema has", () => {
  const schema = obj({ name: str, labels: { type: 'object', additionalProperties: str }, 'a.b': str });
  const errs = (rule: Record<string, unknown>) => errorsFor(schema, [{ rule: 'true', ...rule }]).map((e) => `${e.field.replace(/^.*x-kubernetes-validations\[0\]\./, '')}: ${e.detail}`);
  expect(errs({ rule: ' ' })).toEqual(['rule: Required value: rule is not specified']);
  expect(errs({ message: ' ' })).toEqual(['message: Invalid value: " ": must be non-empty if specified']);
  expect(errs({ message: 'a\nb' })).toEqual(['message: Invalid value: "a\\nb": must not contain line breaks']);
  expect(errs({ rule: 'true &&\ntrue' })).toEqual(['message: Required value: message must be specified if rule contains line breaks']);
  expect(errs({ messageExpression: ' ' })).toEqual(['messageExpression: Required value: messageExpression must be non-empty if specified']);
  expect(errs({ reason: 'Teapot' })).toEqual(['reason: Unsupported value: "Teapot": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"']);
  for (const fieldPath of ['.name', ".labels['x.y']", '.labels.any', "['a.b']"]) expect(errs({ fieldPath })).toEqual([]);
  expect(errs({ fieldPath: '.nam' })).toEqual(['fieldPath: Invalid value: ".nam": must be a valid path']);
  expect(errs({ fieldPath: 'name' })).toEqual(['fieldPath: Invalid value: "name": must be a valid path']);
  expect(errs({ fieldPath: '.name.x' })).toEqual(['fieldPath: Invalid value: ".name.x": must be a valid path']);
  expect(errs({ fieldPath: ' ' })).toEqual(['fieldPath: Invalid value: " ": must be non-empty if specified', 'fieldPath: Invalid value: " ": must be a valid path']);
});

test('a rule must be a bool, a messageExpression a string', () => {
  const schema = obj({ name: str, count: int });
  const [rule] = errorsFor(schema, [{ rule: 'self.name' }]);
  expect(rule.detail).toMatch(/: cel expression must evaluate to a bool$/);
  const [msg] = errorsFor(schema, [{ rule: 'self.count > 0', messageExpression: 'self.count' }]);
  expect(msg.field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression');
  expect(msg.detail).toMatch(/: messageExpression must evaluate to a string$/);
  const [bad] = errorsFor(schema, [{ rule: 'self.count > 0', messageExpression: "'count ' + self.cnt" }]);
  expect(bad.detail).toContain("messageExpression compilation failed: ERROR: <input>:1:16: undefined field 'cnt'");
  expect(errorsFor(schema, [{ rule: 'self.count > 0', messageExpression: "'count ' + string(self.count)" }])).toEqual([]);
});

test('oldSelf only where old and new values correlate; optionalOldSelf only with oldSelf', () => {
  const item = { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] };
  for (const listType of ['atomic', undefined, 'set']) {
    const errs = validateCRD(crd(obj({ value: { type: 'array', ...(listType ? { 'x-kubernetes-list-type': listType } : {}), items: item } }))).filter((e) => !isCost(e)).filter((e) => !isCost(e));
    expect(errs.map((e) => [e.field, e.detail])).toEqual([[
      'spec.validation.openAPIV3Schema.properties[value].items.x-kubernetes-validations[0].rule',
      'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[value]',
    ]]);
  }
  const mapItem = obj({ k: str, v: { ...str, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } }, { required: ['k'] });
  expect(validateCRD(crd(obj({ value: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: mapItem } }))).filter((e) => !isCost(e))).toEqual([]);
  const atomicMap = obj({ a: { ...str, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } }, { 'x-kubernetes-map-type': 'atomic' });
  expect(validateCRD(crd(obj({ value: atomicMap }))).filter((e) => !isCost(e)).map((e) => e.detail)).toEqual([
    'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[value]',
  ]);
  expect(validateCRD(crd(obj({ value: { type: 'array', maxItems: 10, items: str, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } }))).filter((e) => !isCost(e))).toEqual([]);

  for (const optionalOldSelf of [true, false]) {
    expect(errorsFor(str, [{ rule: 'self == "foo"', optionalOldSelf }]).map((e) => [e.field, e.detail])).toEqual([[
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].optionalOldSelf', `Invalid value: ${optionalOldSelf}: may not be set if oldSelf is not used in rule`,
    ]]);
  }
  expect(errorsFor(str, [{ rule: 'self == oldSelf.orValue("")', optionalOldSelf: true }])).toEqual([]);
  expect(errorsFor(obj({ a: str }), [{ rule: 'oldSelf.a.orValue("") == self.a', optionalOldSelf: true }])).toEqual([]);
  expect(errorsFor(obj({ a: str }), [{ rule: 'oldSelf.b.orValue("") == self.a', optionalOldSelf: true }])[0].detail).toContain("undefined field 'b'");
});

test('a rule on a schema CEL cannot see (an untyped field preserving unknown fields) is an internal error, as in kube', () => {
  const errs = validateCRD(crd(obj({ any: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } })));
  expect(errs.map((e) => [e.type, e.field, e.detail])).toEqual([[
    'InternalError', 'spec.validation.openAPIV3Schema.properties[any].x-kubernetes-validations',
    'Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
  ]]);
});

test('a field named by a reserved word is reached at run time both escaped and as it is', () => {
  const schema = obj({ spec: obj({ namespace: str, if: str }, { 'x-kubernetes-validations': [{ rule: "self.namespace == 'ns' && self.__namespace__ == 'ns' && self.if == self.__if__" }] }) });
  expect(validateCELRules({ spec: { namespace: 'ns', if: 'x' } }, schema as never)).toEqual([]);
  expect(validateCELRules({ spec: { namespace: 'other', if: 'x' } }, schema as never).map((e) => e.field)).toEqual(['spec']);
});
