/**
 * Go regular expressions (RE2 syntax) as CRD patterns and CEL use them: translated where
 * JavaScript can run them the same, on @bufbuild/re2 otherwise, and the same answers either way.
 */
import { RE2JS } from '@bufbuild/re2';
import { compileGoRegexp } from './goregexp.js';

const cases: [pattern: string, input: string, matches: boolean][] = [
  // Escaped punctuation that a Unicode-mode RegExp refuses (openshift/api's cron schedule pattern).
  ['^(?:[0-9]|[1-5][0-9])(?:\\-[0-9])?(?:\\,[0-9])*$', '5-6', true],
  ['^(?:[0-9]|[1-5][0-9])(?:\\-[0-9])?(?:\\,[0-9])*$', '5,6,7', true],
  ['^(?:[0-9]|[1-5][0-9])(?:\\-[0-9])?(?:\\,[0-9])*$', '5;6', false],
  // RE2's \s is ASCII white space without \v; JavaScript's \s also takes Unicode spaces.
  ['^\\s$', '\u00a0', false],
  ['^\\s$', '\t', true],
  ['^[\\s]$', '\u2003', false],
  ['^\\S+$', 'a\u00a0b', true],
  // `.` stops only at \n in Go; JavaScript's also at \r and the line separators.
  ['^a.b$', 'a\rb', true],
  ['^a.b$', 'a\nb', false],
  ['(?s)^a.b$', 'a\nb', true],
  ['^.$', '😀', true],
  // \pL and POSIX classes, (?P<name>), \Q…\E, \A and \z, leading flags.
  ['^\\pL+$', 'héllo', true],
  ['^\\PL+$', '123', true],
  ['^[[:alpha:]]+[[:digit:]]$', 'abc1', true],
  ['^[^[:space:]]+$', 'a b', false],
  ['^(?P<word>\\w+)$', 'abc', true],
  ['^\\Q1.5*\\E$', '1.5*', true],
  ['^\\Q1.5*\\E$', '125', false],
  ['\\Aab\\z', 'ab', true],
  ['(?i)^ABC$', 'abc', true],
  ['^[]a]+$', ']a]', true],
  ['^a{2,3}$', 'aaa', true],
  // Not translated, run on RE2 itself: a flag group inside the pattern, an octal escape, a script, a literal brace.
  ['^a(?i:b)c$', 'aBc', true],
  ['^a(?i:b)c$', 'ABc', false],
  ['^\\101$', 'A', true],
  ['^\\p{Greek}+$', 'αβγ', true],
  ['^a{$', 'a{', true],
];

test.each(cases)('%s on %j is %s, as RE2 answers', (pattern, input, matches) => {
  expect(compileGoRegexp(pattern).test(input)).toBe(matches);
  expect(RE2JS.compile(pattern).test(input)).toBe(matches);
});

test('a translated pattern offers a global RegExp for scanning; one run on RE2 does not (flags inside, Unicode classes, non-ASCII)', () => {
  expect(compileGoRegexp('\\d+').global?.flags).toContain('g');
  for (const p of ['a(?i:b)', '\\pL', 'é']) expect(compileGoRegexp(p).global).toBeUndefined();
  expect(compileGoRegexp('(?i)ab').global?.flags).toBe('gi');
});

test('patterns that backtrack exponentially still answer: V8 falls back to its linear engine, RE2 is linear', () => {
  // A backtracking engine would run for hours on these; RE2 answers at once.
  const input = `${'a'.repeat(48)}!`;
  expect(compileGoRegexp('^(a+)+$').test(input)).toBe(false);
  expect(compileGoRegexp('^(a|a)*$').test(input)).toBe(false);
  expect(compileGoRegexp('^(a+)+$').test('a'.repeat(48))).toBe(true);
  expect(compileGoRegexp('(?i)^(a+)+$').test(input)).toBe(false);
  // A hostname pattern real CRDs carry, on a long near-miss.
  const hostname = '^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])\\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\\-]*[A-Za-z0-9])$';
  expect(compileGoRegexp(hostname).test(`${'a.'.repeat(2000)}-`)).toBe(false);
  expect(compileGoRegexp(hostname).test('api.example.com')).toBe(true);
});

test('inputs beyond the BMP are matched in code points, as Go does', () => {
  expect(compileGoRegexp('^[^x]$').test('😀')).toBe(true);
  expect(compileGoRegexp('^.{2}$').test('😀a')).toBe(true);
  expect(compileGoRegexp('^[a-z]+$').test('ab😀')).toBe(false);
});

test('a pattern Go would refuse throws', () => {
  expect(() => compileGoRegexp('(')).toThrow();
  expect(() => compileGoRegexp('a(?=b)')).toThrow();
});
