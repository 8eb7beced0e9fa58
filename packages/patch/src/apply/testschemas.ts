/**
 * Builders for SmdTypes in tests, and the schemas of structured-merge-diff's own test
 * tables (typed/*_test.go), written with them.
 */
import type { JsonValue, ListType, MapType, SmdType } from './types.js';

export const scalar: SmdType = { kind: 'scalar' };
export const deduced: SmdType = { kind: 'untyped' };
export const untypedAtomic: SmdType = { kind: 'untyped', atomic: true };

type Lazy = SmdType | (() => SmdType);
const force = (t: Lazy): SmdType => (typeof t === 'function' ? t() : t);

export function struct(
  fields: Record<string, Lazy>,
  opts: { elementType?: Lazy; atomic?: boolean; defaults?: Record<string, JsonValue> } = {},
): MapType {
  const table = new Map(Object.entries(fields));
  return {
    kind: 'map',
    atomic: opts.atomic ?? false,
    field: (name) => {
      const t = table.get(name);
      return t === undefined ? undefined : force(t);
    },
    get elementType() {
      return opts.elementType === undefined ? undefined : force(opts.elementType);
    },
    fieldDefault: (name) => opts.defaults?.[name],
  };
}

export const mapOf = (elementType: Lazy, atomic = false): MapType => struct({}, { elementType, atomic });

export function list(elementType: Lazy, keys: readonly string[] | 'atomic' = []): ListType {
  return {
    kind: 'list',
    atomic: keys === 'atomic',
    keys: keys === 'atomic' ? [] : keys,
    get elementType() {
      return force(elementType);
    },
  };
}

export const stringPair = struct({ key: scalar, value: untypedAtomic });

export const structGrabBag = struct({
  numeric: scalar,
  string: scalar,
  bool: scalar,
  setStr: list(scalar),
  setBool: list(scalar),
  setNumeric: list(scalar),
  color: struct({ R: scalar, G: scalar, B: scalar }, { atomic: true }),
  arbitraryWavelengthColor: mapOf(scalar, true),
  args: list(struct({ key: scalar, value: scalar }), 'atomic'),
});

const myValue = mapOf(scalar);
const myElement = struct({ key: scalar, id: scalar, value: myValue, bv: scalar, nv: scalar });
export const associativeRoot = struct({
  list: list(myElement, ['key', 'id']),
  atomicList: list(scalar, 'atomic'),
});

const myAtomicMap = struct({ id: scalar }, { elementType: scalar, atomic: true });
export const associativeAndAtomic = struct({
  list: list(myElement, ['key', 'id']),
  atomicList: list(scalar, 'atomic'),
  atomicMap: myAtomicMap,
  atomicElementList: list(myAtomicMap, ['id']),
});

const setOfStrings = list(scalar);
const stringMap = mapOf(scalar);
const mapOfMapsRecursive: MapType = mapOf(() => mapOfMapsRecursive);
export const nestedTypes = struct({
  listOfLists: list(struct({ name: scalar, value: setOfStrings }), ['name']),
  listOfMaps: list(struct({ name: scalar, value: stringMap }), ['name']),
  mapOfLists: mapOf(setOfStrings),
  mapOfMaps: mapOf(stringMap),
  mapOfMapsRecursive,
  struct: struct({ name: scalar, value: scalar }),
});

export const nestedMapOfUntypedAtomic = struct({ inner: mapOf(untypedAtomic) });
export const nestedStruct = struct({ inner: struct({ value: untypedAtomic }) });
export const nestedAtomicList = struct({ inner: list(untypedAtomic, 'atomic') });
const recursiveMap: MapType = mapOf(() => recursiveMap);
export const nestedMap = recursiveMap;
