import { canonicalTimeJSON } from './gotime.js';

describe('metav1.Time', () => {
  test.each([
    ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z'],
    ['2020-01-01T01:02:03.456+02:00', '2019-12-31T23:02:03Z'],
    ['2024-02-29T23:59:59-00:30', '2024-03-01T00:29:59Z'],
    ['2020-01-01T1:02:03Z', '2020-01-01T01:02:03Z'],
  ])('%s is stored as %s (UTC, whole seconds)', (input, output) => {
    expect(canonicalTimeJSON(input, false)).toBe(output);
  });

  test("Go's zero time is written null", () => {
    expect(canonicalTimeJSON('0001-01-01T00:00:00Z', false)).toBeNull();
  });

  test.each([
    ['now', 'parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"'],
    ['2020-13-01T00:00:00Z', 'parsing time "2020-13-01T00:00:00Z": month out of range'],
    ['2021-02-29T00:00:00Z', 'parsing time "2021-02-29T00:00:00Z": day out of range'],
    ['2020-01-01T24:00:00Z', 'parsing time "2020-01-01T24:00:00Z": hour out of range'],
    ['2020-01-01', 'parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    ['2020-01-01T00:00:00', 'parsing time "2020-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ['2020-01-01 00:00:00Z', 'parsing time "2020-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T"'],
    ['2020-01-01T00:00:00Zjunk', 'parsing time "2020-01-01T00:00:00Zjunk": extra text: "junk"'],
    ['2020-1-01T00:00:00Z', 'parsing time "2020-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"'],
  ])('%s is refused: %s', (input, message) => {
    expect(canonicalTimeJSON(input, false)).toEqual({ error: message });
  });

  test('a non-string is refused as json.Unmarshal into a string refuses it', () => {
    expect(canonicalTimeJSON(5, false)).toEqual({ error: 'json: cannot unmarshal number into Go value of type string' });
    expect(canonicalTimeJSON({}, true)).toEqual({ error: 'json: cannot unmarshal object into Go value of type string' });
  });
});

describe('metav1.MicroTime', () => {
  test('exactly six fractional digits, written back in UTC with six', () => {
    expect(canonicalTimeJSON('2020-01-01T00:00:00.123456+01:00', true)).toBe('2019-12-31T23:00:00.123456Z');
    expect(canonicalTimeJSON('2020-01-01T00:00:00.000001Z', true)).toBe('2020-01-01T00:00:00.000001Z');
  });
  test('other precisions are refused with the RFC3339Micro layout named (coordination.leases.bad-time)', () => {
    expect(canonicalTimeJSON('now', true)).toEqual({ error: 'parsing time "now" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "now" as "2006"' });
    expect(canonicalTimeJSON('2020-01-01T00:00:00Z', true)).toEqual({ error: 'parsing time "2020-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"' });
    expect(canonicalTimeJSON('2020-01-01T00:00:00.123456789Z', true)).toEqual({ error: 'parsing time "2020-01-01T00:00:00.123456789Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "789Z" as "Z07:00"' });
  });
});
