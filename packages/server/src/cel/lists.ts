/**
 * List functions: kube's lists library (k8s.io/apiserver pkg/cel/library/lists.go: isSorted, sum,
 * min, max, indexOf, lastIndexOf) and cel-go's lists extension at the version kube 1.35 enables
 * (ext.Lists(ListsVersion(3)): slice, flatten, sort, distinct, reverse, lists.range).
 */
import { celFunc, celList, celMethod, CelScalar, celUint, isCelList, isCelUint, listType, type CelList, type CelValue } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { reflect, isReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import { compareCel, comparableKind, equalsCel, maxInt64, minInt64, noSuchOverload } from './compare.js';

const { INT, BOOL, DYN } = CelScalar;
const LIST = listType(DYN);

function isSorted(list: CelList): boolean {
  let prev: CelValue | undefined;
  for (const v of list) {
    if (prev !== undefined && compareCel(prev, v) === 1) return false;
    prev = v;
  }
  return true;
}

const isDuration = (v: unknown) => isReflectMessage(v) && v.desc.typeName === DurationSchema.typeName;

/** sum(): the list's element type decides the zero and the addition; an empty list sums to int 0. */
function sum(list: CelList): CelValue {
  const items = [...list];
  if (items.length === 0) return 0n;
  const kind = isDuration(items[0]) ? 'duration' : comparableKind(items[0]);
  if (kind === 'int') {
    let acc = 0n;
    for (const v of items) {
      if (typeof v !== 'bigint') throw noSuchOverload();
      acc += v;
      if (acc > maxInt64 || acc < minInt64) throw new Error('integer overflow');
    }
    return acc;
  }
  if (kind === 'uint') {
    let acc = 0n;
    for (const v of items) {
      if (!isCelUint(v)) throw noSuchOverload();
      acc += v.value;
      if (acc >= 1n << 64n) throw new Error('unsigned integer overflow');
    }
    return celUint(acc);
  }
  if (kind === 'double') {
    let acc = 0;
    for (const v of items) {
      if (typeof v !== 'number') throw noSuchOverload();
      acc += v;
    }
    return acc;
  }
  if (kind === 'duration') {
    let nanos = 0n;
    for (const v of items) {
      if (!isDuration(v)) throw noSuchOverload();
      const m = (v as unknown as { message: { seconds: bigint; nanos: number } }).message;
      nanos += m.seconds * 1_000_000_000n + BigInt(m.nanos);
    }
    const seconds = nanos / 1_000_000_000n;
    return reflect(DurationSchema, create(DurationSchema, { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) }));
  }
  throw noSuchOverload();
}

/** min()/max(): the first extreme element; an empty list is kube's error. */
function extreme(name: string, prefer: number) {
  return function (this: CelList): CelValue {
    let result: CelValue | undefined;
    for (const v of this) {
      if (result === undefined || compareCel(result, v) === prefer) result = v;
    }
    if (result === undefined) throw new Error(`${name} called on empty list`);
    return result;
  };
}

function indexOf(list: CelList, item: CelValue, last: boolean): bigint {
  if (last) {
    for (let i = list.size - 1; i >= 0; i--) if (equalsCel(list.get(i), item)) return BigInt(i);
  } else {
    for (let i = 0; i < list.size; i++) if (equalsCel(list.get(i), item)) return BigInt(i);
  }
  return -1n;
}

function slice(list: CelList, start: bigint, end: bigint): CelList {
  if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.size) < end) throw new Error(`cannot slice(${start}, ${end}), list is length ${list.size}`);
  return celList([...list].slice(Number(start), Number(end)));
}

function flatten(list: CelList, depth: bigint): CelValue[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  const out: CelValue[] = [];
  for (const v of list) {
    if (isCelList(v) && depth > 0n) out.push(...flatten(v, depth - 1n));
    else out.push(v);
  }
  return out;
}

/** sort(): elements of one comparable type, in order (cel-go's errors otherwise). */
export function sortList(list: CelList, keys: CelList = list): CelList {
  if (list.size !== keys.size) {
    throw new Error(`@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.size} and ${keys.size} elements respectively`);
  }
  if (list.size === 0) return list;
  const kind = comparableKind(keys.get(0));
  if (kind === undefined) throw new Error('list elements must be comparable');
  const k = [...keys];
  if (k.some((x) => comparableKind(x) !== kind)) throw new Error('list elements must have the same type');
  const order = k.map((_, i) => i).sort((i, j) => compareCel(k[i], k[j]));
  const items = [...list];
  return celList(order.map((i) => items[i]));
}

function distinct(list: CelList): CelList {
  const out: CelValue[] = [];
  for (const v of list) if (!out.some((o) => equalsCel(o, v))) out.push(v);
  return celList(out);
}

export const listFunctions = [
  celMethod('isSorted', LIST, [], BOOL, function () { return isSorted(this); }),
  celMethod('sum', LIST, [], DYN, function () { return sum(this); }),
  celMethod('min', LIST, [], DYN, extreme('min', 1)),
  celMethod('max', LIST, [], DYN, extreme('max', -1)),
  celMethod('indexOf', LIST, [DYN], INT, function (v) { return indexOf(this, v, false); }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (v) { return indexOf(this, v, true); }),
  celMethod('slice', LIST, [INT, INT], LIST, function (s, e) { return slice(this, s, e); }),
  celMethod('flatten', LIST, [], LIST, function () { return celList(flatten(this, 1n)); }),
  celMethod('flatten', LIST, [INT], LIST, function (d) { return celList(flatten(this, d)); }),
  celMethod('sort', LIST, [], LIST, function () { return sortList(this); }),
  celMethod('@sortByAssociatedKeys', LIST, [LIST], LIST, function (keys) { return sortList(this, keys); }),
  celMethod('distinct', LIST, [], LIST, function () { return distinct(this); }),
  celMethod('reverse', LIST, [], LIST, function () { return celList([...this].reverse()); }),
  celFunc('lists.range', [INT], LIST, (n) => celList(Array.from({ length: Number(n > 0n ? n : 0n) }, (_, i) => BigInt(i)))),
];
