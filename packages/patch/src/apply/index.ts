/**
 * Server-side apply's field ownership machinery: a TypeScript port of
 * sigs.k8s.io/structured-merge-diff (field sets, FieldsV1, typed compare/merge/remove,
 * and the Updater behind managedFields).
 */
export type { JsonValue, SmdType, ScalarType, MapType, ListType, UntypedType } from './types.js';
export { FieldSet, PathElement, SetBuilder, makePath, pathToString, comparePaths, pathsEqual, type Path, type KeyField, type SetNode } from './fieldpath.js';
export { fieldSetToJSON, fieldSetFromJSON, fieldSetFromObject, serializePathElement, deserializePathElement, PathElementParseError } from './serialize.js';
export { compareValues, valuesEqual, valueToString } from './value.js';
export { toFieldSet } from './tofieldset.js';
export { compare, isSame, comparisonToString, type Comparison } from './compare.js';
export { merge } from './merge.js';
export { removeItems, extractItems } from './remove.js';
export { ensureNamedFieldsAreMembers, reconcileFieldSetWithSchema } from './schemasets.js';
export { ValidationErrors, listItemToPathElement, ListItemError } from './typed.js';
export { Updater, MissingVersionError, type ManagedFields, type VersionedSet, type UpdaterOptions, type UpdateResult } from './updater.js';
export { Conflicts, conflictMessage, conflictsMessage, type Conflict } from './conflict.js';
