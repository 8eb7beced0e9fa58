/**
 * encoding/json as kube-apiserver's messages show it: the syntax errors of Go's scanner
 * (`unexpected end of JSON input`, `invalid character 'x' looking for beginning of value`),
 * and sigs.k8s.io/json's duplicate fields: a JSON object that names a field twice decodes as
 * Go decodes it (a later object merges into the earlier one, anything else replaces it) and
 * each repetition is reported by its path (`duplicate field "data"`).
 *
 * JSON.parse stays the decoder; these run only when it failed or when a cheap count says the
 * text holds more keys than the parsed value.
 */
import { goQuote } from './validation.js';

const enum Ch {
  Tab = 0x09, LF = 0x0a, CR = 0x0d, Space = 0x20, Quote = 0x22, Plus = 0x2b, Comma = 0x2c, Minus = 0x2d,
  Dot = 0x2e, Slash = 0x2f, Zero = 0x30, Nine = 0x39, Colon = 0x3a, E = 0x45, LBracket = 0x5b,
  Backslash = 0x5c, RBracket = 0x5d, LowerE = 0x65, LBrace = 0x7b, RBrace = 0x7d,
}

const isSpace = (c: number) => c === Ch.Space || c === Ch.Tab || c === Ch.LF || c === Ch.CR;
const isDigit = (c: number) => c >= Ch.Zero && c <= Ch.Nine;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * Go's quoteChar: a byte as the scanner names it, `'x'`, `'\''`, `'"'`, `'\n'`, `'\u009e'`
 * (a byte over 0x7f is the rune of that value, as Go's string(byte) makes it).
 */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === Ch.Quote) return `'"'`;
  const simple: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };
  if (simple[c] !== undefined) return `'${simple[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Latin-1 runes Go's strconv.IsPrint rejects: C1 controls, NBSP and the soft hyphen.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** Go's maximum nesting depth (encoding/json maxNestingDepth). */
const maxNestingDepth = 10000;

const enum Parse { ObjectKey, ObjectValue, ArrayValue }

/**
 * The error Go's json.Unmarshal reports for a syntactically invalid document (its checkValid
 * pass), or undefined for a valid one. Works on bytes, as Go does.
 */
export function goJSONSyntaxError(data: Uint8Array): string | undefined {
  const stack: Parse[] = [];
  type Step = (c: number) => Step | string | null;
  let endTop = false;
  const invalid = (c: number, context: string) => `invalid character ${goQuoteChar(c)} ${context}`;

  const push = (p: Parse): string | null => (stack.push(p), stack.length > maxNestingDepth ? 'exceeded max depth' : null);

  const endValue: Step = (c) => {
    const n = stack.length;
    if (n === 0) {
      endTop = true;
      return endTopStep(c);
    }
    if (isSpace(c)) return endValue;
    switch (stack[n - 1]) {
      case Parse.ObjectKey:
        if (c === Ch.Colon) {
          stack[n - 1] = Parse.ObjectValue;
          return beginValue;
        }
        return invalid(c, 'after object key');
      case Parse.ObjectValue:
        if (c === Ch.Comma) {
          stack[n - 1] = Parse.ObjectKey;
          return beginString;
        }
        if (c === Ch.RBrace) {
          stack.pop();
          return stack.length === 0 ? ((endTop = true), endTopStep) : endValue;
        }
        return invalid(c, 'after object key:value pair');
      default:
        if (c === Ch.Comma) return beginValue;
        if (c === Ch.RBracket) {
          stack.pop();
          return stack.length === 0 ? ((endTop = true), endTopStep) : endValue;
        }
        return invalid(c, 'after array element');
    }
  };
  const endTopStep: Step = (c) => (isSpace(c) ? endTopStep : invalid(c, 'after top-level value'));

  const beginValue: Step = (c) => {
    if (isSpace(c)) return beginValue;
    switch (c) {
      case Ch.LBrace:
        return push(Parse.ObjectKey) ?? beginStringOrEmpty;
      case Ch.LBracket:
        return push(Parse.ArrayValue) ?? beginValueOrEmpty;
      case Ch.Quote:
        return inString;
      case Ch.Minus:
        return neg;
      case Ch.Zero:
        return zero;
      case 0x74: // t
        return literal('true', 1);
      case 0x66: // f
        return literal('false', 1);
      case 0x6e: // n
        return literal('null', 1);
    }
    if (c >= 0x31 && c <= Ch.Nine) return one;
    return invalid(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginValueOrEmpty;
    if (c === Ch.RBracket) return endValue(c);
    return beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginStringOrEmpty;
    if (c === Ch.RBrace) {
      stack[stack.length - 1] = Parse.ObjectValue;
      return endValue(c);
    }
    return beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return beginString;
    if (c === Ch.Quote) return inString;
    return invalid(c, 'looking for beginning of object key string');
  };
  const inString: Step = (c) => {
    if (c === Ch.Quote) return endValue;
    if (c === Ch.Backslash) return inStringEsc;
    if (c < 0x20) return invalid(c, 'in string literal');
    return inString;
  };
  const inStringEsc: Step = (c) => {
    switch (c) {
      case 0x62: case 0x66: case 0x6e: case 0x72: case 0x74: case Ch.Backslash: case Ch.Slash: case Ch.Quote:
        return inString;
      case 0x75:
        return hex(0);
    }
    return invalid(c, 'in string escape code');
  };
  const hex = (i: number): Step => (c) => {
    if (!isHex(c)) return invalid(c, 'in \\u hexadecimal character escape');
    return i === 3 ? inString : hex(i + 1);
  };
  const neg: Step = (c) => {
    if (c === Ch.Zero) return zero;
    if (c >= 0x31 && c <= Ch.Nine) return one;
    return invalid(c, 'in numeric literal');
  };
  const one: Step = (c) => (isDigit(c) ? one : zero(c));
  const zero: Step = (c) => {
    if (c === Ch.Dot) return dot;
    if (c === Ch.LowerE || c === Ch.E) return exp;
    return endValue(c);
  };
  const dot: Step = (c) => (isDigit(c) ? dot0 : invalid(c, 'after decimal point in numeric literal'));
  const dot0: Step = (c) => {
    if (isDigit(c)) return dot0;
    if (c === Ch.LowerE || c === Ch.E) return exp;
    return endValue(c);
  };
  const exp: Step = (c) => (c === Ch.Plus || c === Ch.Minus ? expSign : expSign(c));
  const expSign: Step = (c) => (isDigit(c) ? exp0 : invalid(c, 'in exponent of numeric literal'));
  const exp0: Step = (c) => (isDigit(c) ? exp0 : endValue(c));
  const literal = (word: string, i: number): Step => (c) => {
    if (c !== word.charCodeAt(i)) return invalid(c, `in literal ${word} (expecting ${goQuoteChar(word.charCodeAt(i))})`);
    return i === word.length - 1 ? endValue : literal(word, i + 1);
  };

  let step: Step = beginValue;
  for (let i = 0; i < data.length; i++) {
    const next = step(data[i]);
    if (typeof next === 'string') return next;
    if (next === null) return 'exceeded max depth';
    step = next;
  }
  if (endTop) return undefined;
  // Go feeds a space at the end: a number or a closed value at the top level completes.
  const last = step(Ch.Space);
  if (typeof last === 'string') return last;
  return endTop ? undefined : 'unexpected end of JSON input';
}

/** The Go type json.Unmarshal names for a JSON value: `array`, `object`, `string`, `number`, `bool`. */
export function goJSONType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/** Occurrences of `:` in the raw text, outside strings or in them. */
function countColons(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) n++;
  return n;
}

/** Keys of every object in a parsed value plus the `:` characters inside its strings. */
function countKeysAndColons(v: object): number {
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'object' && x !== null) n += countKeysAndColons(x);
      else if (typeof x === 'string' && x.includes(':')) n += countColons(x);
    }
    return n;
  }
  for (const key in v) {
    n++;
    if (key.includes(':')) n += countColons(key);
    const x = (v as Record<string, unknown>)[key];
    if (typeof x === 'object' && x !== null) n += countKeysAndColons(x);
    else if (typeof x === 'string' && x.includes(':')) n += countColons(x);
  }
  return n;
}

/**
 * Whether the text of a parsed JSON document may repeat a key: every key of every object
 * is followed by exactly one `:` outside strings, so a text with more colons than the parsed
 * value's keys and string colons lost keys to JSON.parse. An escaped colon (`\u003a`) in the
 * text would hide one: such texts always take the careful parse. Linear and allocation-free
 * (about 8 µs for a 4.5 KB Pod, a quarter of JSON.parse's time).
 */
export function mayHaveDuplicateKeys(text: string, parsed: unknown): boolean {
  if (parsed === null || typeof parsed !== 'object') return false;
  const raw = countColons(text);
  if (raw === 0) return false;
  return raw !== countKeysAndColons(parsed) || text.includes('\\u003');
}

export interface DuplicateAwareResult {
  value: unknown;
  /** Paths of repeated fields, in document order (`data`, `spec.containers[0].name`). */
  duplicates: string[];
}

/**
 * Parses a valid JSON text as Go's decoder fills a struct from it, reporting repeated keys
 * like sigs.k8s.io/json's strict mode: the later of two objects merges into the earlier,
 * any other repeated value replaces it.
 */
export function parseJSONWithDuplicates(text: string): DuplicateAwareResult {
  const duplicates: string[] = [];
  let i = 0;
  const skip = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === Ch.Space || c === Ch.Tab || c === Ch.LF || c === Ch.CR) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i;
    i++;
    let simple = true;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === Ch.Quote) break;
      if (c === Ch.Backslash) {
        simple = false;
        i += 2;
      } else i++;
    }
    i++;
    const raw = text.slice(start, i);
    return simple ? raw.slice(1, -1) : (JSON.parse(raw) as string);
  };
  const value = (path: string): unknown => {
    skip();
    const c = text.charCodeAt(i);
    if (c === Ch.LBrace) {
      i++;
      const obj: Record<string, unknown> = {};
      const seen = new Set<string>();
      skip();
      if (text.charCodeAt(i) === Ch.RBrace) {
        i++;
        return obj;
      }
      for (;;) {
        skip();
        const key = str();
        skip();
        i++; // ':'
        const childPath = path === '' ? key : `${path}.${key}`;
        const v = value(childPath);
        if (seen.has(key)) {
          duplicates.push(childPath);
          setOwn(obj, key, mergeGo(obj[key], v));
        } else {
          seen.add(key);
          setOwn(obj, key, v);
        }
        skip();
        if (text.charCodeAt(i++) === Ch.RBrace) return obj;
      }
    }
    if (c === Ch.LBracket) {
      i++;
      const arr: unknown[] = [];
      skip();
      if (text.charCodeAt(i) === Ch.RBracket) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(`${path}[${arr.length}]`));
        skip();
        if (text.charCodeAt(i++) === Ch.RBracket) return arr;
      }
    }
    if (c === Ch.Quote) return str();
    const start = i;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === Ch.Comma || d === Ch.RBrace || d === Ch.RBracket || d === Ch.Space || d === Ch.Tab || d === Ch.LF || d === Ch.CR) break;
      i++;
    }
    return JSON.parse(text.slice(start, i));
  };
  const v = value('');
  return { value: v, duplicates };
}

/** `__proto__` is an ordinary key in JSON, as JSON.parse treats it. */
function setOwn(obj: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A repeated field decoded into the value the first occurrence left: objects merge, the rest replaces. */
function mergeGo(prev: unknown, next: unknown): unknown {
  if (!isPlainObject(prev) || !isPlainObject(next)) return next;
  for (const key of Object.keys(next)) setOwn(prev, key, mergeGo(prev[key], next[key]));
  return prev;
}

/**
 * Go's `%+v` of a value decoded into interface{} (how kube prints a strategic merge patch in
 * its 422): `map[data:map[a:b]]`, `[a b]`, `<nil>`, keys sorted.
 */
export function goSprintValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goSprintValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goSprintValue(o[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFormatFloat(v);
  return String(v);
}

/**
 * Go's `%#v` of a value decoded into interface{} by encoding/json (numbers are float64):
 * `map[string]interface {}{"a":1}`, `[]interface {}{"x", true}`, `"s"`, `interface {}(nil)`.
 */
export function goSharpValue(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpValue).join(', ')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[string]interface {}{${Object.keys(o).sort().map((k) => `${goQuote(k)}:${goSharpValue(o[k])}`).join(', ')}}`;
  }
  if (typeof v === 'number') return goFormatFloat(v);
  if (typeof v === 'string') return goQuote(v);
  return String(v);
}

/** Go's `%T` of a value decoded into interface{} by encoding/json. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** strconv.FormatFloat(f, 'g', -1, 64) for integers and the usual floats (`1e+21`, `1.5`). */
function goFormatFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(s);
  return m ? `${m[1]}e${m[2]}${m[3].padStart(2, '0')}` : s;
}

const htmlEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * json.Marshal of a value decoded into interface{}: keys sorted at every level, HTML
 * characters escaped (how kube prints a patched object in a JSON or merge patch's 422).
 */
export function goMarshalSorted(v: unknown): string {
  const sortKeys = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sortKeys);
    if (x === null || typeof x !== 'object') return x;
    const o = x as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) setOwn(out, k, sortKeys(o[k]));
    return out;
  };
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => htmlEscapes[c]);
}

/**
 * Go's %g (and %v) of a float64, strconv.FormatFloat(x, 'g', -1, 64): the shortest digits, in
 * exponent form below 1e-4 and from 1e6 on (`1e+06`, `-0`, `+Inf`).
 */
export function goFormatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, e] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(e);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}${frac ? `.${frac}` : ''}`;
}
