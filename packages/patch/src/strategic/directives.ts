/**
 * The `$patch`, `$retainKeys`, `$deleteFromPrimitiveList/…` and `$setElementOrder/…`
 * directives that are not about list order (see order.ts for that).
 */
import { hasKey, isMap, type JSONMap } from '../util.js';
import {
  SMPError,
  errBadPatchFormatForPrimitiveList,
  errBadPatchFormatForRetainKeys,
  errBadPatchFormatForSetElementOrderList,
  errBadPatchType,
} from './errors.js';

export const directiveMarker = '$patch';
export const retainKeysDirective = '$retainKeys';
export const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
export const setElementOrderPrefix = '$setElementOrder';

/** `$patch` on a map: replace it by the rest of the patch map, or delete its contents. */
export function handleDirectiveInMergeMap(directive: unknown, patch: JSONMap): JSONMap {
  if (directive === 'replace') {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === 'delete') return {};
  throw errBadPatchType(directive, patch);
}

export function containsDirectiveMarker(item: unknown): boolean {
  return isMap(item) && hasKey(item, directiveMarker);
}

/** The field name after `$setElementOrder/` or `$deleteFromPrimitiveList/`. */
export function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === deleteFromPrimitiveListPrefix) throw errBadPatchFormatForPrimitiveList();
    if (prefix === setElementOrderPrefix) throw errBadPatchFormatForSetElementOrderList();
    throw new SMPError(`fail to find unknown prefix "${prefix}" in ${s}\n`);
  }
  return s.slice(slash + 1);
}

/**
 * Drops values that carry `$patch` (maps, recursively) from a value that is copied
 * into the result wholesale; answers whether the value itself is kept.
 */
export function removeDirectives(obj: unknown): { value: unknown; keep: boolean } {
  if (isMap(obj)) {
    if (hasKey(obj, directiveMarker)) return { value: undefined, keep: false };
    for (const k of Object.keys(obj)) {
      const r = removeDirectives(obj[k]);
      if (r.keep) obj[k] = r.value;
      else delete obj[k];
    }
    return { value: obj, keep: true };
  }
  if (Array.isArray(obj)) {
    const res: unknown[] = [];
    for (const v of obj) {
      const r = removeDirectives(v);
      if (r.keep) res.push(r.value);
    }
    return { value: res, keep: true };
  }
  return { value: obj, keep: true };
}

/** Null members of a value copied wholesale would mean "delete" of something absent, so they go. */
export function discardNullValuesFromPatch(v: unknown): void {
  if (isMap(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const e of v) discardNullValuesFromPatch(e);
  }
}

/**
 * `$retainKeys`: every key of the original missing from the list is cleared, and
 * every non-null key of the patch must be in the list.
 */
export function applyRetainKeysDirective(original: JSONMap, patch: JSONMap): void {
  if (!hasKey(patch, retainKeysDirective)) return;
  const list = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(list)) throw errBadPatchFormatForRetainKeys();
  const retained = new Set<unknown>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!retained.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) {
    if (!retained.has(k)) delete original[k];
  }
}
