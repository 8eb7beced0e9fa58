import { canonicalQuantity, canonicalQuantityJSON, parseQuantity, quantityFormatError, quantityNumericError, quantitySuffixError } from './quantity.js';

const canonical = (s: string) => {
  const q = parseQuantity(s);
  return typeof q === 'string' ? q : canonicalQuantity(q);
};

describe('resource.Quantity as kube decodes and writes it', () => {
  test.each([
    ['1000m', '1'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['100Mi', '100Mi'],
    ['8Mi', '8Mi'],
    ['1000M', '1G'],
    ['1000', '1k'],
    ['100', '100'],
    ['0', '0'],
    ['-0', '0'],
    ['0.0', '0'],
    ['-0.5', '-500m'],
    ['.001Ki', '1024m'],
    ['.000000000001Ki', '2n'],
    ['0.0000000001', '1n'],
    ['1e-10', '1e-9'],
    ['1e2', '100'],
    ['12e6', '12e6'],
    ['123456789012345678901', '123456789012345678901'],
  ])('%s is written %s', (input, output) => {
    expect(canonical(input)).toBe(output);
  });

  test('input Go keeps as its canonical string stays as written', () => {
    for (const s of ['1e3', '+1', '01', '1.', '250m', '64Mi']) expect(canonical(s)).toBe(s);
  });

  test('the three errors', () => {
    expect(canonical('half')).toBe(quantityFormatError);
    expect(canonical('1 GB')).toBe(quantityFormatError);
    expect(canonical('')).toBe(quantityFormatError);
    expect(canonical('1Ki2')).toBe(quantitySuffixError);
    expect(canonical('1e')).toBe(quantitySuffixError);
    expect(canonical('1234567890123456789.5.')).toBe(quantityFormatError);
    expect(canonical('1234567890123456789012.')).toBe('1234567890123456789012');
    expect(quantityFormatError).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(quantityNumericError).toBe('unable to parse numeric part of quantity');
  });

  test('JSON values: numbers are read as their text, other types are format errors, spaces are trimmed', () => {
    expect(canonicalQuantityJSON(0.5)).toBe('500m');
    expect(canonicalQuantityJSON(2)).toBe('2');
    expect(canonicalQuantityJSON(' 2Gi ')).toBe('2Gi');
    expect(canonicalQuantityJSON(true)).toEqual({ error: quantityFormatError });
    expect(canonicalQuantityJSON({ a: 1 })).toEqual({ error: quantityFormatError });
  });

  test('a value far below a nano rounds up without huge arithmetic', () => {
    expect(canonical('1e-999999999')).toBe('1e-9');
  });
});
