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
  fromCelType, listOf, mapOf, opaque, optionalOf, param, typeOf, type CelT,
} from './checktypes.js';

export interface Overload {
  /** cel-go's overload id where its cost estimation looks for it (`add_list`, `index_map`), else the function's name. */
  id: string;
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

function fn(name: string, params: CelT[], result: CelT, member = false, id = name): void {
  let list = decls.get(name);
  if (!list) decls.set(name, (list = []));
  list.push({ id, member, params, result });
}
const method = (name: string, params: CelT[], result: CelT, id = name) => fn(name, params, result, true, id);
/** cel-go's name of a type in overload ids (`add_string`, `less_bytes`). */
const idName = (t: CelT) => (t.k === 'prim' ? ({ int: 'int64', uint: 'uint64' } as Record<string, string>)[t.name] ?? t.name.replace('google.protobuf.', '').toLowerCase() : t.k);

// Logic and equality.
fn('_?_:_', [BOOL, A, A], A, false, 'conditional');
fn('_&&_', [BOOL, BOOL], BOOL, false, 'logical_and');
fn('_||_', [BOOL, BOOL], BOOL, false, 'logical_or');
for (const op of ['!_', '@not_strictly_false', '__not_strictly_false__']) fn(op, [BOOL], BOOL);
fn('_==_', [A, A], BOOL, false, 'equals');
fn('_!=_', [A, A], BOOL, false, 'not_equals');

// Arithmetic.
for (const t of [INT, UINT, DOUBLE, STRING, BYTES]) fn('_+_', [t, t], t, false, `add_${idName(t)}`);
fn('_+_', [listA, listA], listA, false, 'add_list');
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
  const opName = ({ '_<_': 'less', '_<=_': 'less_equals', '_>_': 'greater', '_>=_': 'greater_equals' } as Record<string, string>)[op];
  for (const t of [BOOL, STRING, BYTES, TIMESTAMP, DURATION]) fn(op, [t, t], BOOL, false, `${opName}_${idName(t)}`);
}

// Indexing, membership, size.
fn('_[_]', [listA, INT], A, false, 'index_list');
fn('_[_]', [mapAB, A], B, false, 'index_map');
for (const op of ['@in', '_in_', 'in']) {
  fn(op, [A, listA], BOOL, false, 'in_list');
  fn(op, [A, mapAB], BOOL, false, 'in_map');
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
for (const t of [STRING, BOOL, BYTES, DOUBLE, DURATION, INT, TIMESTAMP, UINT]) fn('string', [t], STRING, false, `${idName(t)}_to_string`);
for (const t of [BYTES, STRING]) fn('bytes', [t], BYTES, false, `${idName(t)}_to_bytes`);
for (const t of [BOOL, STRING]) fn('bool', [t], BOOL);
for (const t of [DURATION, INT, STRING]) fn('duration', [t], DURATION);
for (const t of [TIMESTAMP, INT, STRING]) fn('timestamp', [t], TIMESTAMP);

// Strings.
method('contains', [STRING, STRING], BOOL, 'contains_string');
method('endsWith', [STRING, STRING], BOOL, 'ends_with_string');
method('startsWith', [STRING, STRING], BOOL, 'starts_with_string');
method('matches', [STRING, STRING], BOOL, 'matches_string');
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

// kube's lists library and cel-go's lists, sets and strings extensions with cel-go's type
// parameters, which the runtime declares over `dyn`: a list's `max()` is of its elements' type.
for (const name of ['sum', 'min', 'max']) method(name, [listA], A);
method('isSorted', [listA], BOOL);
for (const name of ['indexOf', 'lastIndexOf']) method(name, [listA, A], INT);
method('distinct', [listA], listA, 'list_distinct');
method('reverse', [listA], listA, 'list_reverse');
method('sort', [listA], listA, 'list_sort');
method('slice', [listA, INT, INT], listA, 'list_slice');
method('flatten', [listOf(DYN)], listOf(DYN), 'list_flatten');
method('flatten', [listOf(DYN), INT], listOf(DYN), 'list_flatten_int');
method('@sortByAssociatedKeys', [listA, listOf(B)], listA, 'list_sortByAssociatedKeys');
fn('lists.range', [INT], listOf(INT), false, 'lists_range');
for (const name of ['contains', 'equivalent', 'intersects']) fn(`sets.${name}`, [listA, listA], BOOL, false, `list_sets_${name}_list`);
method('split', [STRING, STRING], listOf(STRING));
method('split', [STRING, STRING, INT], listOf(STRING));
method('join', [listOf(STRING)], STRING);
method('join', [listOf(STRING), STRING], STRING);
// kube's format library: a named format, and a value's violations of it.
const namedFormat = opaque('kubernetes.NamedFormat');
fn('format.named', [STRING], optionalOf(namedFormat));
method('validate', [namedFormat, STRING], optionalOf(listOf(STRING)));

// Every other function of kube's libraries and cel-go's extensions, as the runtime binds them
// (the syntax helpers are typed by the checker itself). The optionals' functions are declared
// above with their contents' type, which the runtime's lack.
const typedHere = new Set(['hasValue', 'value', 'orValue', 'or', 'optional.of', 'optional.ofNonZeroValue', 'optional.none']);
/** Whether two parameter lists take the same kinds of values (a type parameter or `dyn` takes any). */
const sameShape = (a: readonly CelT[], b: readonly CelT[]) => a.length === b.length && a.every((x, i) => {
  const y = b[i];
  if (x.k === 'param' || x.k === 'dyn' || y.k === 'param' || y.k === 'dyn') return true;
  if (x.k !== y.k) return false;
  return x.k === 'prim' || x.k === 'opaque' ? (x as { name: string }).name === (y as { name: string }).name : true;
});
for (const f of kubeFunctions) {
  if (f.name.startsWith('__') || typedHere.has(f.name)) continue;
  const member = f.target !== undefined;
  const params = [...(member ? [fromCelType(f.target!)] : []), ...f.arguments.map(fromCelType)];
  if (decls.get(f.name)?.some((o) => o.member === member && sameShape(o.params, params))) continue;
  fn(f.name, params, fromCelType(f.result), member, libraryId(f.name, member, params));
}

/** The overload ids cel-go's and kube's cost estimators ask for among the libraries' functions. */
function libraryId(name: string, member: boolean, params: CelT[]): string {
  const target = member ? params[0] : undefined;
  const cidr = target?.k === 'opaque' && target.name === 'net.CIDR';
  const stringArg = params[1]?.k === 'prim' && params[1].name === 'string';
  if (cidr && name === 'ip') return 'cidr_ip';
  if (cidr && name === 'containsIP' && stringArg) return 'cidr_contains_ip_string';
  if (cidr && name === 'containsCIDR' && stringArg) return 'cidr_contains_cidr_string';
  if (name === 'format' && member) return 'string_format';
  if (name === 'strings.quote') return 'strings_quote';
  return name;
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
