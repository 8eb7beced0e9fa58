/**
 * The function declarations the checker resolves calls against: cel-go's standard library
 * (common/stdlib/standard.go, with kube's CrossTypeNumericComparisons), its optional types, and
 * every function of kube's libraries as the runtime declares it (./index.ts's kubeFunctions).
 * The runtime's generic functions are declared over `dyn` (`list(dyn).sort()`), so they accept
 * what cel-go's type parameters accept and answer `dyn` where cel-go knows more.
 */
import { kubeFunctions } from './index.js';
import {
  BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, UINT,
  fromCelType, listOf, mapOf, optionalOf, param, sameType, typeOf, type CelT,
} from './checktypes.js';

export interface Overload {
  /** A member overload's first parameter is its target. */
  member: boolean;
  params: CelT[];
  result: CelT;
}

const A = param('A');
const B = param('B');
const listA = listOf(A);
const mapAB = mapOf(A, B);

const decls = new Map<string, Overload[]>();

function fn(name: string, params: CelT[], result: CelT, member = false): void {
  let list = decls.get(name);
  if (!list) decls.set(name, (list = []));
  list.push({ member, params, result });
}
const method = (name: string, params: CelT[], result: CelT) => fn(name, params, result, true);

// Logic and equality.
fn('_?_:_', [BOOL, A, A], A);
for (const op of ['_&&_', '_||_']) fn(op, [BOOL, BOOL], BOOL);
for (const op of ['!_', '@not_strictly_false', '__not_strictly_false__']) fn(op, [BOOL], BOOL);
for (const op of ['_==_', '_!=_']) fn(op, [A, A], BOOL);

// Arithmetic.
for (const t of [INT, UINT, DOUBLE, STRING, BYTES]) fn('_+_', [t, t], t);
fn('_+_', [listA, listA], listA);
fn('_+_', [DURATION, DURATION], DURATION);
fn('_+_', [DURATION, TIMESTAMP], TIMESTAMP);
fn('_+_', [TIMESTAMP, DURATION], TIMESTAMP);
for (const t of [INT, UINT, DOUBLE]) {
  fn('_-_', [t, t], t);
  fn('_*_', [t, t], t);
  fn('_/_', [t, t], t);
}
fn('_-_', [DURATION, DURATION], DURATION);
fn('_-_', [TIMESTAMP, DURATION], TIMESTAMP);
fn('_-_', [TIMESTAMP, TIMESTAMP], DURATION);
fn('_%_', [INT, INT], INT);
fn('_%_', [UINT, UINT], UINT);
fn('-_', [INT], INT);
fn('-_', [DOUBLE], DOUBLE);

// Ordering: numbers across types, and each ordered type with itself.
for (const op of ['_<_', '_<=_', '_>_', '_>=_']) {
  for (const a of [INT, UINT, DOUBLE]) for (const b of [INT, UINT, DOUBLE]) fn(op, [a, b], BOOL);
  for (const t of [BOOL, STRING, BYTES, TIMESTAMP, DURATION]) fn(op, [t, t], BOOL);
}

// Indexing, membership, size.
fn('_[_]', [listA, INT], A);
fn('_[_]', [mapAB, A], B);
for (const op of ['@in', '_in_', 'in']) {
  fn(op, [A, listA], BOOL);
  fn(op, [A, mapAB], BOOL);
}
for (const t of [STRING, BYTES, listA, mapAB]) {
  fn('size', [t], INT);
  method('size', [t], INT);
}

// Conversions.
fn('type', [A], typeOf(A));
fn('dyn', [A], DYN);
for (const t of [INT, UINT, DOUBLE, STRING, DURATION, TIMESTAMP]) fn('int', [t], INT);
for (const t of [UINT, INT, DOUBLE, STRING]) fn('uint', [t], UINT);
for (const t of [DOUBLE, INT, UINT, STRING]) fn('double', [t], DOUBLE);
for (const t of [STRING, BOOL, BYTES, DOUBLE, DURATION, INT, TIMESTAMP, UINT]) fn('string', [t], STRING);
for (const t of [BYTES, STRING]) fn('bytes', [t], BYTES);
for (const t of [BOOL, STRING]) fn('bool', [t], BOOL);
for (const t of [DURATION, INT, STRING]) fn('duration', [t], DURATION);
for (const t of [TIMESTAMP, INT, STRING]) fn('timestamp', [t], TIMESTAMP);

// Strings.
for (const name of ['contains', 'endsWith', 'startsWith', 'matches']) method(name, [STRING, STRING], BOOL);
fn('matches', [STRING, STRING], BOOL);

// Time accessors.
for (const name of ['getFullYear', 'getMonth', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']) {
  method(name, [TIMESTAMP], INT);
  method(name, [TIMESTAMP, STRING], INT);
}
for (const name of ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']) method(name, [DURATION], INT);

// Optional values (cel-go's OptionalTypes).
fn('optional.of', [A], optionalOf(A));
fn('optional.ofNonZeroValue', [A], optionalOf(A));
fn('optional.none', [], optionalOf(DYN));
method('hasValue', [optionalOf(A)], BOOL);
method('value', [optionalOf(A)], A);
method('orValue', [optionalOf(A), A], A);
method('or', [optionalOf(A), optionalOf(A)], optionalOf(A));

// kube's libraries and cel-go's extensions, as the runtime binds them (the syntax helpers are
// typed by the checker itself).
// The optionals' functions are declared above with their contents' type, which the runtime's lack.
const typedHere = new Set(['hasValue', 'value', 'orValue', 'or', 'optional.of', 'optional.ofNonZeroValue', 'optional.none']);
for (const f of kubeFunctions) {
  if (f.name.startsWith('__') || typedHere.has(f.name)) continue;
  const member = f.target !== undefined;
  const params = [...(member ? [fromCelType(f.target!)] : []), ...f.arguments.map(fromCelType)];
  const known = decls.get(f.name)?.some((o) => o.member === member && o.params.length === params.length && o.params.every((p, i) => sameType(p, params[i])));
  if (!known) fn(f.name, params, fromCelType(f.result), member);
}

export function overloadsOf(name: string): readonly Overload[] | undefined {
  return decls.get(name);
}

/** Type names usable as values (`type(x) == int`), as cel-go's environment declares them. */
export const typeIdents: ReadonlyMap<string, CelT> = new Map<string, CelT>([
  ['int', typeOf(INT)], ['uint', typeOf(UINT)], ['double', typeOf(DOUBLE)], ['bool', typeOf(BOOL)],
  ['string', typeOf(STRING)], ['bytes', typeOf(BYTES)], ['null_type', typeOf({ k: 'prim', name: 'null_type' })],
  ['list', typeOf(listOf(DYN))], ['map', typeOf(mapOf(DYN, DYN))], ['type', typeOf(typeOf(DYN))],
  ['google.protobuf.Timestamp', typeOf(TIMESTAMP)], ['google.protobuf.Duration', typeOf(DURATION)],
  ['optional_type', typeOf(optionalOf(DYN))],
  ...['kubernetes.Quantity', 'kubernetes.URL', 'kubernetes.Semver', 'net.IP', 'net.CIDR'].map((n): [string, CelT] => [n, typeOf({ k: 'opaque', name: n, params: [] })]),
]);
