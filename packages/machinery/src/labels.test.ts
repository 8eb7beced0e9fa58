import { isStatusError, type StatusError } from './status.js';
import { labelSelectorFromSet, parseLabelSelector } from './labels.js';

function parseError(s: string): StatusError {
  try {
    parseLabelSelector(s);
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

const keyRegexMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector: accepted syntax', () => {
  test.each([
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x==a', 'x==a'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in ()', 'x in ()'],
    ['  x ,  !y ', 'x,!y'],
    ['x=a,a=x', 'a=x,x=a'],
    ['example.com/app=web', 'example.com/app=web'],
    ['notin=in', 'notin=in'],
  ])('%j renders as %j', (input, rendered) => {
    expect(parseLabelSelector(input).toString()).toBe(rendered);
  });

  test('empty selector matches everything, including absent labels', () => {
    const sel = parseLabelSelector('');
    expect(sel.empty).toBe(true);
    expect(sel.matches(undefined)).toBe(true);
    expect(sel.matches({ a: 'b' })).toBe(true);
    expect(parseLabelSelector('a').empty).toBe(false);
  });

  test('requirements are sorted by key with sorted values', () => {
    expect(parseLabelSelector('z in (b,a),a').requirements).toEqual([
      { key: 'a', operator: 'exists', values: [] },
      { key: 'z', operator: 'in', values: ['a', 'b'] },
    ]);
  });
});

describe('parseLabelSelector: matching', () => {
  test.each([
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x>1', {}, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x!=a', {}, true],
    ['x in ()', { x: '' }, true],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
  ])('%j against %j → %s', (sel, labels, want) => {
    expect(parseLabelSelector(sel).matches(labels as Record<string, string>)).toBe(want);
  });

  test('labelSelectorFromSet requires every pair', () => {
    const sel = labelSelectorFromSet({ b: '2', a: '1' });
    expect(sel.toString()).toBe('a=1,b=2');
    expect(sel.matches({ a: '1', b: '2', c: '3' })).toBe(true);
    expect(sel.matches({ a: '1' })).toBe(false);
  });
});

describe('parseLabelSelector: errors are 400 BadRequest with kube messages', () => {
  test.each([
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a!b', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (b =)', "unable to parse requirement: found '=', expected: ',' or ')'"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x@y=1', `unable to parse requirement: <nil>: Invalid value: "x@y": ${keyRegexMsg}`],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRegexMsg}`],
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`],
    ['x in (-a,b)', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${valueRegexMsg}`],
  ])('%j', (input, message) => {
    const err = parseError(input);
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });

  test('several invalid values are reported together in brackets', () => {
    expect(parseError('x in (-a,-b)').status.message).toBe(
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${valueRegexMsg}, values[1][x]: Invalid value: "-b": ${valueRegexMsg}]`,
    );
  });
});
