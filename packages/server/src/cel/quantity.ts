/**
 * kube's quantity library (k8s.io/apiserver pkg/cel/library/quantity.go, 1.35): `quantity()`,
 * `isQuantity()`, `sign()`, comparisons, arithmetic and conversions over resource.Quantity.
 *
 * A quantity keeps the two representations Go's has, because kube's answers depend on them:
 * the int64Amount (value × 10^scale, unreduced as parsed: `1000m` is 1000 × 10^-3) and inf.Dec
 * (taken for values int64 cannot hold). `asInteger()` succeeds only from an int64Amount whose
 * scale is not negative, so `quantity("1000m").isInteger()` is false, as in kube.
 */
import { celFunc, celMethod, CelScalar } from '@bufbuild/cel';
import { compareQuantities, parseQuantity, quantitySign, type ParsedQuantity } from '@windlass/machinery';
import { maxInt64, minInt64 } from './compare.js';
import { opaqueType } from './opaque.js';

const { INT, BOOL, STRING, DOUBLE } = CelScalar;

/** mantissa × 10^exponent; `dec` when Go would hold it as an inf.Dec. */
interface Quantity {
  mantissa: bigint;
  exponent: number;
  dec: boolean;
}

const fitsInt64 = (v: bigint) => v >= minInt64 && v <= maxInt64;

/** Equal quantities (Cmp == 0) share a key: the value with trailing zeros moved to the exponent. */
function key(q: Quantity): string {
  let m = q.mantissa;
  let e = q.exponent;
  if (m === 0n) return '0';
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  return `${m}e${e}`;
}

function decode(k: string): Quantity {
  const [m, e] = k.split('e');
  return { mantissa: BigInt(m), exponent: Number(e ?? 0), dec: false };
}

export const QuantityType = opaqueType<Quantity>('kubernetes.Quantity', key, decode);

const asParsed = (q: Quantity): ParsedQuantity => ({ mantissa: q.mantissa, exponent: q.exponent, format: 'DecimalSI' });

function parse(s: string): Quantity {
  const p = parseQuantity(s);
  if (typeof p === 'string') throw new Error(p);
  return { mantissa: p.mantissa, exponent: p.exponent, dec: p.infDec === true };
}

/** int64Amount.AsInt64: scale 0, or a positive scale that does not overflow. */
function asInt64(q: Quantity): bigint | undefined {
  if (q.dec || q.exponent < 0) return undefined;
  const v = q.mantissa * 10n ** BigInt(q.exponent);
  return fitsInt64(v) ? v : undefined;
}

/** Quantity.Add: int64Amount arithmetic at the smaller scale while it fits, inf.Dec otherwise. */
function add(a: Quantity, b: Quantity): Quantity {
  if (!a.dec && !b.dec) {
    if (b.mantissa === 0n) return a;
    if (a.mantissa === 0n) return b;
    const e = Math.min(a.exponent, b.exponent);
    const x = a.mantissa * 10n ** BigInt(a.exponent - e);
    const y = b.mantissa * 10n ** BigInt(b.exponent - e);
    if (fitsInt64(x) && fitsInt64(y) && fitsInt64(x + y)) return { mantissa: x + y, exponent: e, dec: false };
  }
  const e = Math.min(a.exponent, b.exponent);
  return { mantissa: a.mantissa * 10n ** BigInt(a.exponent - e) + b.mantissa * 10n ** BigInt(b.exponent - e), exponent: e, dec: true };
}

const negate = (q: Quantity): Quantity => ({ ...q, mantissa: -q.mantissa });
const fromInt = (i: bigint): Quantity => ({ mantissa: i, exponent: 0, dec: false });

/** AsApproximateFloat64: the unscaled value times math.Pow10(exponent). */
function approximateFloat(q: Quantity): number {
  const base = Number(q.mantissa);
  if (q.exponent === 0) return base;
  const pow = q.exponent > 0 ? 10 ** q.exponent : 1 / 10 ** -q.exponent;
  return base * pow;
}

const cmp = (a: Quantity, b: Quantity) => compareQuantities(asParsed(a), asParsed(b));
const Q = QuantityType.type;
const get = QuantityType.get;

export const quantityFunctions = [
  celFunc('quantity', [STRING], Q, (s) => QuantityType.of(parse(s))),
  celFunc('isQuantity', [STRING], BOOL, (s) => typeof parseQuantity(s) !== 'string'),
  celFunc('sign', [Q], INT, (q) => BigInt(quantitySign(asParsed(get(q))))),
  celMethod('isGreaterThan', Q, [Q], BOOL, function (o) { return cmp(get(this), get(o)) === 1; }),
  celMethod('isLessThan', Q, [Q], BOOL, function (o) { return cmp(get(this), get(o)) === -1; }),
  celMethod('compareTo', Q, [Q], INT, function (o) { return BigInt(cmp(get(this), get(o))); }),
  celMethod('asApproximateFloat', Q, [], DOUBLE, function () { return approximateFloat(get(this)); }),
  celMethod('asInteger', Q, [], INT, function () {
    const v = asInt64(get(this));
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('isInteger', Q, [], BOOL, function () { return asInt64(get(this)) !== undefined; }),
  celMethod('add', Q, [Q], Q, function (o) { return QuantityType.of(add(get(this), get(o))); }),
  celMethod('add', Q, [INT], Q, function (i) { return QuantityType.of(add(get(this), fromInt(i))); }),
  celMethod('sub', Q, [Q], Q, function (o) { return QuantityType.of(add(get(this), negate(get(o)))); }),
  celMethod('sub', Q, [INT], Q, function (i) { return QuantityType.of(add(get(this), fromInt(-i))); }),
];
