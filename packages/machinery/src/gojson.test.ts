import { goJSONSyntaxError, goMarshalSorted, goQuoteChar, goSprintValue, mayHaveDuplicateKeys, parseJSONWithDuplicates } from './gojson.js';

describe("Go's JSON scanner errors (encoding/json checkValid)", () => {
  test.each([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"apiVersion":"v1","kind":"ConfigMap"', 'unexpected end of JSON input'],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a":1}}', "invalid character '}' after top-level value"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['01', "invalid character '1' after top-level value"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['-', "invalid character ' ' in numeric literal"],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['nul!', "invalid character '!' in literal null (expecting 'l')"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ])('%j: %s', (text, message) => {
    expect(goJSONSyntaxError(Buffer.from(text))).toBe(message);
  });

  test('valid documents have no error', () => {
    for (const t of ['{}', '[]', '1', ' {"a":[1,2.5e3,true,null,"\\u00e9"]} ', '-0.5E-3']) expect(goJSONSyntaxError(Buffer.from(t))).toBeUndefined();
  });

  test('bytes above 0x7f are named as the rune of that value (a continue token that is not base64 JSON)', () => {
    expect(goJSONSyntaxError(Buffer.from('not-a-token', 'base64url'))).toBe("invalid character '\\u009e' looking for beginning of value");
    expect(goQuoteChar(0xe9)).toBe("'é'");
    expect(goQuoteChar(0xa0)).toBe("'\\u00a0'");
  });
});

describe('duplicate fields (sigs.k8s.io/json strict decoding)', () => {
  test('a document without repeated keys passes the cheap check, also with colons in its strings', () => {
    const text = '{"metadata":{"annotations":{"a:b":"http://x:1"}},"data":{"k":"v"}}';
    expect(mayHaveDuplicateKeys(text, JSON.parse(text))).toBe(false);
  });

  test('a repeated key fails the cheap check wherever it is', () => {
    for (const text of ['{"a":1,"a":2}', '{"x":{"y":[{"n":1,"n":2}]}}', '{"a:":"b", "a:":"c"}']) {
      expect(mayHaveDuplicateKeys(text, JSON.parse(text))).toBe(true);
    }
  });

  test('an escaped colon takes the careful parse, which finds nothing', () => {
    const text = '{"a":"x\\u003ay"}';
    expect(mayHaveDuplicateKeys(text, JSON.parse(text))).toBe(true);
    expect(parseJSONWithDuplicates(text)).toEqual({ value: { a: 'x:y' }, duplicates: [] });
  });

  test('a later object merges into the earlier one; scalars and arrays replace; each repetition is reported by its path', () => {
    const text = '{"apiVersion":"v1","data":{"a":"1"},"metadata":{"name":"x","labels":{"l":"1"}},"data":{"b":"2"},' +
      '"spec":{"containers":[{"name":"a","name":"b","ports":[1]}],"containers2":[1],"containers2":[2]},"metadata":{"labels":{"m":"2"}}}';
    const { value, duplicates } = parseJSONWithDuplicates(text);
    expect(value).toEqual({
      apiVersion: 'v1',
      data: { a: '1', b: '2' },
      metadata: { name: 'x', labels: { l: '1', m: '2' } },
      spec: { containers: [{ name: 'b', ports: [1] }], containers2: [2] },
    });
    expect(duplicates).toEqual(['data', 'spec.containers[0].name', 'spec.containers2', 'metadata']);
  });

  test('__proto__ is an ordinary key', () => {
    const { value } = parseJSONWithDuplicates('{"__proto__":{"x":1},"a":1,"a":2}');
    expect(Object.keys(value as object)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('Go printing of decoded values', () => {
  test('%+v of a patch map: sorted keys, no quotes', () => {
    expect(goSprintValue({ metadata: { name: 'x' }, data: { b: '1', a: 2 }, list: ['a', null, true, 1.5] })).toBe('map[data:map[a:2 b:1] list:[a <nil> true 1.5] metadata:map[name:x]]');
  });
  test('json.Marshal of a map: keys sorted, HTML characters escaped', () => {
    expect(goMarshalSorted({ b: '<a&b>', a: { d: 1, c: [2] } })).toBe('{"a":{"c":[2],"d":1},"b":"\\u003ca\\u0026b\\u003e"}');
  });
});
