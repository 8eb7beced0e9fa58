import { decodeGoJSON, goJSONDepthError, goJSONSyntaxError } from './gojson.js';

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

describe('nesting past encoding/json\'s 10000 levels', () => {
  const nested = (open: string, close: string, n: number) => `${open.repeat(n)}${close.repeat(n)}`;
  test('10000 levels are valid, the 10001st bracket is the error (no recursion: 100k levels are read too)', () => {
    expect(err(nested('[', ']', 10000))).toBeUndefined();
    expect(err(nested('[', ']', 10001))).toBe("invalid character '[' exceeded max depth");
    expect(err(`{"a":${nested('{"a":', '}', 100000).replace('{"a":}', '{"a":1}')}}`)).toBe("invalid character '{' exceeded max depth");
    // Go reports the first error in the document: one before the depth is reached wins.
    expect(err(`[x${nested('[', ']', 20000)}`)).toBe("invalid character 'x' looking for beginning of value");
    expect(err(`${'['.repeat(50000)}`)).toBe("invalid character '[' exceeded max depth");
  });
  test('the depth check of a document JSON.parse accepted counts brackets outside strings only', () => {
    expect(goJSONDepthError(Buffer.from(nested('[', ']', 10000)))).toBeUndefined();
    expect(goJSONDepthError(Buffer.from(nested('[', ']', 10001)))).toBe("invalid character '[' exceeded max depth");
    expect(goJSONDepthError(Buffer.from(`{"a":"${'['.repeat(30000)}\\"[","b":${nested('{"c":', '}', 3).replace('{"c":}', '{"c":1}')}}`))).toBeUndefined();
  });
  test('decodeGoJSON refuses a document too deep rather than parsing it', () => {
    expect(decodeGoJSON(Buffer.from(nested('[', ']', 10001)))).toEqual({ ok: false, message: "invalid character '[' exceeded max depth" });
  });
});
