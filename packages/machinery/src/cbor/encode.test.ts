/**
 * Byte-exact expectations from kube's own tests (k8s.io/apimachinery v0.35.7,
 * pkg/runtime/serializer/cbor: internal/modes/encode_test.go, appendixa_test.go, cbor_test.go)
 * and objects assembled by hand from kube's encoding rules (byte strings, sorted keys, tag 22
 * for []byte, the 0xd9d9f7 prefix).
 */
import { Decoder, Tag } from 'cbor-x';
import { CBORPlanCompiler, type CBORPlan } from './plan.js';
import { CBOREncodeError, CBORRaw, encodeCBOR, encodeCBORWatchEvent } from './encode.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bare = (v: unknown, plan?: CBORPlan) => hex(encodeCBOR(v, { selfDescribed: false, plan }));
const float: CBORPlan = { float: true };
const bytes: CBORPlan = { bytes: true };

describe('encodeCBOR as modes.Encode (encode_test.go)', () => {
  it('writes strings as byte strings', () => {
    expect(bare('hello')).toBe('4568656c6c6f');
  });
  it('writes a []byte as a byte string in the expected-base64 tag 22', () => {
    expect(bare(Buffer.from('hello').toString('base64'), bytes)).toBe('d64568656c6c6f');
  });
  it('writes struct fields as byte-string keys', () => {
    // struct{ A int; TaggedA int `json:"A"` }{1, 2} → {"A": 2}
    expect(bare({ A: 2 })).toBe('a1414102');
  });
  it('writes an empty struct as an empty map', () => {
    expect(bare({})).toBe('a0');
  });
  it('writes a byte array (not a slice) as an array of integers', () => {
    expect(bare([1, 2, 3])).toBe('83010203');
  });
});

describe('encodeCBOR re-encodes RFC 8949 Appendix A as kube does (appendixa_test.go)', () => {
  // [value as decoded, expected re-encoding, plan] — integers and floats as kube's decoder
  // types them (int64 or float64); a whole float64 needs the float plan in the JSON form.
  const cases: [unknown, string, CBORPlan?][] = [
    [0, '00'], [1, '01'], [10, '0a'], [23, '17'], [24, '1818'], [25, '1819'], [100, '1864'],
    [1000, '1903e8'], [1000000, '1a000f4240'], [1000000000000, '1b000000e8d4a51000'],
    [-1, '20'], [-10, '29'], [-100, '3863'], [-1000, '3903e7'],
    [0, 'f90000', float], [-0, 'f98000', float], [1, 'f93c00', float], [1.1, 'fb3ff199999999999a'],
    [1.5, 'f93e00'], [65504, 'f97bff', float], [100000, 'fa47c35000', float],
    [3.4028234663852886e38, 'fa7f7fffff', float], [1.0e300, 'fb7e37e43c8800759c', float],
    [5.960464477539063e-8, 'f90001'], [0.00006103515625, 'f90400'], [-4, 'f9c400', float], [-4.1, 'fbc010666666666666'],
    [false, 'f4'], [true, 'f5'], [null, 'f6'],
    ['2013-03-21T20:04:00Z', '54323031332d30332d32315432303a30343a30305a'],
    ['2013-03-21T20:04:00.5Z', '56323031332d30332d32315432303a30343a30302e355a'],
    ['01020304', '483031303230333034'],
    ['dIETF', '456449455446'],
    ['http://www.example.com', '56687474703a2f2f7777772e6578616d706c652e636f6d'],
    ['', '40'], ['\x01\x02\x03\x04', '4401020304'], ['a', '4161'], ['IETF', '4449455446'],
    ['"\\', '42225c'], ['ü', '42c3bc'], ['水', '43e6b0b4'], ['𐅑', '44f0908591'],
    [[], '80'], [[1, 2, 3], '83010203'], [[1, [2, 3], [4, 5]], '8301820203820405'],
    [Array.from({ length: 25 }, (_, i) => i + 1), '98190102030405060708090a0b0c0d0e0f101112131415161718181819'],
    [{}, 'a0'], [{ a: 1, b: [2, 3] }, 'a24161014162820203'], [['a', { b: 'c' }], '824161a141624163'],
    [{ a: 'A', b: 'B', c: 'C', d: 'D', e: 'E' }, 'a54161414141624142416341434164414441654145'],
    ['streaming', '4973747265616d696e67'],
    // {_ "Fun": true, "Amt": -2} re-encoded sorted
    [{ Fun: true, Amt: -2 }, 'a243416d74214346756ef5'],
  ];
  for (const [value, expected, plan] of cases) {
    it(`re-encodes ${expected}`, () => expect(bare(value, plan)).toBe(expected));
  }
});

describe('encodeCBOR details of the JSON form', () => {
  it('encloses a top-level item in the self-described tag (cbor_test.go)', () => {
    expect(hex(encodeCBOR({}))).toBe('d9d9f7a0');
  });
  it('sorts keys shorter first, then bytewise, as RFC 8949 4.2.1 orders byte-string keys', () => {
    const obj = { metadata: {}, kind: 'K', apiVersion: 'v1', spec: 0, b: 0, aa: 0, a: 0 };
    // a, b, aa, kind, spec, metadata, apiVersion
    expect(bare(obj)).toBe(
      'a7' + '416100' + '416200' + '42616100' + '446b696e64414b' + '447370656300' + '486d65746164617461a0' + '4a61706956657273696f6e427631',
    );
  });
  it('orders non-ASCII keys by their UTF-8 bytes', () => {
    // 'é' (c3 a9, 2 bytes) sorts after 'z' (1 byte) and 'zz' < 'é' bytewise (0x7a < 0xc3)
    expect(bare({ é: 1, z: 2, zz: 3 })).toBe('a3417a02427a7a0342c3a901');
  });
  it('writes each length of string head in its shortest form', () => {
    expect(bare('x'.repeat(23))).toBe('57' + '78'.repeat(23));
    expect(bare('x'.repeat(24))).toBe('5818' + '78'.repeat(24));
    expect(bare('é'.repeat(12))).toBe('5818' + 'c3a9'.repeat(12));
    expect(bare('x'.repeat(256))).toBe('590100' + '78'.repeat(256));
    expect(bare('x'.repeat(70000)).slice(0, 10)).toBe('5a00011170');
  });
  it('writes integers in the shortest head, up to int64', () => {
    expect(bare(255)).toBe('18ff');
    expect(bare(65535)).toBe('19ffff');
    expect(bare(65536)).toBe('1a00010000');
    expect(bare(4294967296)).toBe('1b0000000100000000');
    expect(bare(Number.MAX_SAFE_INTEGER)).toBe('1b001fffffffffffff');
    expect(bare(-4294967297)).toBe('3b0000000100000000');
  });
  it('writes numbers with a fraction as the shortest float', () => {
    expect(bare(0.5)).toBe('f93800');
    expect(bare(2.71)).toBe('fb4005ae147ae147ae');
    expect(bare(0.1)).toBe('fb3fb999999999999a');
    expect(bare(1.401298464324817e-45)).toBe('fa00000001'); // float32's smallest subnormal
  });
  it('refuses NaN and infinities as kube does (NaNConvertReject, InfConvertReject)', () => {
    expect(() => encodeCBOR(NaN)).toThrow(new CBOREncodeError('cbor: unsupported value: floating-point NaN'));
    expect(() => encodeCBOR({ a: Infinity })).toThrow(new CBOREncodeError('cbor: unsupported value: floating-point infinity'));
  });
  it('leaves out undefined fields and writes undefined array elements as null, as JSON.stringify', () => {
    expect(bare({ a: undefined, b: 1 })).toBe('a1416201');
    expect(bare([undefined])).toBe('81f6');
  });
  it('embeds raw items verbatim', () => {
    expect(bare({ items: [new CBORRaw(Buffer.from('a0', 'hex')), new CBORRaw(Buffer.from('f6', 'hex'))] })).toBe('a1456974656d7382a0f6');
  });
  it('encodes a Secret with its data as tag 22 byte strings', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', data: { k: Buffer.from([0, 1, 0xff]).toString('base64') }, type: 'Opaque' };
    const plan: CBORPlan = { fields: new Map([['data', { values: bytes }]]) };
    expect(hex(encodeCBOR(secret, { plan }))).toBe(
      'd9d9f7a4' + '4464617461' + 'a1416bd6430001ff' + '446b696e64' + '46536563726574' + '4474797065' + '464f7061717565' + '4a61706956657273696f6e' + '427631',
    );
  });
  it('the output decodes with cbor-x to the same JSON form (byte strings as bytes)', () => {
    const obj = { metadata: { name: 'x', labels: { a: 'b' } }, spec: { replicas: 3, ratio: 0.25, flag: true, none: null, list: ['p', 1] } };
    // cbor-x gives byte strings as Buffers (keys too, in a Map) and tag 22 as a Tag.
    const decoded = new Decoder({ mapsAsObjects: false, useRecords: false }).decode(encodeCBOR(obj));
    const text = (v: unknown): unknown => {
      if (v instanceof Tag) return Buffer.from(v.value as Uint8Array).toString('base64');
      if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
      if (Array.isArray(v)) return v.map(text);
      if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [text(k), text(x)]));
      return v;
    };
    expect(text(decoded)).toEqual(obj);
    const withBytes = new Decoder({ mapsAsObjects: false, useRecords: false }).decode(encodeCBOR({ b: 'AQI=' }, { plan: { fields: new Map([['b', bytes]]) } }));
    expect(text(withBytes)).toEqual({ b: 'AQI=' });
  });
});

describe('encodeCBORWatchEvent', () => {
  it('writes {type, object} with the object as its own self-described item (a RawExtension)', () => {
    const object = encodeCBOR({ kind: 'K' });
    const ev = hex(encodeCBORWatchEvent('ADDED', object));
    // {'type': 'ADDED', 'object': 55799({'kind': 'K'})}
    expect(ev).toBe('d9d9f7a2' + '4474797065' + '454144444544' + '466f626a656374' + 'd9d9f7a1446b696e64414b');
    // The object's bytes without their prefix get one.
    expect(hex(encodeCBORWatchEvent('ADDED', encodeCBOR({ kind: 'K' }, { selfDescribed: false })))).toBe(ev);
  });
});

describe('CBORPlanCompiler', () => {
  const defs: Record<string, any> = {
    'io.k8s.api.core.v1.Secret': {
      type: 'object',
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
    },
    'io.k8s.api.core.v1.SecretList': { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/definitions/io.k8s.api.core.v1.Secret' } } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' }, generation: { type: 'integer', format: 'int64' } } },
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': {
      type: 'object',
      properties: {
        maximum: { type: 'number', format: 'double' },
        default: { $ref: '#/definitions/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON' },
        items: { $ref: '#/definitions/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray' },
        properties: { type: 'object', additionalProperties: { $ref: '#/definitions/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps' } },
      },
    },
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': {},
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': {},
  };
  const compiler = new CBORPlanCompiler((n) => defs[n]);

  it('has no plan for a kind without []byte or float64 fields', () => {
    expect(compiler.definition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')).toBeUndefined();
  });
  it('finds []byte through lists and maps', () => {
    const list = { items: [{ metadata: { name: 'a' }, data: { k: 'AQID' } }] };
    expect(bare(list, compiler.definition('io.k8s.api.core.v1.SecretList'))).toBe('a1456974656d7381a2' + '4464617461a1416bd643010203' + '486d65746164617461a1446e616d654161');
  });
  it('writes JSONSchemaProps numbers as floats, through nested schemas, items and JSON defaults', () => {
    const plan = compiler.definition('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps');
    const schema = { properties: { n: { maximum: 10, items: { maximum: 2, default: { a: [1] } } } } };
    // {'properties': {'n': {'items': {'default': {'a': [1.0]}, 'maximum': 2.0}, 'maximum': 10.0}}}
    expect(bare(schema, plan)).toBe(
      'a1' + '4a70726f70657274696573' + 'a1' + '416e' + 'a2' + '456974656d73' + 'a2' + '4764656661756c74' + 'a14161' + '81f93c00' + '476d6178696d756d' + 'f94000' + '476d6178696d756d' + 'f94900',
    );
  });
});
