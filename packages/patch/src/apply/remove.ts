/**
 * removeItems / extractItems (typed/remove.go): the value without (or with only) the
 * fields and items of a set. Apply prunes what an applier stopped applying with it.
 * Untouched subtrees are shared with the input.
 */
import { FieldSet, PathElement } from './fieldpath.js';
import { ListItemError, listItemToPathElement, resolveAtom } from './typed.js';
import type { JsonValue, ListType, MapType, SmdType } from './types.js';
import { isObject, type JsonObject } from './value.js';
import { isEmpty } from './tofieldset.js';

/** The value without the set's members (with everything below them). */
export function removeItems(value: JsonValue, type: SmdType, set: FieldSet): JsonValue {
  return walk(value, set, type, false) ?? null;
}

/** Only the set's members (with everything below them); the parents that lead to them stay. */
export function extractItems(value: JsonValue, type: SmdType, set: FieldSet): JsonValue {
  return walk(value, set, type, true) ?? null;
}

// undefined stands for SMD's nil output, which its callers turn into null.
function walk(v: JsonValue, set: FieldSet, t: SmdType | undefined, extract: boolean): JsonValue | undefined {
  if (t === undefined) return undefined;
  const a = resolveAtom(t, v);
  if (a.kind === 'scalar') return v;
  if (a.kind === 'list') return Array.isArray(v) ? walkList(v, set, a, extract) : undefined;
  return isObject(v) ? walkMap(v, set, a, extract) : undefined;
}

function walkList(list: JsonValue[], set: FieldSet, t: ListType, extract: boolean): JsonValue | undefined {
  // Empty lists and atomic lists are not descended: extract keeps them whole, remove drops them.
  if (list.length === 0 || t.atomic) return extract ? list : undefined;
  const out: JsonValue[] = [];
  for (let item of list) {
    let pe: PathElement;
    try {
      pe = listItemToPathElement(t, item);
    } catch (e) {
      if (!(e instanceof ListItemError)) throw e;
      // Validated values cannot get here; SMD would name the item with an empty element.
      if (!extract) out.push(item);
      continue;
    }
    const exact = set.hasMember(pe);
    const sub = set.child(pe);
    const prefix = sub !== undefined && !sub.empty();
    if (extract) {
      if (prefix) item = walk(item, sub, t.elementType, true) ?? null;
      if (exact || prefix) out.push(item);
    } else {
      if (exact) continue;
      if (prefix) item = walk(item, sub, t.elementType, false) ?? null;
      out.push(item);
    }
  }
  return out.length > 0 ? out : undefined;
}

function walkMap(m: JsonObject, set: FieldSet, t: MapType, extract: boolean): JsonValue | undefined {
  if (isEmpty(m) || t.atomic) return extract ? m : undefined;
  const out: JsonObject = {};
  let any = false;
  for (const key of Object.keys(m)) {
    const pe = PathElement.field(key);
    const ft = t.field(key) ?? t.elementType;
    let val: JsonValue = m[key];
    if (set.hasMember(pe)) {
      if (!extract) continue;
      // SMD passes the whole set down here, not the subset under the key.
      val = walk(val, set, ft, true) ?? null;
    } else {
      const sub = set.child(pe);
      if (sub !== undefined && !sub.empty()) val = walk(val, sub, ft, extract) ?? null;
      else if (extract) continue;
    }
    if (key === '__proto__') Object.defineProperty(out, key, { value: val, enumerable: true, writable: true, configurable: true });
    else out[key] = val;
    any = true;
  }
  return any ? out : undefined;
}
