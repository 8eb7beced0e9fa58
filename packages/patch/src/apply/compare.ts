/**
 * compare (typed/compare.go): which fields `rhs` added, modified and removed relative to
 * `lhs`. An Update computes this for every write to learn what the writer now owns.
 */
import { FieldSet, PathElement, SetBuilder, pathToString } from './fieldpath.js';
import { ListItemError, ValidationErrors, elementKey, listItemToPathElement, resolveAtom, type Atom } from './typed.js';
import type { JsonValue, ListType, MapType, SmdType } from './types.js';
import { isObject, valuesEqual, type JsonObject } from './value.js';
import { isEmpty } from './tofieldset.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const ADDED = 0;
const MODIFIED = 1;
const REMOVED = 2;

interface Ctx {
  readonly b: SetBuilder;
  errors: { path: string; message: string }[] | undefined;
}

/** `lhs === undefined` compares against nothing: every path of `rhs` is added. */
export function compare(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: SmdType): Comparison {
  if (lhs === undefined && rhs === undefined) throw new ValidationErrors([{ path: '', message: 'at least one of lhs and rhs must be provided' }]);
  const ctx: Ctx = { b: new SetBuilder(3), errors: undefined };
  node(ctx, lhs, rhs, type);
  if (ctx.errors) throw new ValidationErrors(ctx.errors);
  const [added, modified, removed] = ctx.b.sets;
  return { added, modified, removed };
}

export function isSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}

/** Comparison.String(). */
export function comparisonToString(c: Comparison): string {
  let s = '';
  if (!c.modified.empty()) s += `- Modified Fields:\n${c.modified}\n`;
  if (!c.added.empty()) s += `- Added Fields:\n${c.added}\n`;
  if (!c.removed.empty()) s += `- Removed Fields:\n${c.removed}\n`;
  return s;
}

function error(ctx: Ctx, message: string): void {
  (ctx.errors ??= []).push({ path: pathToString(ctx.b.path), message });
}

function node(ctx: Ctx, lhs: JsonValue | undefined, rhs: JsonValue | undefined, t: SmdType): void {
  const al = resolveAtom(t, lhs);
  const ar = resolveAtom(t, rhs);
  let leaf: boolean;
  if (rhs === undefined) leaf = handle(ctx, al, lhs, rhs);
  else if (lhs === undefined || al === ar) leaf = handle(ctx, ar, lhs, rhs);
  else {
    // A deduced value that changed kind: both readings contribute (a map that became a
    // scalar is modified, and its old fields removed).
    handle(ctx, al, lhs, rhs);
    leaf = handle(ctx, ar, lhs, rhs);
  }
  if (!leaf) {
    if (lhs === undefined) ctx.b.insert(ADDED);
    else if (rhs === undefined) ctx.b.insert(REMOVED);
  }
}

/** Returns whether the node was compared as one leaf. */
function handle(ctx: Ctx, a: Atom, lhs: JsonValue | undefined, rhs: JsonValue | undefined): boolean {
  if (a.kind === 'scalar') {
    doLeaf(ctx, lhs, rhs);
    return true;
  }
  if (a.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    // Both empty or null: a leaf, so that [] vs null still shows as a change.
    if (a.atomic || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) {
      doLeaf(ctx, lhs, rhs);
      return true;
    }
    visitList(ctx, a, l, r);
    return false;
  }
  const l = isObject(lhs) ? lhs : undefined;
  const r = isObject(rhs) ? rhs : undefined;
  if (a.atomic || ((l === undefined || isEmpty(l)) && (r === undefined || isEmpty(r)))) {
    doLeaf(ctx, lhs, rhs);
    return true;
  }
  visitMap(ctx, a, l, r);
  return false;
}

function doLeaf(ctx: Ctx, lhs: JsonValue | undefined, rhs: JsonValue | undefined): void {
  if (lhs === undefined) ctx.b.insert(ADDED);
  else if (rhs === undefined) ctx.b.insert(REMOVED);
  else if (!valuesEqual(lhs, rhs)) ctx.b.insert(MODIFIED);
}

function visitMap(ctx: Ctx, t: MapType, l: JsonObject | undefined, r: JsonObject | undefined): void {
  const b = ctx.b;
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      const ft = t.field(key) ?? t.elementType;
      b.push(PathElement.field(key));
      const rv = r !== undefined && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined;
      if (ft === undefined) error(ctx, 'schema error: no type found matching: inlined type');
      else node(ctx, l[key], rv, ft);
      b.pop();
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if (l !== undefined && Object.prototype.hasOwnProperty.call(l, key)) continue;
      const ft = t.field(key) ?? t.elementType;
      b.push(PathElement.field(key));
      if (ft === undefined) error(ctx, 'schema error: no type found matching: inlined type');
      else node(ctx, undefined, r[key], ft);
      b.pop();
    }
  }
}

interface Entry {
  pe: PathElement;
  l: JsonValue[] | undefined;
  r: JsonValue[] | undefined;
}

function index(ctx: Ctx, t: ListType, list: JsonValue[] | undefined, byKey: Map<string, Entry>, order: Entry[], lhs: boolean): void {
  if (list === undefined) return;
  for (let i = 0; i < list.length; i++) {
    let pe: PathElement;
    try {
      pe = listItemToPathElement(t, list[i]);
    } catch (e) {
      if (!(e instanceof ListItemError)) throw e;
      error(ctx, `element ${i}: ${e.message}`);
      continue;
    }
    const k = elementKey(pe);
    let entry = byKey.get(k);
    if (entry === undefined) {
      entry = { pe, l: undefined, r: undefined };
      byKey.set(k, entry);
      order.push(entry);
    }
    if (lhs) (entry.l ??= []).push(list[i]);
    else (entry.r ??= []).push(list[i]);
  }
}

function visitList(ctx: Ctx, t: ListType, l: JsonValue[] | undefined, r: JsonValue[] | undefined): void {
  const byKey = new Map<string, Entry>();
  const order: Entry[] = [];
  index(ctx, t, l, byKey, order, true);
  index(ctx, t, r, byKey, order, false);
  const b = ctx.b;
  const elem = t.elementType;
  for (const { pe, l: ll, r: rl } of order) {
    const ln = ll?.length ?? 0;
    const rn = rl?.length ?? 0;
    b.push(pe);
    if (ln <= 1 && rn <= 1) node(ctx, ll?.[0], rl?.[0], elem);
    else if (ln >= 2 && rn >= 2) {
      // Duplicated before and after: the duplicates are compared as one atomic value.
      let same = ln === rn;
      for (let i = 0; same && i < ln; i++) same = valuesEqual(ll![i], rl![i]);
      if (!same) b.insert(MODIFIED);
    } else if (ln >= 2) {
      // No longer duplicated: the single new item is added field by field, the duplicate marker removed.
      if (rn !== 0) node(ctx, undefined, rl![0], elem);
      b.insert(REMOVED);
    } else {
      if (ln !== 0) node(ctx, ll![0], undefined, elem);
      b.insert(ADDED);
    }
    b.pop();
  }
}
