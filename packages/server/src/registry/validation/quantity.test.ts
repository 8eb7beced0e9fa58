import { canonicalQuantityString, compareQuantities, goQuantityRepr, parseQuantity, scaledValue } from './quantity.js';

const q = (s: string) => {
  const v = parseQuantity(s);
  if (!v) throw new Error(`unparsable ${s}`);
  return v;
};

describe('resource.Quantity', () => {
  test('canonical forms as kube prints them', () => {
    const cases: Array<[string, string]> = [
      ['1000m', '1'], ['1', '1'], ['0', '0'], ['0.5', '500m'], ['1024Mi', '1Gi'], ['1536Mi', '1536Mi'], ['1.5Gi', '1536Mi'],
      ['100Gi', '100Gi'], ['1e3', '1e3'], ['1000', '1k'], ['12e2', '1200'], ['250m', '250m'], ['160Mi', '160Mi'],
      ['0.1Ki', '102400m'], ['512', '512'], ['2048', '2048'], ['2Ki', '2Ki'], ['1e-10', '1e-9'], ['0.1n', '1n'], ['-1', '-1'], ['.5', '500m'], ['1.', '1.'],
    ];
    for (const [input, want] of cases) expect([input, canonicalQuantityString(input)]).toEqual([input, want]);
  });

  test('comparisons are exact', () => {
    expect(compareQuantities(q('1Gi'), q('1073741824'))).toBe(0);
    expect(compareQuantities(q('2'), q('1'))).toBe(1);
    expect(compareQuantities(q('500m'), q('0.5'))).toBe(0);
    expect(compareQuantities(q('1Ki'), q('1k'))).toBe(1);
    expect(compareQuantities(q('0'), q('-1m'))).toBe(1);
    expect(scaledValue(q('1500m'), 0)).toBe(2n);
    expect(scaledValue(q('250m'), -3)).toBe(250n);
  });

  test('refuses what ParseQuantity refuses', () => {
    for (const bad of ['', 'half', 'ten', '1Gb', '1..2', '--1', '1e3x']) expect([bad, parseQuantity(bad)]).toEqual([bad, undefined]);
    // parseQuantityString reads a missing numerator as 0, whatever its error message's regular expression says.
    for (const zero of ['e3', '+', '.']) expect([zero, canonicalQuantityString(zero), compareQuantities(q(zero), q('0'))]).toEqual([zero, '0', 0]);
  });

  test("Go's %#v of a Quantity value", () => {
    expect(goQuantityRepr(q('2'))).toBe('resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}');
    expect(goQuantityRepr(q('500m'))).toBe('resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}');
    expect(goQuantityRepr(q('1000m'))).toBe('resource.Quantity{i:resource.int64Amount{value:1000, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}');
    expect(goQuantityRepr(q('1Gi'))).toBe('resource.Quantity{i:resource.int64Amount{value:1073741824, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1Gi", Format:"BinarySI"}');
  });
});
