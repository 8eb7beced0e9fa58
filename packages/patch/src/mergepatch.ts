/**
 * RFC 7386 JSON merge patch as kube-apiserver applies it (evanphx/json-patch v4
 * MergePatch). Written out rather than taken from json-merge-patch because that
 * library stops at a `constructor`/`prototype` key (legal ConfigMap keys) and does
 * not drop nulls nested in arrays the way kube does.
 */
import { newBadRequest } from '@windlass/machinery';
import { cannotUnmarshal, decodeGoJSON } from './gojson.js';
import { deepClone, hasKey, isMap, setKey, type JSONMap } from './util.js';

export interface MergePatchOptions {
  /** As for JSON patch: anything but `Ignore` decodes strictly first (`error decoding patch: …`). */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

const badPatch = () => newBadRequest('Invalid JSON Patch');

// Null members are deletions; where a patch value is inserted wholesale they are dropped, also inside arrays.
function pruneNulls(v: unknown): unknown {
  if (isMap(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else pruneNulls(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const e of v) if (e !== null) pruneNulls(e);
  }
  return v;
}

function mergeDocs(doc: JSONMap, patch: JSONMap): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = hasKey(doc, k) ? doc[k] : null;
    if (cur === null) setKey(doc, k, pruneNulls(v));
    else if (!isMap(cur)) setKey(doc, k, pruneNulls(v));
    else if (!isMap(v)) setKey(doc, k, v); // evanphx returns a non-object patch value as is here
    else mergeDocs(cur, v);
  }
}

/**
 * Applies a merge patch body to `original` (left untouched). Undecodable bodies and
 * bodies that are not objects are 400, with kube's messages.
 */
export function applyMergePatch(original: object, patchBody: Buffer, opts: MergePatchOptions = {}): object {
  const strict = (opts.fieldValidation ?? 'Warn') !== 'Ignore';
  const decoded = decodeGoJSON(patchBody);
  if (!decoded.ok) throw strict ? newBadRequest(`error decoding patch: ${decoded.message}`) : badPatch();
  const patch = deepClone(decoded.value);
  if (strict && patch !== null && !isMap(patch)) {
    throw newBadRequest(`error decoding patch: ${cannotUnmarshal(patch, 'map[string]interface {}')}`);
  }
  if (patch === null) throw badPatch();
  if (Array.isArray(patch)) {
    // Only reachable with fieldValidation=Ignore: the array replaces the document and
    // the caller's decode into the kind rejects it.
    return pruneNulls(patch) as object;
  }
  if (!isMap(patch)) throw badPatch();
  const doc = deepClone(original) as JSONMap;
  mergeDocs(doc, patch);
  return doc;
}
