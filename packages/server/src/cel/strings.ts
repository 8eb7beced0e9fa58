/**
 * cel-go's strings extension (version 2, as kube 1.35's base environment binds it) where
 * @bufbuild/cel's own differs from it. cel-go counts positions in Unicode code points, not UTF-16
 * units, and its split and replace with a count are Go's strings.SplitN and strings.Replace:
 * `'a.b.c'.split('.', 2)` is `['a', 'b.c']` (the rest kept in the last part, where JavaScript's
 * split drops it), and a negative count means all. Real CRDs depend on that: a rule such as
 * `self.split('.', 16).all(f, f.matches(…))` checks the unsplit rest against the pattern.
 * The functions not listed here (lowerAscii, upperAscii, trim, join, format, strings.quote)
 * are @bufbuild/cel's.
 */
import { celList, celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';
import { strings as bufbuildStrings } from '@bufbuild/cel/ext';

const { STRING, INT, DYN } = CelScalar;
const LIST_STRING = listType(DYN);

const outOfRange = (i: number | bigint) => new Error(`index out of range: ${i}`);
const runes = (s: string) => Array.from(s);

function charAt(this: string, index: bigint): string {
  const r = runes(this);
  const i = Number(index);
  if (i < 0 || i > r.length) throw outOfRange(index);
  return i === r.length ? '' : r[i];
}

function runesAt(r: string[], sub: string[], i: number): boolean {
  for (let j = 0; j < sub.length; j++) if (r[i + j] !== sub[j]) return false;
  return true;
}

function indexOf(this: string, substr: string, offset?: bigint): bigint {
  const off = offset === undefined ? 0 : Number(offset);
  if (substr === '') return BigInt(off);
  const r = runes(this);
  const sub = runes(substr);
  if (off < 0 || off >= r.length) throw outOfRange(off);
  for (let i = off; i < r.length - (sub.length - 1); i++) if (runesAt(r, sub, i)) return BigInt(i);
  return -1n;
}

function lastIndexOf(this: string, substr: string, offset?: bigint): bigint {
  const r = runes(this);
  if (offset === undefined) {
    if (substr === '') return BigInt(r.length);
    offset = BigInt(r.length - 1);
  }
  if (substr === '') return offset;
  let off = Number(offset);
  const sub = runes(substr);
  if (off < 0 || off >= r.length) throw outOfRange(off);
  if (off > r.length - sub.length) off = r.length - sub.length;
  for (let i = off; i >= 0; i--) if (runesAt(r, sub, i)) return BigInt(i);
  return -1n;
}

/** Go's strings.Replace: the first n (all when n < 0) non-overlapping instances of old. */
export function goReplace(s: string, old: string, repl: string, n: number): string {
  if (old === repl || n === 0) return s;
  if (old === '') {
    // An empty old matches at the start and after each code point.
    const r = runes(s);
    const count = n < 0 ? r.length + 1 : Math.min(n, r.length + 1);
    let out = '';
    for (let i = 0; i < r.length; i++) out += (i < count ? repl : '') + r[i];
    return out + (count > r.length ? repl : '');
  }
  let out = '';
  let from = 0;
  for (let done = 0; n < 0 || done < n; done++) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + repl;
    from = at + old.length;
  }
  return out + s.slice(from);
}

function replace(this: string, old: string, repl: string, n?: bigint): string {
  return goReplace(this, old, repl, n === undefined ? -1 : Number(n));
}

/** Go's strings.SplitN: at most n parts (all when n < 0, none when n == 0), the last holding the rest. */
export function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const r = runes(s);
    if (n < 0 || n >= r.length) return r;
    return [...r.slice(0, n - 1), r.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let from = 0;
  while (n < 0 || out.length < n - 1) {
    const at = s.indexOf(sep, from);
    if (at < 0) break;
    out.push(s.slice(from, at));
    from = at + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

function split(this: string, sep: string, n?: bigint) {
  return celList(goSplitN(this, sep, n === undefined ? -1 : Number(n)));
}

function substring(this: string, start: bigint, end?: bigint): string {
  const r = runes(this);
  if (end === undefined) {
    if (start < 0n || Number(start) > r.length) throw outOfRange(start);
    return r.slice(Number(start)).join('');
  }
  if (start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || Number(start) > r.length) throw outOfRange(start);
  if (end < 0n || Number(end) > r.length) throw outOfRange(end);
  return r.slice(Number(start), Number(end)).join('');
}

const ours: CelFunc[] = [
  celMethod('charAt', STRING, [INT], STRING, charAt),
  celMethod('indexOf', STRING, [STRING], INT, indexOf),
  celMethod('indexOf', STRING, [STRING, INT], INT, indexOf),
  celMethod('lastIndexOf', STRING, [STRING], INT, lastIndexOf),
  celMethod('lastIndexOf', STRING, [STRING, INT], INT, lastIndexOf),
  celMethod('replace', STRING, [STRING, STRING], STRING, replace),
  celMethod('replace', STRING, [STRING, STRING, INT], STRING, replace),
  celMethod('split', STRING, [STRING], LIST_STRING, split),
  celMethod('split', STRING, [STRING, INT], LIST_STRING, split),
  celMethod('substring', STRING, [INT], STRING, substring),
  celMethod('substring', STRING, [INT, INT], STRING, substring),
];

const replaced = new Set(ours.map((f) => f.name));

/** The strings extension as kube binds it: cel-go's semantics for the functions above, @bufbuild/cel's for the rest. */
export const stringFunctions: CelFunc[] = [...bufbuildStrings.filter((f) => !replaced.has(f.name)), ...ours];
