/**
 * What the typed walkers share (typed/helpers.go): picking the atom a value is handled
 * as, the path element of a list item, and SMD's validation error shape.
 */
import { PathElement, type KeyField } from './fieldpath.js';
import { serializePathElement } from './serialize.js';
import type { JsonValue, ListType, MapType, ScalarType, SmdType, UntypedType } from './types.js';
import { goJSON, isObject } from './value.js';

/** ValidationError / ValidationErrors: `path: message`, several as an indented list. */
export class ValidationErrors extends Error {
  constructor(readonly errors: readonly { path: string; message: string }[]) {
    super(formatErrors(errors));
    this.name = 'ValidationErrors';
  }
}

function formatErrors(errors: readonly { path: string; message: string }[]): string {
  const one = (e: { path: string; message: string }) => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errors.length === 1) return one(errors[0]);
  return ['errors:', ...errors.map((e) => `  ${one(e)}`)].join('\n');
}

export const SCALAR: ScalarType = { kind: 'scalar' };
const DEDUCED: UntypedType = { kind: 'untyped' };
const ATOMIC_UNTYPED: UntypedType = { kind: 'untyped', atomic: true };
const noField = () => undefined;
// SMD's __untyped_deduced_ is three atoms at once; a value picks one of them.
const DEDUCED_MAP: MapType = { kind: 'map', atomic: false, field: noField, elementType: DEDUCED };
const DEDUCED_LIST: ListType = { kind: 'list', atomic: true, keys: [], elementType: DEDUCED };
const ATOMIC_MAP: MapType = { kind: 'map', atomic: true, field: noField, elementType: ATOMIC_UNTYPED };
const ATOMIC_LIST: ListType = { kind: 'list', atomic: true, keys: [], elementType: ATOMIC_UNTYPED };

export type Atom = ScalarType | MapType | ListType;

/**
 * deduceAtom: the atom `v` is handled as. Only untyped types depend on the value; null and
 * absent values take the map atom, as SMD's handleAtom tries Map first. The same atom
 * object comes back for the same choice, so callers compare atoms with `===`.
 */
export function resolveAtom(t: SmdType, v: JsonValue | undefined): Atom {
  if (t.kind !== 'untyped') return t;
  const atomic = t.atomic === true;
  if (v === null || v === undefined) return atomic ? ATOMIC_MAP : DEDUCED_MAP;
  if (typeof v !== 'object') return SCALAR;
  if (Array.isArray(v)) return atomic ? ATOMIC_LIST : DEDUCED_LIST;
  return atomic ? ATOMIC_MAP : DEDUCED_MAP;
}

/** The type of map entry `key`: its declared field, else the element type. */
export function fieldType(t: MapType, key: string): SmdType | undefined {
  return t.field(key) ?? t.elementType;
}

export class ListItemError extends Error {}

function goQuotedList(keys: readonly string[]): string {
  return `[${keys.map((k) => JSON.stringify(k)).join(' ')}]`;
}

/**
 * listItemToPathElement: a map-list item is named by its key fields (or their schema
 * defaults), a set item by its value. Throws SMD's messages for items that cannot be named.
 */
export function listItemToPathElement(list: ListType, child: JsonValue): PathElement {
  if (list.atomic) throw new ListItemError('invalid indexing of non-associative list');
  const keys = list.keys;
  if (keys.length > 0) {
    if (child === null) throw new ListItemError('associative list with keys may not have a null element');
    if (!isObject(child)) throw new ListItemError('associative list with keys may not have non-map elements');
    const fields: KeyField[] = [];
    for (const name of keys) {
      if (Object.prototype.hasOwnProperty.call(child, name)) {
        fields.push({ name, value: child[name] });
        continue;
      }
      const def = keyDefault(list, name);
      if (def !== undefined && def !== null) fields.push({ name, value: def });
    }
    if (fields.length === 0) {
      throw new ListItemError(
        `associative list with keys has an element that omits all key fields ${goQuotedList(keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return PathElement.key(fields);
  }
  if (child === null) throw new ListItemError("associative list without keys has an element that's an explicit null");
  if (Array.isArray(child)) throw new ListItemError('not supported: associative list with lists as elements');
  if (typeof child === 'object') throw new ListItemError("associative list without keys has an element that's a map type");
  return PathElement.value(child);
}

function keyDefault(list: ListType, name: string): JsonValue | undefined {
  const elem = list.elementType;
  if (elem.kind === 'untyped') return undefined;
  if (elem.kind !== 'map') throw new ListItemError(`couldn't find default value for ${name}: associative list may not have non-map types`);
  return elem.field(name) !== undefined ? elem.fieldDefault?.(name) : undefined;
}

/**
 * A string that is equal exactly for equal list-item path elements (key fields are
 * sorted, lengths prefixed), cheaper than the FieldsV1 key. Walkers index list items by it.
 */
export function elementKey(pe: PathElement): string {
  const key = pe.key;
  if (key !== undefined) {
    let s = 'k';
    for (let i = 0; i < key.length; i++) s += `${key[i].name.length}:${key[i].name}${valueKey(key[i].value)}`;
    return s;
  }
  if (pe.value !== undefined) return `v${valueKey(pe.value)}`;
  return serializePathElement(pe);
}

function valueKey(v: JsonValue): string {
  switch (typeof v) {
    case 'string':
      return `s${v.length}:${v}`;
    case 'number':
      return `n${v};`;
    case 'boolean':
      return v ? 't' : 'f';
    default: {
      // null, lists and maps: Go's JSON form sorts keys, so equal values give equal strings.
      const j = goJSON(v);
      return `j${j.length}:${j}`;
    }
  }
}
