/**
 * Ordering of CEL values as cel-go's traits.Comparer gives it (what kube's lists library and the
 * lists extension's sort use): numbers across int, uint and double, strings by code point (Go
 * compares UTF-8 bytes, the same order), bools, bytes, durations and timestamps.
 */
import { isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import { equals } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';

/** An error cel-go reports when a value has no such operation. */
export const noSuchOverload = () => new Error('no such overload');

/** The range of CEL's int (Go's int64). */
export const maxInt64 = (1n << 63n) - 1n;
export const minInt64 = -(1n << 63n);

function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

function cmpNum(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'number' && Number.isNaN(a)) return typeof b === 'number' && Number.isNaN(b) ? 0 : 1;
  if (typeof b === 'number' && Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** The time a Duration or Timestamp message holds, in nanoseconds. */
function timeValue(v: unknown): { type: string; nanos: bigint } | undefined {
  if (!isReflectMessage(v)) return undefined;
  const t = v.desc.typeName;
  if (t !== 'google.protobuf.Duration' && t !== 'google.protobuf.Timestamp') return undefined;
  const m = v.message as unknown as { seconds: bigint; nanos: number };
  return { type: t, nanos: m.seconds * 1_000_000_000n + BigInt(m.nanos) };
}

/** A type name for "same type" checks. */
export function comparableKind(v: unknown): string | undefined {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (isCelUint(v)) return 'uint';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  return timeValue(v)?.type;
}

/** -1, 0 or 1; throws "no such overload" for values that do not compare. */
export function compareCel(a: unknown, b: unknown): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return cmpNum(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return cmpCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  const ta = timeValue(a);
  const tb = timeValue(b);
  if (ta && tb && ta.type === tb.type) return ta.nanos < tb.nanos ? -1 : ta.nanos > tb.nanos ? 1 : 0;
  throw noSuchOverload();
}

/** CEL `==` (what list membership and indexOf use): numbers across types, deep lists and maps. */
export function equalsCel(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na == nb;
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (isCelList(a) || isCelList(b)) {
    if (!isCelList(a) || !isCelList(b) || a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) if (!equalsCel(a.get(i), b.get(i))) return false;
    return true;
  }
  if (isCelMap(a) || isCelMap(b)) {
    if (!isCelMap(a) || !isCelMap(b) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !equalsCel(v, w)) return false;
    }
    return true;
  }
  if (isReflectMessage(a) && isReflectMessage(b)) return a.desc.typeName === b.desc.typeName && equals(a.desc, a.message, b.message);
  return false;
}
