/**
 * The schema view server-side apply works on: structured-merge-diff's atoms (scalar, map,
 * list) with their element relationships, as kube's type converter derives them from the
 * OpenAPI markers (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`, and patch strategy/merge key where no list type is given).
 * Types are resolved lazily: schemas are recursive (JSONSchemaProps refers to itself).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ScalarType {
  readonly kind: 'scalar';
  /** SMD's scalar kinds, for the applied values a type conversion refuses; absent: any scalar. */
  readonly scalar?: 'string' | 'numeric' | 'boolean' | 'untyped';
}

/** A struct (declared fields), a map (an element type for every key), or both. */
export interface MapType {
  readonly kind: 'map';
  /** `x-kubernetes-map-type: atomic` (or a struct marked atomic): the whole map is one leaf. */
  readonly atomic: boolean;
  /** The declared field `name`, if the schema has one (SMD's FindField). */
  field(name: string): SmdType | undefined;
  /** The type of keys that are not declared fields; undefined when there is none (a pure struct). */
  readonly elementType: SmdType | undefined;
  /**
   * The schema default of a declared field (SMD's StructField.Default): a map-list item that
   * leaves out a key field is keyed by its default (`protocol: TCP` on container ports).
   */
  fieldDefault?(name: string): JsonValue | undefined;
}

export interface ListType {
  readonly kind: 'list';
  readonly atomic: boolean;
  /** For a non-atomic list: the key fields of a map-list; `[]` for a set (items are their own keys). */
  readonly keys: readonly string[];
  readonly elementType: SmdType;
}

/** SMD's "deduced" type (`__untyped_deduced_`): objects are granular maps of itself, lists atomic. */
export interface UntypedType {
  readonly kind: 'untyped';
  /**
   * Optional (added by the SMD port): SMD's `__untyped_atomic_` (RawExtension, fields of
   * unknown type): any value, but always one leaf, never descended into.
   */
  readonly atomic?: boolean;
}

export type SmdType = ScalarType | MapType | ListType | UntypedType;
