import { isStatusError } from './status.js';
import { escapeFieldValue, parseFieldSelector } from './fields.js';

function errorOf(s: string) {
  try {
    parseFieldSelector(s);
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe('parseFieldSelector', () => {
  test('parses the three operators into = and != requirements', () => {
    const sel = parseFieldSelector('metadata.name==a,metadata.namespace=b,status.phase!=Running');
    expect(sel.requirements).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'metadata.namespace', operator: '=', value: 'b' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
    expect(sel.empty).toBe(false);
  });

  test('terms are sorted as raw strings, which fixes toString', () => {
    expect(parseFieldSelector('b=1,a!=2').toString()).toBe('a!=2,b=1');
  });

  test('empty selectors and empty terms', () => {
    expect(parseFieldSelector('').empty).toBe(true);
    expect(parseFieldSelector(',,').empty).toBe(true);
    expect(parseFieldSelector('a=b,').requirements).toHaveLength(1);
  });

  test('escaped characters in values', () => {
    const sel = parseFieldSelector('a=x\\,y\\=z\\\\,b=c');
    expect(sel.requirements).toEqual([
      { field: 'a', operator: '=', value: 'x,y=z\\' },
      { field: 'b', operator: '=', value: 'c' },
    ]);
    expect(sel.toString()).toBe('a=x\\,y\\=z\\\\,b=c');
    expect(escapeFieldValue('a,b=c\\')).toBe('a\\,b\\=c\\\\');
  });

  test('matching treats a missing field as the empty string', () => {
    const fields: Record<string, string> = { 'metadata.name': 'a', 'status.phase': 'Pending' };
    const get = (f: string) => fields[f];
    expect(parseFieldSelector('metadata.name=a,status.phase!=Running').matches(get)).toBe(true);
    expect(parseFieldSelector('metadata.name=b').matches(get)).toBe(false);
    expect(parseFieldSelector('spec.nodeName=').matches(get)).toBe(true);
    expect(parseFieldSelector('spec.nodeName!=').matches(get)).toBe(false);
    expect(parseFieldSelector('').matches(get)).toBe(true);
  });

  test('requiresExactMatch', () => {
    const sel = parseFieldSelector('metadata.name=a,metadata.namespace!=b');
    expect(sel.requiresExactMatch('metadata.name')).toBe('a');
    expect(sel.requiresExactMatch('metadata.namespace')).toBeUndefined();
  });

  test.each([
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['x=1,b', "invalid selector: 'x=1,b'; can't understand 'b'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('%j is a 400 BadRequest', (input, message) => {
    const err = errorOf(input);
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });
});
