/**
 * Merging of lists whose field has patchStrategy merge (or a `$deleteFromPrimitiveList`
 * parallel list): scalars are unioned, maps are matched by patchMergeKey and merged.
 */
import type { JSONMap } from '../util.js';
import { SMPError, errBadArgType, errBadPatchType, errNoListOfLists, errNoMergeKey, goFormat, goKind, type GoKind } from './errors.js';
import { directiveMarker } from './directives.js';
import { mergeMap } from './merge.js';
import { findMapByKey, normalizeElementOrder, partitionByPresence } from './order.js';
import type { Schema } from './schema.js';

/** The common Go type of all elements; lists of lists and mixed lists are refused. */
export function sliceElementType(...slices: (readonly unknown[] | undefined)[]): GoKind {
  let prev: GoKind | undefined;
  for (const s of slices) {
    for (const v of s ?? []) {
      const cur = goKind(v);
      if (prev === undefined) {
        // Go calls Kind() on the nil reflect.Type of a null element and panics.
        if (cur === 'nil') throw new SMPError('runtime error: invalid memory address or nil pointer dereference');
        if (cur === 'slice') throw errNoListOfLists();
        prev = cur;
      } else if (prev !== cur) {
        throw new SMPError(`list element types are not identical: ${goFormat(slices.map((x) => x ?? []))}`);
      }
    }
  }
  if (prev === undefined) throw new SMPError('no elements in any of the given slices');
  return prev;
}

/**
 * Go's in-place de-duplication; its swaps decide which copy survives where. With an
 * empty patch Go's append returns the original slice itself, so the swaps land in the
 * caller's list too (which later serves as the live order); `shared` reproduces that.
 */
function deduplicateScalars(s: unknown[], shared: boolean): unknown[] {
  if (!shared) s = [...s];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        length--;
        j--;
      }
    }
  }
  return s.slice(0, length + 1);
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const del = new Set(toDelete);
  return current.filter((v) => !del.has(v));
}

/**
 * A Go slice: a window [0, len) on a backing array that other slices may share. kube's
 * list merge deletes and appends in place, and the caller's view of the live list
 * (used later for ordering) sees those writes; kube's expected results depend on it.
 */
interface GoSlice {
  backing: unknown[];
  len: number;
}

const view = (s: GoSlice) => s.backing.slice(0, s.len);

// append(s[:i], s[i+1:]...): shifts the tail left inside the shared backing array.
function deleteMatchingEntries(s: GoSlice, mergeKey: string, value: unknown): void {
  for (let found = findMapByKey(view(s), mergeKey, value); found; found = findMapByKey(view(s), mergeKey, value)) {
    s.backing.copyWithin(found.index, found.index + 1, s.len);
    s.len--;
  }
}

// append(s, v): writes in place while the backing array has room, else reallocates.
function goAppend(s: GoSlice, v: unknown): void {
  if (s.len < s.backing.length) s.backing[s.len] = v;
  else s.backing = [...view(s), v];
  s.len++;
}

/** Applies `$patch` elements of a map list; answers the remaining original and patch items. */
function mergeSliceWithSpecialElements(original: GoSlice, patch: unknown[], mergeKey: string): { original: GoSlice; patch: unknown[] } {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JSONMap;
    if (!Object.prototype.hasOwnProperty.call(m, directiveMarker)) {
      plain.push(v);
      continue;
    }
    const directive = m[directiveMarker];
    if (directive === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      deleteMatchingEntries(original, mergeKey, m[mergeKey]);
    } else if (directive === 'replace') {
      // Keep scanning: other `$patch` elements are still removed from the result.
      replace = true;
    } else if (directive === 'merge') {
      throw new SMPError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  return replace ? { original: { backing: plain, len: plain.length }, patch: [] } : { original, patch: plain };
}

function mergeSliceWithoutSpecialElements(original: GoSlice, patch: unknown[], mergeKey: string, schema: Schema): unknown[] {
  const out: GoSlice = { ...original };
  for (const v of patch) {
    const m = v as JSONMap;
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const found = findMapByKey(view(out), mergeKey, m[mergeKey]);
    if (found) out.backing[found.index] = mergeMap(found.map, m, schema);
    else goAppend(out, v);
  }
  return view(out);
}

/** `original` may be modified in place where Go's slices would be (see GoSlice). */
export function mergeSlice(original: unknown[], patch: unknown[], schema: Schema, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const t = sliceElementType(original, patch);
  if (t !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    const merged = deduplicateScalars(patch.length === 0 ? original : [...original, ...patch], patch.length === 0);
    const { inPatch, serverOnly } = partitionByPresence(merged, patch, '');
    return normalizeElementOrder(inPatch, serverOnly, patch, original, '', 'scalar');
  }
  if (mergeKey === '') throw new SMPError('cannot merge lists without merge key for struct');
  const special = mergeSliceWithSpecialElements({ backing: original, len: original.length }, patch, mergeKey);
  const merged = mergeSliceWithoutSpecialElements(special.original, special.patch, mergeKey, schema);
  const { inPatch, serverOnly } = partitionByPresence(merged, special.patch, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, special.patch, view(special.original), mergeKey, 'map');
}

/** A list field: merged when its strategy is merge (or for a deletion list), else replaced by the patch. */
export function mergeSliceHandler(
  original: unknown,
  patch: unknown,
  schema: Schema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  if (!Array.isArray(original)) throw errBadArgType('slice', original);
  if (!Array.isArray(patch)) throw errBadArgType('slice', patch);
  if (strategy === 'merge' || isDeleteList) return mergeSlice(original, patch, schema, mergeKey, isDeleteList);
  return patch;
}
