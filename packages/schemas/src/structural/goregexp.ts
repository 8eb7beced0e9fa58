/**
 * Go's regexp (RE2 syntax) on JavaScript: CRD schemas' `pattern`s and CEL's `matches`, `find` and
 * `findAll` are Go regular expressions, and real CRDs use syntax a JavaScript RegExp reads
 * differently or not at all (`[[:alpha:]]`, `(?P<name>…)`, `\Q…\E`, `\A`, `\z`, `]` first in a
 * class) or matches differently (`\s` is ASCII white space without `\v`, `.` stops only at `\n`).
 *
 * RE2 matches in linear time; a backtracking RegExp can take exponential time on a pattern such
 * as `^(a+)+$`, which would stall the event loop on one request (30 characters take seconds).
 * So a pattern is tested with a RegExp only where V8 can fall back to its linear-time engine
 * when backtracking runs long (V8's `--enable-experimental-regexp-engine-on-excessive-backtracks`,
 * set below): ASCII patterns without case folding, on inputs without UTF-16 surrogates (the
 * RegExp works in UTF-16 units, Go in code points). Everything else runs on @bufbuild/re2, which
 * is RE2 itself: about 100× slower than V8 on the common case (measured: 16 against 0.09 µs for
 * a DNS-subdomain pattern on a 41-character name), linear always.
 */
import v8 from 'node:v8';
import { RE2JS } from '@bufbuild/re2';

// Idempotent and process-wide; it affects only RegExps created after it, so it is set on load.
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** What a compiled pattern is asked: whether it matches somewhere in the input. */
export interface GoRegexp {
  test(input: string): boolean;
  /** A RegExp with the `g` flag for scanning matches (in UTF-16 units), when the pattern translated to one. */
  readonly global?: RegExp;
}

class Untranslatable extends Error {}

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};
const goSpace = '\\t\\n\\f\\r ';
const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** The escape at `p[i] === '\\'`, translated, and where the pattern goes on. */
function escape(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1];
  if (c === undefined) throw new Untranslatable('trailing backslash');
  switch (c) {
    case 's': return [inClass ? goSpace : `[${goSpace}]`, i + 2];
    case 'S': if (inClass) throw new Untranslatable('\\S in a class'); return [`[^${goSpace}]`, i + 2];
    case 'd': case 'D': case 'w': case 'W': case 'n': case 't': case 'r': case 'f': case 'v': return [`\\${c}`, i + 2];
    case 'b': case 'B': if (inClass) throw new Untranslatable('\\b in a class'); return [`\\${c}`, i + 2];
    case 'A': if (inClass) throw new Untranslatable('\\A in a class'); return ['^', i + 2];
    case 'z': if (inClass) throw new Untranslatable('\\z in a class'); return ['$', i + 2];
    case 'x': {
      if (p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        const code = end < 0 ? NaN : parseInt(p.slice(i + 3, end), 16);
        if (!(code <= 0x7f)) throw new Untranslatable('\\x{…} beyond ASCII');
        return [`\\x${code.toString(16).padStart(2, '0')}`, end + 1];
      }
      return [`\\x${p.slice(i + 2, i + 4)}`, i + 4];
    }
    // Unicode classes need a Unicode-mode RegExp, which V8's linear-time engine does not run.
    case 'p': case 'P': throw new Untranslatable('\\p');
    case 'Q': {
      const end = p.indexOf('\\E', i + 2);
      const literal = p.slice(i + 2, end < 0 ? p.length : end);
      const out = [...literal].map((ch) => (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(ch) ? hex(ch) : ch)).join('');
      return [inClass ? out : `(?:${out})`, end < 0 ? p.length : end + 2];
    }
  }
  // RE2 lets any punctuation be escaped: written as its code, it reads the same inside a class or out.
  if (/[^A-Za-z0-9\s]/.test(c)) return ['^$\\.*+?()[]{}|/'.includes(c) ? `\\${c}` : hex(c), i + 2];
  throw new Untranslatable(`\\${c}`);
}

/** The RegExp source and flags for a Go pattern, or Untranslatable. */
function translate(pattern: string): { source: string; flags: string } {
  // Beyond ASCII, UTF-16 units and code points part: RE2 keeps those patterns.
  if (/[^\x00-\x7f]/.test(pattern)) throw new Untranslatable('non-ASCII pattern');
  let p = pattern;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(p);
  if (lead) {
    if (lead[1].includes('U')) throw new Untranslatable('(?U)');
    for (const f of new Set(lead[1])) flags += f;
    p = p.slice(lead[0].length);
  }
  const dotAll = flags.includes('s');
  let out = '';
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const [t, next] = escape(p, i, false);
      out += t;
      i = next;
    } else if (c === '[') {
      // A class: RE2 takes `]` first in it as a literal and `[:name:]` as a POSIX class.
      let j = i + 1;
      let cls = '[';
      if (p[j] === '^') { cls += '^'; j++; }
      if (p[j] === ']') { cls += '\\]'; j++; }
      for (;;) {
        if (j >= p.length) throw new Untranslatable('unterminated class');
        const d = p[j];
        if (d === ']') { cls += ']'; j++; break; }
        if (d === '\\') {
          const [t, next] = escape(p, j, true);
          cls += t;
          j = next;
        } else if (d === '[' && p[j + 1] === ':') {
          const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(j));
          if (!m || m[1] || posixClasses[m[2]] === undefined) throw new Untranslatable('POSIX class');
          cls += posixClasses[m[2]];
          j += m[0].length;
        } else if (d === '[') {
          cls += '\\[';
          j++;
        } else {
          cls += d;
          j++;
        }
      }
      out += cls;
      i = j;
    } else if (c === '.' && !dotAll) {
      out += '[^\\n]';
      i++;
    } else if (c === '(' && p[i + 1] === '?') {
      if (p.startsWith('(?P<', i)) { out += '(?<'; i += 4; }
      else if (p.startsWith('(?:', i) || p.startsWith('(?<', i)) { out += p.slice(i, i + 3); i += 3; }
      else throw new Untranslatable('group flags');
    } else if (c === '{') {
      // A repetition both read alike; RE2's other braces (literal, or `{,n}`) are left to RE2.
      const m = /^\{\d+(,\d*)?\}/.exec(p.slice(i));
      if (!m) throw new Untranslatable('brace');
      out += m[0];
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  return { source: out, flags };
}

const surrogate = /[\ud800-\udfff]/;

function compileNow(pattern: string): GoRegexp {
  let re: RegExp | undefined;
  try {
    const { source, flags } = translate(pattern);
    re = new RegExp(source, flags);
  } catch (err) {
    if (!(err instanceof Untranslatable) && !(err instanceof SyntaxError)) throw err;
  }
  if (!re) {
    const re2 = RE2JS.compile(pattern);
    return { test: (s) => re2.test(s) };
  }
  const global = new RegExp(re.source, `${re.flags}g`);
  // Case folding has no linear-time fallback in V8: such a pattern is tested on RE2, and only
  // CEL's find and findAll scan with the backtracking RegExp.
  if (re.ignoreCase) {
    const re2 = RE2JS.compile(pattern);
    return { test: (s) => re2.test(s), global };
  }
  const translated = re;
  // RE2 for inputs a UTF-16 RegExp would count differently; compiled once one comes.
  let re2: RE2JS | undefined;
  return { test: (s) => (surrogate.test(s) ? (re2 ??= RE2JS.compile(pattern)).test(s) : translated.test(s)), global };
}

const cache = new Map<string, GoRegexp | Error>();

/**
 * A Go regular expression, compiled once. Throws (RE2's syntax error) for a pattern Go would not
 * compile either.
 */
export function compileGoRegexp(pattern: string): GoRegexp {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = compileNow(pattern);
    } catch (err) {
      re = err instanceof Error ? err : new Error(String(err));
    }
    if (cache.size > 4096) cache.clear();
    cache.set(pattern, re);
  }
  if (re instanceof Error) throw re;
  return re;
}
