/**
 * Strategic merge patch, applied the way kube-apiserver applies
 * `application/strategic-merge-patch+json` (k8s.io/apimachinery/pkg/util/strategicpatch).
 */
import { newBadRequest, type PatchMetaLookup } from '@windlass/machinery';
import { cannotUnmarshal, decodeGoJSON } from '../gojson.js';
import { deepClone, isMap, type JSONMap } from '../util.js';
import { SMPError } from './errors.js';
import { mergeMap } from './merge.js';

/**
 * Applies a strategic merge patch body to `original` (left untouched) using the
 * patch strategies and merge keys that `meta` gives per field. Body decode errors
 * are 400; malformed directives 400; lists of lists 422; other failures 500 with
 * the Go error text, as kube-apiserver answers.
 */
export function applyStrategicMergePatch(original: object, patchBody: Buffer, meta: PatchMetaLookup): object {
  const decoded = decodeGoJSON(patchBody);
  if (!decoded.ok) throw newBadRequest(decoded.message);
  const patch = decoded.value;
  // `null` decodes into a nil map, which patches nothing.
  if (patch === null) return deepClone(original);
  if (!isMap(patch)) throw newBadRequest(cannotUnmarshal(patch, 'map[string]interface {}'));
  return strategicMergeMapPatch(original as JSONMap, patch, meta);
}

/** The same on already-decoded values; neither argument is modified. */
export function strategicMergeMapPatch(original: JSONMap, patch: JSONMap, meta: PatchMetaLookup): JSONMap {
  try {
    return mergeMap(deepClone(original), deepClone(patch), { lookup: meta, path: [] });
  } catch (e) {
    if (e instanceof SMPError) throw e.toStatusError();
    throw e;
  }
}

export { SMPError } from './errors.js';
