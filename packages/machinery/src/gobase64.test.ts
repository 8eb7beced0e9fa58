import { canonicalBase64JSON, goBase64Decode } from './gobase64.js';

describe("[]byte fields: Go's StdEncoding", () => {
  test('canonical text stays, other accepted text is rewritten as Go encodes the bytes', () => {
    expect(canonicalBase64JSON('aGVsbG8=')).toBe('aGVsbG8=');
    expect(canonicalBase64JSON('')).toBe('');
    expect(canonicalBase64JSON('aGVs\nbG8=')).toBe('aGVsbG8=');
    expect(canonicalBase64JSON('aGVsbG9=')).toBe('aGVsbG8=');
  });
  test.each([
    ['not base64!', 3],
    ['!!!!', 0],
    ['aGVsbG8', 4],
    ['aGVsbG8==', 8],
    ['YQ==x', 4],
    ['Y===', 1],
    ['YQ=', 3],
  ])('%j is refused at byte %d', (input, offset) => {
    expect(canonicalBase64JSON(input)).toEqual({ error: `illegal base64 data at input byte ${offset}` });
  });
});

describe('RawURLEncoding (continue tokens)', () => {
  test('no padding; = is an illegal byte', () => {
    expect(goBase64Decode(Buffer.from('aGk'), { url: true, padded: false })).toEqual(Buffer.from('hi'));
    expect(goBase64Decode(Buffer.from('aGk='), { url: true, padded: false })).toEqual({ error: 'illegal base64 data at input byte 3' });
    expect(goBase64Decode(Buffer.from('a'), { url: true, padded: false })).toEqual({ error: 'illegal base64 data at input byte 0' });
  });
});
