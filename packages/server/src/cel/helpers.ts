/**
 * The functions ./syntax.ts rewrites optional syntax and two-variable comprehensions into. Their
 * names start with `__`, which no kube library uses. Errors are cel-go's messages.
 */
import { celFunc, celList, celMap, CelScalar, isCelList, isCelMap, isCelUint, type CelMap, type CelValue } from '@bufbuild/cel';
import { noSuchOverload } from './compare.js';
import { none, OptionalType, some } from './optional.js';

const { DYN, STRING } = CelScalar;
const OPT = OptionalType.type;
type Key = bigint | string | boolean | ReturnType<typeof import('@bufbuild/cel').celUint>;

/** The value an optional step works on: an optional's contents (undefined for none) or the value itself. */
function unwrap(v: CelValue): CelValue | undefined {
  return OptionalType.is(v) ? OptionalType.get(v).value : v;
}

function mapKey(k: CelValue): Key {
  if (typeof k === 'string' || typeof k === 'bigint' || typeof k === 'boolean' || isCelUint(k)) return k;
  if (typeof k === 'number' && Number.isInteger(k)) return BigInt(k);
  throw new Error(`unsupported key type: ${typeof k}`);
}

/** `x.?f` and later `.f` of an optional chain: some(x.f) when present, none when not. */
function optSelect(x: CelValue, field: string): ReturnType<typeof none> {
  const v = unwrap(x);
  if (v === undefined) return none();
  if (!isCelMap(v)) throw noSuchOverload();
  return v.has(field) ? some(v.get(field)!) : none();
}

/** `x[?k]` and later `[k]` of an optional chain. */
function optIndex(x: CelValue, k: CelValue): ReturnType<typeof none> {
  const v = unwrap(x);
  if (v === undefined) return none();
  if (isCelList(v)) {
    const i = typeof k === 'bigint' ? Number(k) : isCelUint(k) ? Number(k.value) : typeof k === 'number' && Number.isInteger(k) ? k : NaN;
    if (Number.isNaN(i)) throw noSuchOverload();
    return i >= 0 && i < v.size ? some(v.get(i)!) : none();
  }
  if (isCelMap(v)) {
    const key = mapKey(k);
    return v.has(key) ? some(v.get(key)!) : none();
  }
  throw noSuchOverload();
}

function withEntry(m: CelMap, k: CelValue, v: CelValue): CelMap {
  const out = new Map<Key, CelValue>(m as ReadonlyMap<Key, CelValue>);
  out.set(mapKey(k), v);
  return celMap(out as never);
}

export const syntaxHelpers = [
  celFunc('__optSelect', [DYN, STRING], OPT, optSelect),
  celFunc('__optIndex', [DYN, DYN], OPT, optIndex),
  // `[?x]`: the element when present.
  celFunc('__optList', [DYN], CelScalar.DYN, (o) => {
    if (!OptionalType.is(o)) throw noSuchOverload();
    const v = OptionalType.get(o).value;
    return celList(v === undefined ? [] : [v]);
  }),
  // `{?k: v}`: the entry when v is present.
  celFunc('__optMapPut', [DYN, DYN, DYN], DYN, (m, k, o) => {
    if (!isCelMap(m) || !OptionalType.is(o)) throw noSuchOverload();
    const v = OptionalType.get(o).value;
    return v === undefined ? m : withEntry(m, k, v);
  }),
  // A two-variable comprehension's first variable: a list's indices, a map's keys.
  celFunc('__iterKeys', [DYN], DYN, (x) => {
    if (isCelList(x)) return celList(Array.from({ length: x.size }, (_, i) => BigInt(i)));
    if (isCelMap(x)) return celList([...x.keys()] as CelValue[]);
    throw new Error(`cannot iterate over ${typeof x}`);
  }),
  celFunc('__mapInsert', [DYN, DYN, DYN], DYN, (m, k, v) => {
    if (!isCelMap(m)) throw noSuchOverload();
    return withEntry(m, k, v);
  }),
  // transformMapEntry: each entry the expression gives is added; a key given twice is an error.
  celFunc('__mapMerge', [DYN, DYN], DYN, (m, e) => {
    if (!isCelMap(m) || !isCelMap(e)) throw noSuchOverload();
    let out = m;
    for (const [k, v] of e) {
      if (out.has(k)) throw new Error(`insert failed: key ${String(k)} already exists`);
      out = withEntry(out, k as CelValue, v);
    }
    return out;
  }),
];
