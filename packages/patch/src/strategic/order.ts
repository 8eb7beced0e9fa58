/**
 * Element order of merged lists: patch items follow the patch (or `$setElementOrder`),
 * server-only items keep their live order, and the two are interleaved by the live
 * order (k8s.io/apimachinery strategicpatch normalizeElementOrder and friends).
 */
import { hasKey, isMap } from '../util.js';
import { SMPError, errBadArgType, errNoMergeKey, goFormat } from './errors.js';
import { containsDirectiveMarker, directiveMarker, setElementOrderPrefix } from './directives.js';

/** Whether list elements are maps (matched by merge key) or scalars (matched by value). */
export type ElemKind = 'map' | 'scalar';

function keyOf(item: unknown, mergeKey: string, kind: ElemKind): unknown {
  if (kind !== 'map') return item;
  return isMap(item) ? item[mergeKey] : undefined;
}

/** Position of `val` in `l` by merge key (maps) or value (scalars); -1 if absent. */
export function indexIn(l: readonly unknown[], val: unknown, mergeKey: string, kind: ElemKind): number {
  const want = keyOf(val, mergeKey, kind);
  return l.findIndex((v) => keyOf(v, mergeKey, kind) === want);
}

export function findMapByKey(list: readonly unknown[], key: string, value: unknown): { map: Record<string, unknown>; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isMap(v)) throw new SMPError(`value for key ${i} is not a map`);
    if (hasKey(v, key) && v[key] === value) return { map: v, index: i };
  }
  return undefined;
}

function validateMergeKeyInLists(mergeKey: string, ...lists: readonly unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw errBadArgType('map', item);
      if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Splits a patch list into ordinary items and `$patch: delete` items. */
export function extractToDeleteItems(l: readonly unknown[]): { keep: unknown[]; toDelete: unknown[] } {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of l) {
    if (!isMap(v)) throw errBadArgType('map', v);
    if (v[directiveMarker] === 'delete') toDelete.push(v);
    else keep.push(v);
  }
  return { keep, toDelete };
}

/**
 * Go sorts with sort.SliceStable and a `less` that is true whenever either item is
 * missing from `order`; an insertion sort with the same `less` gives the same result.
 */
function normalizeSliceOrder(toSort: unknown[], order: readonly unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  let toDelete: unknown[] = [];
  let items = [...toSort];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, items, order as unknown[]);
    ({ keep: items, toDelete } = extractToDeleteItems(items));
  }
  const less = (a: unknown, b: unknown) => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = indexIn(order, b, mergeKey, kind);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j], items[j - 1]); j--) {
      [items[j], items[j - 1]] = [items[j - 1], items[j]];
    }
  }
  return items.concat(toDelete);
}

/**
 * Inserts the server-only items (`left`) among the patch items (`right`), keeping the
 * relative order of each list; where both are in the live list its order decides.
 */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

export function normalizeElementOrder(
  patch: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElemKind,
): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** Splits merged items into those named by `by` (patch items) and the rest (server-only). */
export function partitionByPresence(merged: readonly unknown[], by: readonly unknown[], mergeKey: string): { inPatch: unknown[]; serverOnly: unknown[] } {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  if (mergeKey === '') {
    const set = new Set(by);
    for (const v of merged) (set.has(v) ? inPatch : serverOnly).push(v);
    return { inPatch, serverOnly };
  }
  for (const v of merged) {
    if (!isMap(v)) throw errBadArgType('map', v);
    if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]) ? inPatch : serverOnly).push(v);
  }
  return { inPatch, serverOnly };
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isMap(left)) throw errBadArgType('map', left);
  if (!isMap(right)) throw errBadArgType('map', right);
  if (!hasKey(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/** The patch list must follow the relative order of `$setElementOrder` and be covered by it. */
export function validatePatchWithSetOrderList(patchList: readonly unknown[], setOrderList: readonly unknown[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey !== '' ? extractToDeleteItems(patchList).keep : patchList;
  let pi = 0;
  let si = 0;
  while (pi < nonDelete.length && si < setOrderList.length) {
    if (containsDirectiveMarker(nonDelete[pi])) {
      pi++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[pi], setOrderList[si], mergeKey)) pi++;
    si++;
  }
  if (pi < nonDelete.length && si >= setOrderList.length) {
    throw new SMPError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(setOrderList)}\n`,
    );
  }
}
