import {
  canonicalQuantity, canonicalQuantityJSON, compareQuantities, isIntegral, parseQuantity, quantityFormatError, quantityNumericError, quantitySign,
  quantitySuffixError, scaledValue, type ParsedQuantity,
} from './quantity.js';

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

  const q = (s: string): ParsedQuantity => {
    const v = parseQuantity(s);
    if (typeof v === 'string') throw new Error(`${s}: ${v}`);
    return v;
  };

  test('Cmp and Sign are exact across suffixes and paths', () => {
    expect(compareQuantities(q('1Gi'), q('1073741824'))).toBe(0);
    expect(compareQuantities(q('500m'), q('0.5'))).toBe(0);
    expect(compareQuantities(q('1Ki'), q('1k'))).toBe(1);
    expect(compareQuantities(q('0'), q('-1m'))).toBe(1);
    // 20 digits take the inf.Dec path; one nano more is still more.
    expect(compareQuantities(q('12345678901234567890.000000001'), q('12345678901234567890'))).toBe(1);
    expect([quantitySign(q('-1m')), quantitySign(q('0')), quantitySign(q('-0')), quantitySign(q('2Ki'))]).toEqual([-1, 0, 0, 1]);
  });

  test('ScaledValue rounds a fraction up; whole numbers are integral', () => {
    expect(scaledValue(q('1500m'), 0)).toBe(2n);
    expect(scaledValue(q('250m'), -3)).toBe(250n);
    expect(scaledValue(q('1Gi'), 0)).toBe(1073741824n);
    expect(scaledValue(q('2k'), 3)).toBe(2n);
    expect(scaledValue(q('1n'), -3)).toBe(1n);
    expect([isIntegral(q('1000m')), isIntegral(q('1500m')), isIntegral(q('1e-9')), isIntegral(q('3Ki'))]).toEqual([true, false, false, true]);
  });

  test('which of Go\'s representations holds the value: the int64 fast path or inf.Dec', () => {
    expect(q('500m')).toEqual({ mantissa: 500n, exponent: -3, format: 'DecimalSI', cached: '500m' });
    expect(q('1000m')).toEqual({ mantissa: 1000n, exponent: -3, format: 'DecimalSI', cached: undefined });
    expect(q('123456789012345678901')).toMatchObject({ mantissa: 123456789012345678901n, exponent: 0, infDec: true });
    expect(q('.5Ki')).toMatchObject({ mantissa: 5120n, exponent: -1, format: 'BinarySI', infDec: true });
    // A value below one in BinarySI is DecimalSI (kube's ParseQuantity avoids printing it rounded).
    expect(q('.0001Ki')).toMatchObject({ format: 'DecimalSI', infDec: true });
    // Go's empty cached string is "not cached" too.
    expect(canonicalQuantity({ mantissa: 1000n, exponent: 0, format: 'DecimalSI', cached: '' })).toBe('1k');
  });
});
