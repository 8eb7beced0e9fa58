/**
 * merge (typed/merge.go): an applied configuration laid over the live object. `rhs` wins
 * on leaves, maps merge key by key, map-lists and sets merge item by item, atomic values
 * are replaced. The result shares untouched subtrees with both inputs (no copies).
 */
import { PathElement, pathToString, type Path } from './fieldpath.js';
import { ListItemError, ValidationErrors, elementKey, listItemToPathElement, resolveAtom, type Atom } from './typed.js';
import type { JsonValue, ListType, MapType, SmdType } from './types.js';
import { isObject, type JsonObject } from './value.js';
import { isEmpty } from './tofieldset.js';

interface Ctx {
  readonly path: PathElement[];
  errors: { path: string; message: string }[] | undefined;
}

/** The merged value; null when there is nothing (both sides absent or empty of output). */
export function merge(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: SmdType): JsonValue {
  if (lhs === undefined && rhs === undefined) throw new ValidationErrors([{ path: '', message: 'at least one of lhs and rhs must be provided' }]);
  const ctx: Ctx = { path: [], errors: undefined };
  const out = node(ctx, lhs, rhs, type);
  if (ctx.errors) throw new ValidationErrors(ctx.errors);
  return out === undefined ? null : out;
}

function error(ctx: Ctx, path: Path, message: string): void {
  (ctx.errors ??= []).push({ path: pathToString(path), message });
}

function node(ctx: Ctx, lhs: JsonValue | undefined, rhs: JsonValue | undefined, t: SmdType): JsonValue | undefined {
  // When a deduced value changes kind SMD also walks the old reading, but only for its
  // errors: its output is dropped, so the reading of rhs alone decides the result.
  return handle(ctx, resolveAtom(t, rhs === undefined ? lhs : rhs), lhs, rhs);
}

function handle(ctx: Ctx, a: Atom, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
  if (a.kind === 'scalar') return rhs !== undefined ? rhs : lhs;
  if (a.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    // Both empty or null: a leaf, which keeps rhs's [] or null as written.
    if (a.atomic || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) return rhs !== undefined ? rhs : lhs;
    return visitList(ctx, a, l, r);
  }
  const l = isObject(lhs) ? lhs : undefined;
  const r = isObject(rhs) ? rhs : undefined;
  if (a.atomic || ((l === undefined || isEmpty(l)) && (r === undefined || isEmpty(r)))) return rhs !== undefined ? rhs : lhs;
  return visitMap(ctx, a, l, r);
}

function setOwn(o: JsonObject, k: string, v: JsonValue): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function visitMap(ctx: Ctx, t: MapType, l: JsonObject | undefined, r: JsonObject | undefined): JsonValue | undefined {
  const out: JsonObject = {};
  let any = false;
  const path = ctx.path;
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      const rv = r !== undefined && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined;
      const ft = t.field(key) ?? t.elementType;
      path.push(PathElement.field(key));
      let v: JsonValue | undefined;
      if (ft === undefined) error(ctx, path, 'schema error: no type found matching: inlined type');
      else v = node(ctx, l[key], rv, ft);
      path.pop();
      if (v !== undefined) {
        setOwn(out, key, v);
        any = true;
      }
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if (l !== undefined && Object.prototype.hasOwnProperty.call(l, key)) continue;
      const ft = t.field(key) ?? t.elementType;
      path.push(PathElement.field(key));
      let v: JsonValue | undefined;
      if (ft === undefined) error(ctx, path, 'schema error: no type found matching: inlined type');
      else v = node(ctx, undefined, r[key], ft);
      path.pop();
      if (v !== undefined) {
        setOwn(out, key, v);
        any = true;
      }
    }
  }
  return any ? out : undefined;
}

interface Indexed {
  pes: PathElement[];
  keys: string[];
  /** Item per key; a key seen twice on the lhs maps to null (duplicates are not merged). */
  observed: Map<string, JsonValue>;
}

function index(ctx: Ctx, t: ListType, list: JsonValue[] | undefined, allowDuplicates: boolean): Indexed | undefined {
  const out: Indexed = { pes: [], keys: [], observed: new Map() };
  if (list === undefined) return out;
  let ok = true;
  for (let i = 0; i < list.length; i++) {
    let pe: PathElement;
    try {
      pe = listItemToPathElement(t, list[i]);
    } catch (e) {
      if (!(e instanceof ListItemError)) throw e;
      error(ctx, ctx.path, `element ${i}: ${e.message}`);
      ok = false;
      continue;
    }
    const k = elementKey(pe);
    if (out.observed.has(k)) {
      if (!allowDuplicates) {
        error(ctx, ctx.path, `duplicate entries for key ${pe.toString()}`);
        ok = false;
        continue;
      }
      out.observed.set(k, null);
    } else out.observed.set(k, list[i]);
    out.pes.push(pe);
    out.keys.push(k);
  }
  return ok ? out : undefined;
}

/**
 * Output order (SMD's): items shared by both sides come in rhs's order; lhs-only items
 * stay where they were relative to them; rhs-only items come where rhs puts them.
 */
function visitList(ctx: Ctx, t: ListType, lhs: JsonValue[] | undefined, rhs: JsonValue[] | undefined): JsonValue | undefined {
  const ri = index(ctx, t, rhs, false);
  const li = index(ctx, t, lhs, true);
  if (ri === undefined || li === undefined) return undefined;
  const { pes: lPEs, keys: lKeys, observed: lObs } = li;
  const { pes: rPEs, keys: rKeys, observed: rObs } = ri;
  const shared: string[] = [];
  for (const k of rKeys) if (lObs.has(k)) shared.push(k);
  let sharedAt = 0;
  let nextShared: string | undefined = shared[sharedAt++];
  const mergedRHS = new Set<string>();
  const out: JsonValue[] = [];
  const elem = t.elementType;
  const item = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined) => {
    ctx.path.push(pe);
    // Nested errors are dropped here, as SMD's merge drops them (its err variable is shadowed).
    const saved = ctx.errors;
    ctx.errors = undefined;
    const v = node(ctx, l, r, elem);
    ctx.errors = saved;
    ctx.path.pop();
    if (v !== undefined) out.push(v);
  };
  const lLen = lPEs.length;
  const rLen = rPEs.length;
  let lI = 0;
  let rI = 0;
  while (lI < lLen || rI < rLen) {
    if (lI < lLen && rI < rLen) {
      const k = lKeys[lI];
      if (k === rKeys[rI]) {
        mergedRHS.add(k);
        item(lPEs[lI], lObs.get(k), rObs.get(k));
        lI++;
        rI++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (rObs.has(k) && nextShared !== undefined && nextShared !== k) {
        // A shared item, but not the next one in rhs's order: it is emitted when rhs reaches it.
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const k = lKeys[lI];
      if (!rObs.has(k)) {
        item(lPEs[lI], lhs![lI], undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(k)) lI++;
    }
    if (rI < rLen) {
      const k = rKeys[rI];
      mergedRHS.add(k);
      item(rPEs[rI], lObs.get(k), rObs.get(k));
      rI++;
      if (nextShared !== undefined && nextShared === k) nextShared = shared[sharedAt++];
    }
  }
  return out.length > 0 ? out : undefined;
}
