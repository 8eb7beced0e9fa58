/**
 * kube's regex library (k8s.io/apiserver pkg/cel/library/regex.go): `find` and `findAll` with
 * Go's FindString / FindAllString semantics (leftmost-first matches; an empty match right after
 * a previous match is skipped). Also cel-go's global `matches(s, re)`.
 *
 * Patterns are Go's (RE2 syntax), translated to a JavaScript RegExp by @windlass/schemas'
 * compileGoRegexp, or run on @bufbuild/re2 where they do not translate.
 */
import { celFunc, celMethod, CelScalar, listType } from '@bufbuild/cel';
import { structural } from '@windlass/schemas';

type GoRegexp = structural.GoRegexp;

const { STRING, INT } = CelScalar;

/** The pattern as a global RegExp for scanning, or RE2 itself where it did not translate. */
function compile(pattern: string): GoRegexp {
  try {
    return structural.compileGoRegexp(pattern);
  } catch (err) {
    throw new Error(`Illegal regex: error parsing regexp: ${(err as Error).message}`);
  }
}

/** regexp.FindAllString(s, n): n < 0 for every match. */
function findAll(s: string, pattern: string, n: bigint): string[] {
  const compiled = compile(pattern);
  // @bufbuild/re2 answers whether a pattern matches, not where: scanning needs the translation.
  if (!compiled.global) throw new Error(`find and findAll do not support this pattern in Windlass: ${pattern}`);
  const re = compiled.global;
  const out: string[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0n || BigInt(out.length) < n) && pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      // Past the empty match, one code point on.
      pos = start < s.length ? start + (s.codePointAt(start)! > 0xffff ? 2 : 1) : s.length + 1;
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(m[0]);
  }
  return out;
}

export const regexFunctions = [
  // cel-go's standard global `matches(s, re)` (overload `matches`), which @bufbuild/cel has only as a method.
  celFunc('matches', [STRING, STRING], CelScalar.BOOL, (s, re) => structural.compileGoRegexp(re).test(s)),
  celMethod('find', STRING, [STRING], STRING, function (p) { return findAll(this, p, 1n)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (p) { return findAll(this, p, -1n); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (p, n) { return findAll(this, p, n); }),
];
