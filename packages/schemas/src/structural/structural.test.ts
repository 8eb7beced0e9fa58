/**
 * The structural schema walkers against kube's behaviour: what pruning drops and names, what
 * defaulting fills, and the field errors (paths, types and messages) kube's validator answers.
 */
import { applyDefaults, hasDefaults, prune, pruneNulls } from './prune.js';
import { blockingRulesError, hasValidationRules, validateCustomResource, validateCustomResourceStatus } from './validate.js';
import type { StructuralSchema } from './schema.js';

const schema: StructuralSchema = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', pattern: '^[a-z0-9./-]+(:[a-zA-Z0-9._-]+)?$', maxLength: 20 },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true },
        size: { type: 'string', enum: ['small', 'medium'], default: 'medium' },
        port: { 'x-kubernetes-int-or-string': true, default: 8080 },
        note: { type: 'string', nullable: true },
        dropped: { type: 'string' },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 2 },
        tags: { type: 'array', maxItems: 3, 'x-kubernetes-list-type': 'set', items: { type: 'string', minLength: 1 } },
        ports: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } },
        },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        startAt: { type: 'string', format: 'date-time' },
        data: { type: 'string', format: 'byte' },
      },
    },
  },
};

test('pruning drops what the schema does not specify and names it; preserved, additional and embedded metadata are kept', () => {
  const obj = {
    apiVersion: 'x/v1', kind: 'W', metadata: { name: 'a', bogusMeta: 1 }, extra: true,
    spec: {
      image: 'nginx', unknown: { deep: 1 }, config: { anything: { goes: 1 } }, labels: { a: 'b' },
      ports: [{ name: 'http', bogusToo: 1 }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: {}, other: 1 },
    },
  };
  const unknown = prune(obj, schema);
  expect(unknown.sort()).toEqual(['extra', 'metadata.bogusMeta', 'spec.ports[0].bogusToo', 'spec.template.metadata.junk', 'spec.template.other', 'spec.unknown']);
  expect(obj).toEqual({
    apiVersion: 'x/v1', kind: 'W', metadata: { name: 'a' },
    spec: {
      image: 'nginx', config: { anything: { goes: 1 } }, labels: { a: 'b' }, ports: [{ name: 'http' }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
    },
  });
});

test('nulls of non-nullable fields without defaults are dropped, defaulted ones defaulted, nullable ones kept; list items defaulted', () => {
  const obj: Record<string, unknown> = { spec: { image: 'x', dropped: null, note: null, replicas: null, ports: [{ name: 'a' }] } };
  pruneNulls(obj, schema);
  applyDefaults(obj, schema);
  expect(obj.spec).toEqual({ image: 'x', note: null, replicas: 1, size: 'medium', port: 8080, ports: [{ name: 'a', protocol: 'TCP' }] });
});

test('map values and list items: a non-nullable null is dropped, or defaulted when the value schema has a default; walkers report a change', () => {
  const s: StructuralSchema = {
    type: 'object',
    properties: {
      plain: { type: 'object', additionalProperties: { type: 'string' } },
      withDefault: { type: 'object', additionalProperties: { type: 'string', default: 'd' } },
      nullableValues: { type: 'object', additionalProperties: { type: 'string', nullable: true } },
      items: { type: 'array', items: { type: 'object', default: { x: 1 }, properties: { x: { type: 'integer' } } } },
    },
  };
  const obj: Record<string, unknown> = { plain: { a: null, b: 'b' }, withDefault: { a: null }, nullableValues: { a: null }, items: [null, { x: 2 }] };
  expect(pruneNulls(obj, s)).toBe(true);
  expect(applyDefaults(obj, s)).toBe(true);
  expect(obj).toEqual({ plain: { b: 'b' }, withDefault: { a: 'd' }, nullableValues: { a: null }, items: [{ x: 1 }, { x: 2 }] });
  // A second pass finds nothing left to do.
  expect(pruneNulls(obj, s)).toBe(false);
  expect(applyDefaults(obj, s)).toBe(false);
  // Whether a schema defaults anything at all (objects read from storage are walked only then).
  expect(hasDefaults(s)).toBe(true);
  expect(hasDefaults({ type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', default: 'x' } } } } })).toBe(true);
  expect(hasDefaults({ type: 'object', properties: { a: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } } })).toBe(false);
  expect(hasDefaults(undefined)).toBe(false);
});

const messages = (obj: Record<string, unknown>) => validateCustomResource(obj, schema).map((e) => `${e.field}: ${e.detail}`).sort();

test('validation answers kube field paths and messages', () => {
  expect(messages({ metadata: { name: 'a' } })).toEqual(['spec: Required value']);
  expect(messages({ spec: {} })).toEqual(['spec.image: Required value']);
  expect(messages({ spec: { image: 'UPPER', replicas: 11, ratio: 0, size: 'huge', port: true } })).toEqual([
    'spec.image: Invalid value: "UPPER": spec.image in body should match \'^[a-z0-9./-]+(:[a-zA-Z0-9._-]+)?$\'',
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    'spec.size: Unsupported value: "huge": supported values: "small", "medium"',
  ]);
  expect(messages({ spec: { image: 'a'.repeat(21), replicas: 'two', tags: ['a', 'a', '', 'b'], labels: { a: '1', b: '2', c: '3' } } })).toEqual([
    'spec.image: Too long: may not be more than 20 bytes',
    'spec.labels: Too many: 3: must have at most 2 items',
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    'spec.tags: Too many: 4: must have at most 3 items',
    'spec.tags[1]: Duplicate value: "a"',
    'spec.tags[2]: Invalid value: "": spec.tags[2] in body should be at least 1 chars long',
  ]);
  expect(messages({ spec: { image: 'x', ports: [{ name: 'a' }, { name: 'a' }], startAt: 'yesterday', data: 'not base64!' } })).toEqual([
    'spec.data: Invalid value: "not base64!": spec.data in body must be of type byte: "not base64!"',
    'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    'spec.startAt: Invalid value: "yesterday": spec.startAt in body must be of type date-time: "yesterday"',
  ]);
  expect(messages({ spec: { image: 'x', startAt: '2026-01-02T03:04:05Z', data: 'aGVsbG8=', note: null, port: 'http' } })).toEqual([]);
});

test('a format error is a TypeInvalid cause, a type error too, enum NotSupported', () => {
  const types = validateCustomResource({ spec: { image: 'x', data: '!', replicas: 'a', size: 'big' } }, schema).map((e) => e.type).sort();
  expect(types).toEqual(['FieldValueNotSupported', 'FieldValueTypeInvalid', 'FieldValueTypeInvalid']);
});

test('a mistyped or null value is also checked against the enum, as kube-openapi\'s common validator runs after its type validator', () => {
  expect(messages({ spec: { image: 'x', size: 1234 } })).toEqual([
    'spec.size: Invalid value: "integer": spec.size in body must be of type string: "integer"',
    'spec.size: Unsupported value: 1234: supported values: "small", "medium"',
  ]);
  // Even a null listed in the enum does not match: kube-openapi compares only enum values that have a type.
  const nullableEnum: StructuralSchema = { type: 'object', properties: { mode: { type: 'string', nullable: true, enum: ['a', 'b'] }, listed: { type: 'string', nullable: true, enum: ['a', null] } } };
  expect(validateCustomResource({ mode: null, listed: null }, nullableEnum).map((e) => `${e.field}: ${e.detail}`)).toEqual([
    'mode: Unsupported value: null: supported values: "a", "b"',
    'listed: Unsupported value: null: supported values: "a", "null"',
  ]);
  expect(validateCustomResource({ mode: 'a', listed: 'a' }, nullableEnum)).toEqual([]);
});

test('ipv4, ipv6 and cidr formats as kube-openapi parses them: no IPv6 zone, IPv4 leading zeros tolerated where ParseIPSloppy is used', () => {
  const ips: StructuralSchema = { type: 'object', properties: { v4: { type: 'string', format: 'ipv4' }, v6: { type: 'string', format: 'ipv6' }, net: { type: 'string', format: 'cidr' } } };
  const bad = (o: Record<string, unknown>) => validateCustomResource(o, ips).map((e) => e.field);
  expect(bad({ v4: '010.0.0.1', v6: '2001:db8::1', net: '10.0.0.0/8' })).toEqual([]);
  expect(bad({ v4: '::ffff:1.2.3.4', v6: '::ffff:1.2.3.4', net: 'fe80::/64' })).toEqual([]);
  expect(bad({ v4: '2001:db8::1', v6: '1.2.3.4', net: '10.0.0.0/33' })).toEqual(['v4', 'v6', 'net']);
  expect(bad({ v6: 'fe80::1%eth0', net: 'fe80::1%eth0/64' })).toEqual(['v6', 'net']);
});

test('a pattern Go does not compile fails every value with Go\'s reason, as kube-openapi\'s Pattern does', () => {
  const bad: StructuralSchema = { type: 'object', properties: { field: { type: 'string', pattern: '+' } } };
  expect(validateCustomResource({ field: 'foo' }, bad).map((e) => `${e.field}: ${e.detail}`)).toEqual([
    "field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'",
  ]);
});

test('updates ratchet: values unchanged from the stored object are not validated again, changed ones are', () => {
  const old = { spec: { image: 'UPPER', replicas: 50, ports: [{ name: 'a', protocol: 1 }] } };
  expect(messages({ spec: { image: 'UPPER', replicas: 50, ports: [{ name: 'a', protocol: 1 }] } })).toHaveLength(3);
  expect(validateCustomResource({ spec: { image: 'UPPER', replicas: 50, ports: [{ name: 'a', protocol: 1 }] } }, schema, old)).toEqual([]);
  expect(validateCustomResource({ spec: { image: 'UPPER', replicas: 51, ports: [{ name: 'b', protocol: 1 }, { name: 'a', protocol: 1 }] } }, schema, old).map((e) => e.field).sort())
    .toEqual(['spec.ports[0].protocol', 'spec.replicas']);
});

test('CEL rules are reported as not checked when blocking errors were found', () => {
  const withRules: StructuralSchema = { ...schema, properties: { spec: { ...schema.properties!.spec, 'x-kubernetes-validations': [{ rule: 'true' }] } } };
  expect(hasValidationRules(withRules)).toBe(true);
  expect(hasValidationRules(schema)).toBe(false);
  const errs = validateCustomResource({ spec: {} }, withRules);
  expect(blockingRulesError(errs)).toEqual({ type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
  expect(blockingRulesError(validateCustomResource({ spec: { image: 'UPPER' } }, withRules))).toBeUndefined();
});

test('embedded resources need apiVersion and kind, and valid labels', () => {
  expect(messages({ spec: { image: 'x', template: { metadata: { labels: { 'bad key!': 'v' } }, kind: '' } } })).toEqual([
    'spec.template.apiVersion: Required value',
    'spec.template.kind: Invalid value: "": must not be empty',
    expect.stringMatching(/^spec.template.metadata.labels: Invalid value: "bad key!": /),
  ]);
  expect(messages({ spec: { image: 'x', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: '' } } } })).toEqual([]);
});

// Gateway API's address items: an IPAddress must be an IP; any other type is not an IPAddress.
const address: StructuralSchema = {
  type: 'object',
  properties: { type: { type: 'string' }, value: { type: 'string' } },
  oneOf: [
    { properties: { type: { enum: ['IPAddress'] }, value: { anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] } } },
    { properties: { type: { not: { enum: ['IPAddress'] } } } },
  ],
};
const gateway: StructuralSchema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { addresses: { type: 'array', items: address } } },
    status: { type: 'object', properties: { addresses: { type: 'array', items: address } } },
  },
};

test('oneOf and anyOf failing: the alternative that matched most reports its errors too, as kube-openapi does', () => {
  expect(validateCustomResource({ spec: { addresses: [{ type: 'IPAddress', value: '1.2.3.4:8080' }, { type: 'Hostname', value: 'x' }] } }, gateway)).toEqual([
    { type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "": "spec.addresses[0]" must validate one and only one schema (oneOf). Found none valid' },
    { type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "": "spec.addresses[0].value" must validate at least one schema (anyOf)' },
    { type: 'FieldValueTypeInvalid', field: 'spec.addresses[0].value', detail: 'Invalid value: "1.2.3.4:8080": spec.addresses[0].value in body must be of type ipv4: "1.2.3.4:8080"' },
  ]);
});

test('a status write: the status against its own schema, causes under status, messages within it', () => {
  const obj = { spec: { addresses: [{ type: 'IPAddress', value: 'not checked here' }] }, status: { addresses: [{ type: 'IPAddress', value: '::1' }, { type: 'IPAddress', value: 'bad' }] } };
  expect(validateCustomResourceStatus(obj, gateway).map((e) => [e.field, e.detail])).toEqual([
    ['status', 'Invalid value: "": "addresses[1]" must validate one and only one schema (oneOf). Found none valid'],
    ['status', 'Invalid value: "": "addresses[1].value" must validate at least one schema (anyOf)'],
    ['status.addresses[1].value', 'Invalid value: "bad": addresses[1].value in body must be of type ipv4: "bad"'],
  ]);
});

// Kyverno's GlobalContextEntry: exactly one of kubernetesResource and apiCall. Its conformance
// test (test/conformance/chainsaw/globalcontext/validate-crd) expects kube's own words for both.
const globalContextEntry: StructuralSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      oneOf: [{ required: ['kubernetesResource'] }, { required: ['apiCall'] }],
      properties: { kubernetesResource: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, apiCall: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    },
  },
};

test('anyOf, oneOf, allOf and not failures are kube-openapi\'s plain errors: at the nil path, the schema\'s path quoted in the message', () => {
  const both = validateCustomResource({ spec: { kubernetesResource: {}, apiCall: {} } }, globalContextEntry);
  expect(both).toEqual([
    { type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives' },
  ]);
  expect(validateCustomResource({ spec: {} }, globalContextEntry)).toEqual([
    { type: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid' },
    { type: 'FieldValueRequired', field: 'spec.kubernetesResource', detail: 'Required value' },
  ]);
  const combined: StructuralSchema = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { n: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 5 }], not: { enum: [3] } } } } },
  };
  expect(validateCustomResource({ spec: { n: 9 } }, combined).map((e) => `${e.field}: ${e.detail}`)).toEqual([
    'spec.n: Invalid value: 9: spec.n in body should be less than or equal to 5',
    '<nil>: Invalid value: "": "spec.n" must validate all the schemas (allOf)',
  ]);
  expect(validateCustomResource({ spec: { n: 3 } }, combined).map((e) => `${e.field}: ${e.detail}`)).toEqual([
    '<nil>: Invalid value: "": "spec.n" must not validate the schema (not)',
  ]);
});
