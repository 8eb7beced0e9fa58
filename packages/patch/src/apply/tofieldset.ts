/**
 * toFieldSet (typed/tofieldset.go): every field and item a value mentions, the set an
 * applier owns after an apply.
 */
import { FieldSet, PathElement, SetBuilder, pathToString } from './fieldpath.js';
import { ListItemError, ValidationErrors, elementKey, listItemToPathElement, resolveAtom } from './typed.js';
import type { JsonValue, ListType, MapType, SmdType } from './types.js';
import { isObject, type JsonObject } from './value.js';

interface Ctx {
  readonly b: SetBuilder;
  errors: { path: string; message: string }[] | undefined;
}

export function toFieldSet(value: JsonValue, type: SmdType): FieldSet {
  const ctx: Ctx = { b: new SetBuilder(1), errors: undefined };
  walk(ctx, value, type);
  if (ctx.errors) throw new ValidationErrors(ctx.errors);
  return ctx.b.sets[0];
}

function walk(ctx: Ctx, v: JsonValue, t: SmdType): void {
  const a = resolveAtom(t, v);
  if (a.kind === 'scalar') ctx.b.insert();
  else if (a.kind === 'list') {
    if (a.atomic) ctx.b.insert();
    else if (Array.isArray(v)) visitList(ctx, a, v);
  } else if (a.atomic) ctx.b.insert();
  else if (isObject(v)) visitMap(ctx, a, v);
}

function visitList(ctx: Ctx, t: ListType, list: JsonValue[]): void {
  const n = list.length;
  if (n === 0) return;
  const pes: (PathElement | undefined)[] = new Array(n);
  // Items that appear more than once are owned as a whole: only the item path, no children.
  let seen: Set<string> | undefined;
  let dups: Set<string> | undefined;
  let keys: string[] | undefined;
  for (let i = 0; i < n; i++) {
    try {
      pes[i] = listItemToPathElement(t, list[i]);
    } catch (e) {
      // SMD ignores the error here (validation reports it) but cannot name the item either.
      if (!(e instanceof ListItemError)) throw e;
    }
  }
  if (n > 1) {
    seen = new Set();
    keys = new Array(n);
    for (let i = 0; i < n; i++) {
      const pe = pes[i];
      if (pe === undefined) continue;
      const k = (keys[i] = elementKey(pe));
      if (!seen.has(k)) seen.add(k);
      else if (!dups?.has(k)) {
        (dups ??= new Set()).add(k);
        ctx.b.insertChild(pe);
      }
    }
  }
  const elem = t.elementType;
  for (let i = 0; i < n; i++) {
    const pe = pes[i];
    if (pe === undefined || (dups !== undefined && dups.has(keys![i]))) continue;
    ctx.b.push(pe);
    walk(ctx, list[i], elem);
    ctx.b.insert();
    ctx.b.pop();
  }
}

function visitMap(ctx: Ctx, t: MapType, m: JsonObject): void {
  const b = ctx.b;
  for (const key of Object.keys(m)) {
    const val = m[key];
    const declared = t.field(key);
    const ft = declared ?? t.elementType;
    b.push(PathElement.field(key));
    if (ft === undefined) {
      (ctx.errors ??= []).push({ path: pathToString(b.path), message: 'schema error: no type found matching: inlined type' });
    } else walk(ctx, val, ft);
    // A null or empty map has no children to stand for it; an undeclared key is owned as a whole.
    if (val === null || declared === undefined || (isObject(val) && isEmpty(val))) b.insert();
    b.pop();
  }
}

export function isEmpty(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}
