/**
 * The map level of the strategic merge patch (strategicpatch.mergeMap), with the
 * server-side options kube-apiserver uses: parallel lists are applied and nulls that
 * match nothing are ignored.
 */
import { hasKey, isMap, setKey, type JSONMap } from '../util.js';
import { errBadArgType, goKind } from './errors.js';
import {
  applyRetainKeysDirective,
  deleteFromPrimitiveListPrefix,
  directiveMarker,
  discardNullValuesFromPatch,
  extractKey,
  handleDirectiveInMergeMap,
  removeDirectives,
  setElementOrderPrefix,
} from './directives.js';
import { normalizeElementOrder, partitionByPresence, validatePatchWithSetOrderList } from './order.js';
import { lookupField, type Schema } from './schema.js';
import { mergeSliceHandler, sliceElementType } from './slices.js';

/** Copies a patch value into the result wholesale, minus nulls and `$patch` maps. */
function takePatchValue(original: JSONMap, k: string, patchV: unknown): void {
  discardNullValuesFromPatch(patchV);
  const r = removeDirectives(patchV);
  if (r.keep) setKey(original, k, r.value);
  else delete original[k];
}

/** Merges `patch` into `original`, which it mutates; both must be private copies. */
export function mergeMap(original: JSONMap | undefined, patch: JSONMap, schema: Schema): JSONMap {
  if (hasKey(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);
  const orig = original ?? {};
  applyRetainKeysDirective(orig, patch);
  mergePatchIntoOriginal(orig, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchV = patch[patchKey];
    let k = patchKey;
    let isDeleteList = false;
    if (k.startsWith(deleteFromPrimitiveListPrefix)) {
      k = extractKey(k, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete orig[k];
      continue;
    }
    if (!hasKey(orig, k) || goKind(orig[k]) !== goKind(patchV)) {
      // A deletion list for a field the original lacks (or holds as another type) is moot.
      if (!isDeleteList) takePatchValue(orig, k, patchV);
      continue;
    }
    const origV = orig[k];
    if (isMap(origV)) {
      const f = lookupField(schema, k);
      setKey(orig, k, f.strategy === 'replace' ? patchV : mergeMap(origV, patchV as JSONMap, f.sub));
    } else if (Array.isArray(origV)) {
      const f = lookupField(schema, k);
      setKey(orig, k, mergeSliceHandler(origV, patchV, f.sub, f.strategy, f.mergeKey, isDeleteList));
    } else {
      const r = removeDirectives(patchV);
      if (r.keep) setKey(orig, k, r.value);
      else delete orig[k];
    }
  }
  return orig;
}

/**
 * `$setElementOrder/<field>`: merges that field's patch list right away and orders
 * the result by the directive (then the patch, then the live list), so a later pass
 * over the patch does not see the list again.
 */
function mergePatchIntoOriginal(original: JSONMap, patch: JSONMap, schema: Schema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) throw errBadArgType('slice', setOrder);
    const field = extractKey(key, setElementOrderPrefix);
    const foundOriginal = hasKey(original, field);
    const foundPatch = hasKey(patch, field);
    const originalList = original[field];
    const patchList = patch[field];
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType('slice', originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType('slice', patchList);
    const origArr = (foundOriginal ? originalList : undefined) as unknown[] | undefined;
    const patchArr = (foundPatch ? patchList : undefined) as unknown[] | undefined;

    const f = lookupField(schema, field);
    validatePatchWithSetOrderList(patchArr ?? [], setOrder, f.mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = origArr!;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchArr).value as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(origArr, patchArr, f.sub, f.strategy, f.mergeKey, false);
    else continue;

    const { inPatch, serverOnly } = partitionByPresence(merged, setOrder, f.mergeKey);
    const kind = sliceElementType(origArr, patchArr) === 'map' ? 'map' : 'scalar';
    setKey(original, field, normalizeElementOrder(inPatch, serverOnly, setOrder, origArr ?? [], f.mergeKey, kind));
    delete patch[field];
  }
}
