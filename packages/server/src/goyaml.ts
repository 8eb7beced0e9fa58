/**
 * YAML as kube writes it: the object's JSON read back by go-yaml v2 and marshalled again
 * (sigs.k8s.io/yaml JSONToYAML). So keys are sorted as yaml.v2 sorts map keys (numbers inside
 * keys compared by value, a non-letter before a letter), sequences sit at their key's
 * indentation, strings that would read as another type are double-quoted
 * (`resourceVersion: "1720"`, `creationTimestamp: "2024-…Z"`), strings plain YAML cannot carry
 * are single-quoted, multi-line strings are literal blocks, and plain or quoted text is folded
 * at spaces past column 80, as libyaml's emitter does.
 */

const bestWidth = 80;

// ---- key order (yaml.v2 sorter.go) ----

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigitChar = (c: string) => /\p{Nd}/u.test(c);

/** keyList.Less for two string keys. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigitChar(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigitChar(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].charCodeAt(0) - 48);
    let bi = i;
    for (; bi < br.length && isDigitChar(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.length < br.length;
}

const compareKeys = (a: string, b: string) => (yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0);

// ---- which strings need quotes (yaml.v2 resolve.go) ----

const resolvedWords = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  '<<',
]);
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const goInt = /^[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const timestampLike = /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d{2}:\d{2}(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$/;

/** Whether yaml.v2 would read the plain scalar as something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (resolvedWords.has(s)) return true;
  const c = s[0];
  if (c === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    if (timestampLike.test(s)) return true;
    const plain = s.replace(/_/g, '');
    if (goInt.test(plain) || yamlStyleFloat.test(plain)) return true;
  }
  return false;
}

// ---- scalar analysis (libyaml yaml_emitter_analyze_scalar) ----

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isBreakChar = (c: string) => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankz = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || isBreakChar(c);

function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || cp === 0x85 || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);
}

function analyze(value: string): Analysis {
  if (value.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const chars = Array.from(value);
  let blockIndicators = value.startsWith('---') || value.startsWith('...');
  let leadingSpace = false, leadingBreak = false, trailingSpace = false, trailingBreak = false;
  let breakSpace = false, spaceBreak = false, previousSpace = false, previousBreak = false;
  let lineBreaks = false, special = false;
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    const followedByWhitespace = isBlankz(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':') && followedByWhitespace) blockIndicators = true;
      else if (c === '-' && followedByWhitespace) blockIndicators = true;
    } else if ((c === ':' && followedByWhitespace) || (c === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(c) || c === '\ufeff') special = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreakChar(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(c);
  }
  let blockPlainAllowed = true, singleQuotedAllowed = true, blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) blockPlainAllowed = singleQuotedAllowed = false;
  if (spaceBreak || special) blockPlainAllowed = singleQuotedAllowed = blockAllowed = false;
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

// ---- writers (libyaml yaml_emitter_write_*) ----

/** Accumulates output, tracking the column the way the emitter folds lines by it. */
class Out {
  text = '';
  column = 0;
  write(s: string): void {
    this.text += s;
    this.column += Array.from(s).length;
  }
  /** A line break (unless a block scalar just ended one) followed by `indent` spaces. */
  indent(indent: number): void {
    if (!(this.column === 0 && this.text.endsWith('\n'))) this.text += '\n';
    this.text += ' '.repeat(indent);
    this.column = indent;
  }
  newline(): void {
    this.text += '\n';
    this.column = 0;
  }
}

function writePlain(out: Out, value: string, indent: number, allowBreaks: boolean): void {
  const chars = Array.from(value);
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === ' ') {
      if (allowBreaks && !spaces && out.column > bestWidth && chars[i + 1] !== ' ') out.indent(indent);
      else out.write(c);
      spaces = true;
    } else {
      out.write(c);
      spaces = false;
    }
  }
}

function writeSingleQuoted(out: Out, value: string, indent: number, allowBreaks: boolean): void {
  const chars = Array.from(value);
  out.write("'");
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === ' ') {
      if (allowBreaks && !spaces && out.column > bestWidth && i !== 0 && i !== chars.length - 1 && chars[i + 1] !== ' ') out.indent(indent);
      else out.write(c);
      spaces = true;
    } else {
      out.write(c === "'" ? "''" : c);
      spaces = false;
    }
  }
  out.write("'");
}

const doubleQuotedEscapes: Record<string, string> = {
  '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e',
  '"': '"', '\\': '\\', '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
};

function writeDoubleQuoted(out: Out, value: string, indent: number, allowBreaks: boolean): void {
  const chars = Array.from(value);
  out.write('"');
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (!isPrintable(c) || c === '\ufeff' || isBreakChar(c) || c === '"' || c === '\\') {
      const e = doubleQuotedEscapes[c];
      if (e !== undefined) out.write(`\\${e}`);
      else {
        const cp = c.codePointAt(0)!;
        if (cp <= 0xff) out.write(`\\x${cp.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (cp <= 0xffff) out.write(`\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`);
        else out.write(`\\U${cp.toString(16).toUpperCase().padStart(8, '0')}`);
      }
      spaces = false;
    } else if (c === ' ') {
      if (allowBreaks && !spaces && out.column > bestWidth && i !== 0 && i !== chars.length - 1) {
        out.indent(indent);
        if (chars[i + 1] === ' ') out.write('\\');
      } else out.write(c);
      spaces = true;
    } else {
      out.write(c);
      spaces = false;
    }
  }
  out.write('"');
}

function writeLiteral(out: Out, value: string, indent: number): void {
  const chars = Array.from(value);
  let hints = '|';
  if (chars[0] === ' ' || isBreakChar(chars[0])) hints += '2';
  const last = chars[chars.length - 1];
  if (!isBreakChar(last)) hints += '-';
  else if (chars.length === 1 || isBreakChar(chars[chars.length - 2])) hints += '+';
  out.write(hints);
  let breaks = true;
  out.newline();
  for (const c of chars) {
    if (isBreakChar(c)) {
      out.newline();
      breaks = true;
    } else {
      if (breaks) {
        out.write(' '.repeat(indent));
        breaks = false;
      }
      out.write(c);
    }
  }
}

/** A string scalar in the style yaml.v2's stringv asks for and the emitter settles on. */
function writeString(out: Out, value: string, indent: number, simpleKey: boolean): void {
  const a = analyze(value);
  let style: 'plain' | 'single' | 'double' | 'literal';
  if (value.includes('\n')) style = 'literal';
  else if (!resolvesToNonString(value) && !base60Float.test(value)) style = 'plain';
  else style = 'double';
  if (style === 'plain') {
    if (!a.blockPlainAllowed || (value.length === 0 && simpleKey) || (simpleKey && a.multiline)) style = 'single';
  }
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
  const allowBreaks = !simpleKey;
  if (style === 'plain') writePlain(out, value, indent, allowBreaks);
  else if (style === 'single') writeSingleQuoted(out, value, indent, allowBreaks);
  else if (style === 'double') writeDoubleQuoted(out, value, indent, allowBreaks);
  else writeLiteral(out, value, indent);
}

/** strconv.FormatFloat(f, 'g', -1, 64), as yaml.v2 writes a float. */
export function goFormatFloatG(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  const [mant, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  // Shortest 'g' switches to an exponent below 1e-4 and from 1e6 (precision 6 decides).
  if (exp < -4 || exp >= 6) {
    return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

function writeScalar(out: Out, v: unknown, indent: number, simpleKey: boolean): void {
  if (v === null || v === undefined) out.write('null');
  else if (typeof v === 'boolean') out.write(v ? 'true' : 'false');
  else if (typeof v === 'number') out.write(Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : goFormatFloatG(v));
  else writeString(out, String(v), indent, simpleKey);
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmptyCollection = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0);

/**
 * A block node. `indent` is the indentation of the node's own content; `inline` says the
 * first line continues a `- ` already written.
 */
function writeNode(out: Out, v: unknown, indent: number, inline: boolean): void {
  if (Array.isArray(v)) {
    if (v.length === 0) return out.write('[]');
    v.forEach((item, i) => {
      if (i > 0 || !inline) out.indent(indent);
      out.write('- ');
      writeItem(out, item, indent + 2);
    });
    return;
  }
  if (isMap(v)) {
    const keys = Object.keys(v).sort(compareKeys);
    if (keys.length === 0) return out.write('{}');
    keys.forEach((k, i) => {
      if (i > 0 || !inline) out.indent(indent);
      writeString(out, k, indent, true);
      out.write(':');
      const value = v[k];
      if (isEmptyCollection(value) || !(Array.isArray(value) || isMap(value))) {
        out.write(' ');
        if (isEmptyCollection(value)) out.write(Array.isArray(value) ? '[]' : '{}');
        else writeScalar(out, value, indent + 2, false);
      } else if (Array.isArray(value)) {
        // Sequences are not indented under their key.
        writeNode(out, value, indent, false);
      } else {
        writeNode(out, value, indent + 2, false);
      }
    });
    return;
  }
  writeScalar(out, v, indent, false);
}

/** A sequence item after its `- `. */
function writeItem(out: Out, item: unknown, indent: number): void {
  if (isEmptyCollection(item)) out.write(Array.isArray(item) ? '[]' : '{}');
  else if (Array.isArray(item) || isMap(item)) writeNode(out, item, indent, true);
  else writeScalar(out, item, indent, false);
}

/** yaml.Marshal of a JSON value, as kube's YAML serializer writes a response. */
export function marshalYAML(v: unknown): string {
  const out = new Out();
  if (Array.isArray(v) || isMap(v)) {
    if (isEmptyCollection(v)) out.write(Array.isArray(v) ? '[]' : '{}');
    else writeNode(out, v, 0, true);
  } else writeScalar(out, v, 0, false);
  return out.text.endsWith('\n') ? out.text : `${out.text}\n`;
}
