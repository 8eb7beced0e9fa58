/**
 * Strategic-merge-patch metadata of a field, shared by @windlass/patch (which applies
 * patches) and @windlass/schemas (which knows the markers), so neither depends on the other.
 */

/** The `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` markers of one field. */
export interface PatchMeta {
  /** e.g. `merge`, `replace`, `retainKeys`, `merge,retainKeys`. */
  patchStrategy?: string;
  patchMergeKey?: string;
}

/**
 * Markers of the field at `path`: JSON field names from the root object, list elements
 * not counted (['spec', 'containers', 'ports'] is the ports field of a container) and a
 * map entry counted by its key. Unknown paths answer `{}`.
 */
export type PatchMetaLookup = (path: readonly string[]) => PatchMeta;

/** For objects without a schema: every list is replaced and every map merged. */
export const noPatchMeta: PatchMetaLookup = () => ({});
