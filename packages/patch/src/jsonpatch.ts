/**
 * RFC 6902 JSON patch as kube-apiserver applies it (gopkg.in/evanphx/json-patch.v4,
 * called from apiserver's patch handler). Navigation and error checks follow evanphx
 * so the 422 messages and edge cases match (negative array indices, `replace` of a
 * missing object key acting as `add`, a `test` against null matching a missing
 * value). Operations mutate a private copy; fast-json-patch supplies the RFC 6901
 * key decoding and the deep equality of `test`.
 */
import fjp from 'fast-json-patch';
import { newBadRequest, newRequestEntityTooLarge } from '@windlass/machinery';
import { genericUnprocessable } from './errors.js';
import { cannotUnmarshal, decodeGoJSON, goJSONKind } from './gojson.js';
import { deepClone, isMap, setKey } from './util.js';

export const maxJSONPatchOperations = 10000;

export interface JSONPatchOptions {
  /**
   * kube decodes the body strictly first unless fieldValidation=Ignore, which adds the
   * `error decoding patch: ` prefix to decode errors. Default `Warn`, as kube's default.
   */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

type Json = unknown;
type Container = Record<string, Json> | Json[];

class OpError extends Error {}

const decodeKey = (k: string) => fjp.unescapePathComponent(k);

interface Found {
  con: Container;
  key: string;
}

/** evanphx findObject: the container holding the last path token, or undefined. */
function findObject(doc: Container, path: string): Found | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let cur: Json = doc;
  for (const part of split.slice(1, -1)) {
    const next = getChild(cur as Container, decodeKey(part));
    if (next === undefined || next === null || typeof next !== 'object') return undefined;
    cur = next;
  }
  return { con: cur as Container, key: decodeKey(split[split.length - 1]) };
}

// Go's strconv.Atoi: optional sign, decimal digits only.
function atoi(key: string): number | undefined {
  return /^[+-]?\d+$/.test(key) ? Number(key) : undefined;
}

function getChild(con: Container, key: string): Json | undefined {
  if (!Array.isArray(con)) return Object.prototype.hasOwnProperty.call(con, key) ? con[key] : undefined;
  const idx = arrayIndex(key, con.length);
  return idx === undefined ? undefined : con[idx];
}

/** An index in [0, limit) after resolving negatives from the end, as evanphx v4 allows. */
function arrayIndex(key: string, limit: number): number | undefined {
  let idx = atoi(key);
  if (idx === undefined) return undefined;
  if (idx < 0) {
    if (idx < -limit) return undefined;
    idx += limit;
  }
  return idx < limit ? idx : undefined;
}

/** Sets an object member, or an array element at `idx` (inserting when `insert`). */
function put(found: Found, value: Json, idx?: number, insert = false): void {
  if (Array.isArray(found.con)) {
    if (insert) found.con.splice(idx ?? found.con.length, 0, deepClone(value));
    else found.con[idx!] = deepClone(value);
  } else {
    setKey(found.con, found.key, deepClone(value));
  }
}

interface Op {
  op?: unknown;
  path?: unknown;
  from?: unknown;
  value?: unknown;
}

function strField(op: Op, name: 'path' | 'from', what: string): string {
  const v = op[name];
  if (typeof v !== 'string') throw new OpError(`${what}: missing value`);
  return v;
}

function add(doc: Container, op: Op): Container {
  const path = strField(op, 'path', 'add operation failed to decode path');
  const value = 'value' in op ? op.value : null;
  const found = findObject(doc, path);
  if (!found) throw new OpError(`add operation does not apply: doc is missing path: "${path}": missing value`);
  const { con, key } = found;
  if (Array.isArray(con) && key !== '-') {
    const n = atoi(key);
    if (n === undefined) {
      throw new OpError(`error in add for path: '${path}': value was not a proper array index: '${key}': strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
    }
    const idx = arrayIndex(key, con.length + 1);
    if (idx === undefined) throw new OpError(`error in add for path: '${path}': Unable to access invalid index: ${n}: invalid index referenced`);
    put(found, value, idx, true);
    return doc;
  }
  put(found, value, undefined, true);
  return doc;
}

function remove(doc: Container, op: Op): Container {
  const path = strField(op, 'path', 'remove operation failed to decode path');
  const found = findObject(doc, path);
  if (!found) throw new OpError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  const { con, key } = found;
  if (Array.isArray(con)) {
    const idx = arrayIndex(key, con.length);
    if (idx === undefined) throw new OpError(`error in remove for path: '${path}': Unable to access invalid index: ${atoi(key) ?? key}: invalid index referenced`);
    con.splice(idx, 1);
    return doc;
  }
  if (!Object.prototype.hasOwnProperty.call(con, key)) {
    throw new OpError(`error in remove for path: '${path}': Unable to remove nonexistent key: ${key}: missing value`);
  }
  delete con[key];
  return doc;
}

function replace(doc: Container, op: Op): Container {
  const path = strField(op, 'path', 'replace operation failed to decode path');
  const value = 'value' in op ? op.value : null;
  if (path === '') {
    if (typeof value !== 'object' || value === null) throw new OpError('replace operation value must be object or array: %!w(<nil>)');
    return deepClone(value) as Container;
  }
  const found = findObject(doc, path);
  if (!found) throw new OpError(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  const { con, key } = found;
  if (Array.isArray(con)) {
    const idx = arrayIndex(key, con.length);
    if (idx === undefined) throw new OpError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    put(found, value, idx);
    return doc;
  }
  // evanphx treats a missing object key as present (its get answers nil without error).
  put(found, value);
  return doc;
}

function valueAt(doc: Container, path: string, what: string): { con: Container; key: string; value: Json } {
  const found = findObject(doc, path);
  if (!found) throw new OpError(`${what} operation does not apply: doc is missing from path: ${path}: missing value`);
  return { ...found, value: getChild(found.con, found.key) };
}

function moveOrCopy(doc: Container, op: Op, kind: 'move' | 'copy'): Container {
  const from = strField(op, 'from', `${kind} operation failed to decode from`);
  const src = valueAt(doc, from, kind);
  if (kind === 'move') {
    if (Array.isArray(src.con) && arrayIndex(src.key, src.con.length) === undefined) {
      throw new OpError(`error in move for path: '${src.key}': Unable to access invalid index: ${atoi(src.key) ?? src.key}: invalid index referenced`);
    }
    if (!Array.isArray(src.con) && !Object.prototype.hasOwnProperty.call(src.con, src.key)) {
      throw new OpError(`error in move for path: '${src.key}': Unable to remove nonexistent key: ${src.key}: missing value`);
    }
    doc = remove(doc, { op: 'remove', path: from });
  } else if (Array.isArray(src.con) && arrayIndex(src.key, src.con.length) === undefined) {
    throw new OpError(`error in copy for from: '${from}': Unable to access invalid index: ${atoi(src.key) ?? src.key}: invalid index referenced`);
  }
  const path = strField(op, 'path', `${kind} operation failed to decode path`);
  if (!findObject(doc, path)) {
    throw new OpError(`${kind} operation does not apply: doc is missing destination path: ${path}: missing value`);
  }
  return add(doc, { op: 'add', path, value: src.value === undefined ? null : src.value });
}

function test(doc: Container, op: Op): Container {
  const path = strField(op, 'path', 'test operation failed to decode path');
  const expected = 'value' in op ? op.value : null;
  const failed = () => new OpError(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (!fjp._areEquals(doc, expected)) throw failed();
    return doc;
  }
  const found = findObject(doc, path);
  if (!found) throw new OpError(`test operation does not apply: is missing path: ${path}: missing value`);
  const { con, key } = found;
  if (Array.isArray(con) && arrayIndex(key, con.length) === undefined) {
    throw new OpError(`error in test for path: '${path}': Unable to access invalid index: ${atoi(key) ?? key}: invalid index referenced`);
  }
  const actual = getChild(con, key);
  // A missing or null value matches only a null (or absent) expected value.
  if (actual === undefined || actual === null) {
    if (expected === null) return doc;
    throw failed();
  }
  if (expected === null || !fjp._areEquals(actual, expected)) throw failed();
  return doc;
}

function applyOne(doc: Container, op: Op): Container {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add':
      return add(doc, op);
    case 'remove':
      return remove(doc, op);
    case 'replace':
      return replace(doc, op);
    case 'move':
      return moveOrCopy(doc, op, 'move');
    case 'copy':
      return moveOrCopy(doc, op, 'copy');
    case 'test':
      return test(doc, op);
    default:
      throw new OpError(`Unexpected kind: ${kind}`);
  }
}

/**
 * What decoding reports when an operation has the wrong shape: the strict decoder
 * into kube's jsonPatchOp struct checks field types, evanphx's DecodePatch (used
 * alone under fieldValidation=Ignore) only that each operation is an object.
 */
function checkOpShapes(ops: unknown[], strict: boolean): string | undefined {
  for (const op of ops) {
    if (op === null) continue;
    if (!isMap(op)) return cannotUnmarshal(op, strict ? 'handlers.jsonPatchOp' : 'jsonpatch.Operation');
    if (!strict) continue;
    for (const f of ['op', 'path', 'from'] as const) {
      const v = op[f];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        return `json: cannot unmarshal ${goJSONKind(v)} into Go struct field jsonPatchOp.${f} of type string`;
      }
    }
  }
  return undefined;
}

/**
 * Applies an RFC 6902 patch body to `original` (left untouched). Undecodable or
 * non-array bodies are 400; a failing operation is 422; over 10000 operations 413.
 */
export function applyJsonPatch(original: object, patchBody: Buffer, opts: JSONPatchOptions = {}): object {
  const strict = (opts.fieldValidation ?? 'Warn') !== 'Ignore';
  const prefix = strict ? 'error decoding patch: ' : '';
  const decoded = decodeGoJSON(patchBody);
  if (!decoded.ok) throw newBadRequest(prefix + decoded.message);
  const body = decoded.value;
  if (body !== null && !Array.isArray(body)) {
    throw newBadRequest(prefix + cannotUnmarshal(body, strict ? '[]handlers.jsonPatchOp' : 'jsonpatch.Patch'));
  }
  const ops = (body ?? []) as unknown[];
  const shapeError = checkOpShapes(ops, strict);
  if (shapeError !== undefined) throw newBadRequest(prefix + shapeError);
  if (ops.length > maxJSONPatchOperations) {
    throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${ops.length}`);
  }
  let doc = deepClone(original) as Container;
  for (const op of ops) {
    try {
      doc = applyOne(doc, (op ?? {}) as Op);
    } catch (e) {
      if (e instanceof OpError) throw genericUnprocessable(e.message);
      throw e;
    }
  }
  return doc;
}
