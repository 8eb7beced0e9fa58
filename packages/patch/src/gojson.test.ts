import { decodeGoJSON, goJSONSyntaxError } from './gojson.js';

const err = (s: string | Uint8Array) => goJSONSyntaxError(typeof s === 'string' ? Buffer.from(s) : s);

describe('Go encoding/json syntax errors', () => {
  test.each([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['{"a":1}}', "invalid character '}' after top-level value"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['tru', 'unexpected end of JSON input'],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul', 'unexpected end of JSON input'],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ])('%j', (input, message) => {
    expect(err(input)).toBe(message);
  });

  test('non-ASCII bytes are named as Latin-1 runes, as Go prints a byte', () => {
    expect(err(Buffer.from('é'))).toBe("invalid character 'Ã' looking for beginning of value");
    expect(err(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe("invalid character 'ï' looking for beginning of value");
  });

  test('valid documents decode', () => {
    expect(err('{"a":[1,2.5e3,-0,true,false,null,"\\u00e9\\n"]}')).toBeUndefined();
    expect(decodeGoJSON(Buffer.from(' {"a":1} '))).toEqual({ ok: true, value: { a: 1 } });
  });
});
