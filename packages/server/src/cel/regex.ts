/**
 * kube's regex library (k8s.io/apiserver pkg/cel/library/regex.go): `find` and `findAll` with
 * Go's FindString / FindAllString semantics (leftmost-first matches; an empty match right after
 * a previous match is skipped).
 *
 * Patterns are RE2 syntax run on JavaScript's RegExp (Unicode mode): RE2's leading flag groups,
 * `\A`, `\z`, `\Q…\E` and POSIX classes are translated; RE2 syntax beyond those that JavaScript
 * reads differently is not.
 */
import { celMethod, CelScalar, listType } from '@bufbuild/cel';

const { STRING, INT } = CelScalar;

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const cache = new Map<string, RegExp | Error>();

/** The RE2 pattern as a global JavaScript RegExp. */
function compile(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      let flags = 'gu';
      let src = pattern;
      const lead = /^\(\?([imsU]+)\)/.exec(src);
      if (lead && !lead[1].includes('U')) {
        for (const f of new Set(lead[1])) flags += f;
        src = src.slice(lead[0].length);
      }
      src = src
        .replace(/\\Q(.*?)(?:\\E|$)/gs, (_, lit: string) => lit.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
        // RE2 lets any punctuation be escaped; Unicode-mode RegExp only its own syntax characters.
        .replace(/\\([^A-Za-z0-9\s])/g, (m, c: string) => ('^$\\.*+?()[]{}|/'.includes(c) ? m : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`))
        .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => (posixClasses[name] === undefined || neg ? m : posixClasses[name]))
        .replace(/\\A/g, '^')
        .replace(/\\z/g, '$(?![\\s\\S])');
      re = new RegExp(src, flags);
    } catch (err) {
      re = new Error(`Illegal regex: error parsing regexp: ${(err as Error).message}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  if (re instanceof Error) throw re;
  return re;
}

/** regexp.FindAllString(s, n): n < 0 for every match. */
function findAll(s: string, pattern: string, n: bigint): string[] {
  const re = compile(pattern);
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
  celMethod('find', STRING, [STRING], STRING, function (p) { return findAll(this, p, 1n)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (p) { return findAll(this, p, -1n); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (p, n) { return findAll(this, p, n); }),
];
