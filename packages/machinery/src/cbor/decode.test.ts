/**
 * Expectations ported from kube's tests of its CBOR decoder (k8s.io/apimachinery v0.35.7,
 * pkg/runtime/serializer/cbor/internal/modes/decode_test.go and appendixa_test.go, the cases
 * decoding into interface{}), with the messages of fxamacker/cbor v2.9.0's errors.
 */
import { CBORDecodeError, decodeCBOR, interpretCBORTypeMeta } from './decode.js';
import { encodeCBOR } from './encode.js';

const h = (s: string) => Buffer.from(s, 'hex');
const decode = (s: string) => decodeCBOR(h(s));
const fails = (s: string) => {
  try {
    decodeCBOR(typeof s === 'string' ? h(s) : s);
  } catch (err) {
    if (err instanceof CBORDecodeError) return err.message;
    throw err;
  }
  throw new Error(`decoding ${s} did not fail`);
};
const unacceptable = (type: string, msg: string) => `cbor: data item of cbor type ${type} is not accepted by protocol: ${msg}`;

describe('decodeCBOR: unsigned and negative integers', () => {
  it.each([
    ['0a', 10], ['00', 0], ['20', -1], ['1b001fffffffffffff', Number.MAX_SAFE_INTEGER], ['3b001ffffffffffffe', -Number.MAX_SAFE_INTEGER],
  ])('%s → %d', (hex, want) => expect(decode(hex)).toBe(want));
  it('int64 bounds are accepted', () => {
    expect(decode('1b7fffffffffffffff')).toBe(9223372036854775807);
    expect(decode('3b7fffffffffffffff')).toBe(-9223372036854775808);
  });
  it('refuses what overflows int64', () => {
    expect(fails('1bffffffffffffffff')).toBe("cbor: cannot unmarshal positive integer into Go value of type int64 (18446744073709551615 overflows Go's int64)");
    expect(fails('3bffffffffffffffff')).toBe("cbor: cannot unmarshal negative integer into Go value of type int64 (-18446744073709551616 overflows Go's int64)");
  });
});

describe('decodeCBOR: byte and text strings', () => {
  it('a byte string is a string', () => {
    expect(decode('40')).toBe('');
    expect(decode('4161')).toBe('a');
  });
  it('a byte string in tag 22 becomes its base64 (how []byte reaches the JSON form)', () => {
    expect(decode('d64401020304')).toBe('AQIDBA==');
  });
  it('tags 21 and 23 become base64url and hex', () => {
    expect(decode('d54401020304')).toBe('AQIDBA');
    expect(decode('d74401020304')).toBe('01020304');
  });
  it('the expected-later-encoding tag applies to byte strings inside the item, the innermost tag winning', () => {
    expect(decode('d682440102030441ff')).toEqual(['AQIDBA==', '/w==']);
    expect(decode('d681d74401020304')).toEqual(['01020304']);
    expect(decode('d6a1410041ff')).toEqual({ 'AA==': '/w==' });
  });
  it('refuses a text string with invalid UTF-8', () => {
    expect(fails('6180')).toBe('cbor: invalid UTF-8 string');
  });
  it('accepts indefinite-length strings', () => {
    expect(decode('7f616161626163ff')).toBe('abc');
    expect(decode('5f42010243030405ff')).toBe('\x01\x02\x03\x04\x05');
    expect(decode('60')).toBe('');
  });
  it('refuses chunks of another type or of indefinite length', () => {
    expect(fails('5f6161ff')).toBe('cbor: wrong element type UTF-8 text string for indefinite-length byte string');
    expect(fails('5f5fffff')).toBe('cbor: indefinite-length byte string chunk is not definite-length');
  });
});

describe('decodeCBOR: arrays and maps', () => {
  it('nested indefinite-length arrays', () => {
    expect(decode('9f9f8080ff9f8080ffff')).toEqual([[[], []], [[], []]]);
  });
  it('nested indefinite-length maps', () => {
    expect(decode('bf6141bf616101616202ff6142bf616901616a02ffff')).toEqual({ A: { a: 1, b: 2 }, B: { i: 1, j: 2 } });
  });
  it.each([
    ['a2614101614102', '"A"'], // {"A": 1, "A": 2}
    ['a2414101414102', '"A"'], // {'A': 1, 'A': 2}
    ['a2414101614102', '"A"'], // {'A': 1, "A": 2}
    ['a25f426865436c6c6fff015f416844656c6c6fff02', '"hello"'], // chunked differently
    ['a27f626865636c6c6fff017f616864656c6c6fff02', '"hello"'],
  ])('refuses a repeated key %s', (hex, key) => {
    expect(fails(hex)).toBe(`cbor: found duplicate map key ${key} at map element index 1`);
  });
  it('names the index of the repeated entry and refuses a repetition deep inside', () => {
    expect(fails('a3416101416202416103')).toBe('cbor: found duplicate map key "a" at map element index 2');
    expect(fails('a1416ba2416101416102')).toBe('cbor: found duplicate map key "a" at map element index 1');
  });
  it('refuses keys that are not strings', () => {
    expect(fails('a1fb40091eb851eb851f63706965')).toBe('cbor: cannot unmarshal primitives into Go value of type string');
    expect(fails('a201020304')).toBe('cbor: cannot unmarshal positive integer into Go value of type string');
  });
  it('takes byte-string and text-string keys alike', () => {
    expect(decode('a143414243187b')).toEqual({ ABC: 123 });
    expect(decode('a26161016162820203')).toEqual({ a: 1, b: [2, 3] });
  });
  it('keeps __proto__ as an own key, as JSON.parse', () => {
    const v = decode('a1495f5f70726f746f5f5fa0') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });
  it('reports the path of the failing entry', () => {
    // {'kind': ['a', "\x80"]}
    expect(() => decode('a1446b696e6482616' + '16180')).toThrow(CBORDecodeError);
    try {
      decode('a1446b696e648261616180');
    } catch (err) {
      expect((err as CBORDecodeError).path).toEqual(['kind', 1]);
    }
  });
});

describe('decodeCBOR: floats', () => {
  it.each(['f97c00', 'fa7f800000', 'fb7ff0000000000000', 'f9fc00', 'faff800000', 'fbfff0000000000000'])('refuses infinity %s', (hex) => {
    expect(fails(hex)).toBe(unacceptable('primitives', 'floating-point infinity'));
  });
  it.each(['f97e00', 'fa7fc00000', 'fb7ff8000000000000'])('refuses NaN %s', (hex) => {
    expect(fails(hex)).toBe(unacceptable('primitives', 'floating-point NaN'));
  });
  it.each([
    ['fb0000000000000001', 5e-324], ['fb7fefffffffffffff', 1.7976931348623157e308], ['fb47efffffe0000000', 3.4028234663852886e38],
    ['fa7f7fffff', 3.4028234663852886e38], ['f94200', 3], ['fb4000000000000000', 2], ['fa40000000', 2], ['f94000', 2],
  ])('%s → %d', (hex, want) => expect(decode(hex)).toBe(want));
});

describe('decodeCBOR: simple values', () => {
  it('accepts false, true and null', () => {
    expect(decode('f4')).toBe(false);
    expect(decode('f5')).toBe(true);
    expect(decode('f6')).toBe(null);
  });
  it('refuses undefined and every other simple value', () => {
    expect(fails('f7')).toBe(unacceptable('primitives', 'simple value 23 is not recognized'));
    for (let i = 0; i <= 255; i++) {
      if (i >= 20 && i <= 23) continue;
      const bytes = i <= 23 ? [0xe0 | i] : [0xf8, i];
      const want = i >= 24 && i <= 31 ? `cbor: invalid simple value ${i} for type primitives` : unacceptable('primitives', `simple value ${i} is not recognized`);
      expect(fails(Buffer.from(bytes).toString('hex'))).toBe(want);
    }
  });
});

describe('decodeCBOR: tags', () => {
  it('tag 0 becomes its RFC 3339 text', () => {
    expect(decode('c074323030362d30312d30325431353a30343a30355a')).toBe('2006-01-02T15:04:05Z');
  });
  it('tag 0 must enclose a text string holding an RFC 3339 time', () => {
    expect(fails('c054323030362d30312d30325431353a30343a30355a')).toBe('cbor: tag number 0 must be followed by text string, got byte string');
    expect(fails('c06474657874')).toBe('cbor: cannot set text for time.Time: parsing time "text" as "2006-01-02T15:04:05Z07:00": cannot parse "text" as "2006"');
  });
  it.each([
    ['c11a43b940e5', '2006-01-02T15:04:05Z'], ['c1f93c00', '1970-01-01T00:00:01Z'], ['c1fa3f800000', '1970-01-01T00:00:01Z'],
    ['c1fb3ff0000000000000', '1970-01-01T00:00:01Z'], ['c120', '1969-12-31T23:59:59Z'], ['c1f9bc00', '1969-12-31T23:59:59Z'],
    ['c1fabf800000', '1969-12-31T23:59:59Z'], ['c1fbbff0000000000000', '1969-12-31T23:59:59Z'],
    ['c11a514b67b0', '2013-03-21T20:04:00Z'], ['c1fb41d452d9ec200000', '2013-03-21T20:04:00.5Z'],
  ])('tag 1 %s → %s', (hex, want) => expect(decode(hex)).toBe(want));
  it('tag 1 beyond year 9999 is refused', () => {
    expect(fails('c11b0000003afff44181')).toBe(
      'cbor: decoded time cannot be represented in RFC3339 format with sub-second precision: Time.MarshalText: year outside of range [0,9999]',
    );
  });
  it('tag 1 with an infinity or NaN is refused', () => {
    expect(fails('c1f97c00')).toBe(unacceptable('primitives', 'floating-point infinity'));
    expect(fails('c1f9fc00')).toBe(unacceptable('primitives', 'floating-point infinity'));
    expect(fails('c1f97e00')).toBe(unacceptable('primitives', 'floating-point NaN'));
  });
  it('bignums are refused', () => {
    expect(fails('c249010000000000000000')).toBe(unacceptable('tag', 'bignum'));
    expect(fails('c349010000000000000000')).toBe(unacceptable('tag', 'bignum'));
  });
  it('unrecognized tags are transparent: their content is decoded', () => {
    expect(decode('c48221196ab3')).toEqual([-2, 27315]);
    expect(decode('c5822003')).toEqual([-1, 3]);
    expect(decode('d818456449455446')).toBe('dIETF');
    expect(decode('d82076687474703a2f2f7777772e6578616d706c652e636f6d')).toBe('http://www.example.com');
  });
  it('the self-described tag is accepted anywhere', () => {
    // 55799({'apiVersion': 'v', 'kind': 'k', 'metadata': {'name': 'foo'}}) (cbor_test.go)
    const data = Buffer.from('\xd9\xd9\xf7\xa3\x4aapiVersion\x41v\x44kind\x41k\x48metadata\xa1\x44name\x43foo', 'latin1');
    expect(decodeCBOR(data)).toEqual({ apiVersion: 'v', kind: 'k', metadata: { name: 'foo' } });
    expect(decode('81d9d9f701')).toEqual([1]);
  });
});

describe('decodeCBOR: well-formedness and limits', () => {
  it('refuses empty, truncated and trailing data', () => {
    expect(fails('')).toBe('EOF');
    expect(fails('a1')).toBe('unexpected EOF');
    expect(fails('45616263')).toBe('unexpected EOF');
    expect(fails('0000')).toBe('cbor: 1 bytes of extraneous data starting at index 1');
  });
  it('refuses reserved additional information and stray breaks', () => {
    expect(fails('1c')).toBe('cbor: invalid additional information 28 for type positive integer');
    expect(fails('1f')).toBe('cbor: invalid additional information 31 for type positive integer');
    expect(fails('ff')).toBe('cbor: unexpected "break" code');
    expect(fails('bf01ff')).toBe('cbor: unexpected "break" code');
  });
  it('refuses more than 64 nested levels', () => {
    expect(decode('81'.repeat(63) + '80')).toBeDefined();
    expect(fails('81'.repeat(64) + '80')).toBe('cbor: exceeded max nested level 64');
  });
  it('refuses arrays over 1024 elements and maps over 1024 pairs', () => {
    expect((decodeCBOR(Buffer.concat([h('990400'), Buffer.alloc(1024)])) as unknown[]).length).toBe(1024);
    expect(fails('990401' + '00'.repeat(1025))).toBe('cbor: exceeded max number of elements 1024 for CBOR array');
    expect(fails('9f' + '00'.repeat(1025) + 'ff')).toBe('cbor: exceeded max number of elements 1024 for CBOR array');
    expect(fails('b90401')).toBe('cbor: exceeded max number of key-value pairs 1024 for CBOR map');
  });
  it('well-formedness errors come before the others, wherever they are', () => {
    // {"a": undefined, "b": NaN}: the NaN (well-formedness) is reported, not the undefined
    expect(fails('a24161f74162f97e00')).toBe(unacceptable('primitives', 'floating-point NaN'));
  });
});

describe('decodeCBOR ∘ encodeCBOR', () => {
  it('gives back the JSON form of an object', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ü-name', labels: { 'app.kubernetes.io/name': 'x' }, creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 },
      data: { ['long-key-'.repeat(5)]: 'v'.repeat(300), empty: '' },
      list: [0.5, -3, 4294967296, true, false, null, [], {}],
    };
    expect(decodeCBOR(encodeCBOR(obj))).toEqual(obj);
  });
});

describe('interpretCBORTypeMeta (the serializer reading apiVersion and kind first)', () => {
  // The apiVersion/kind map of cbor_test.go's "self-described cbor tag accepted".
  const meta = Buffer.from('\xd9\xd9\xf7\xa3\x4aapiVersion\x41v\x44kind\x41k\x48metadata\xa1\x44name\x43foo', 'latin1');
  const message = (hex: string) => {
    try {
      interpretCBORTypeMeta(h(hex));
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  };
  it('reads apiVersion and kind and skips the rest unread', () => {
    expect(interpretCBORTypeMeta(meta)).toEqual({ apiVersion: 'v', kind: 'k' });
    // {'apiVersion': 'v', 'x': {'a': 1, 'a': 2}}: the repeated key below is not looked at
    expect(interpretCBORTypeMeta(h('a24a61706956657273696f6e41764178a2416101416102'))).toEqual({ apiVersion: 'v', kind: '' });
  });
  it('null is an empty TypeMeta', () => {
    expect(interpretCBORTypeMeta(h('f6'))).toEqual({ apiVersion: '', kind: '' });
  });
  it('refuses what kube cannot read into TypeMeta', () => {
    expect(message('80')).toBe('cbor: cannot unmarshal array into Go value of type v1.TypeMeta');
    expect(message('a3446b696e6441614378797a01446b696e644162')).toBe('cbor: found duplicate map key "kind" at map element index 2');
    expect(message('a1446b696e6401')).toBe('cbor: cannot unmarshal positive integer into Go struct field v1.TypeMeta.kind of type string');
    expect(message('a1')).toBe('unexpected EOF');
  });
});
