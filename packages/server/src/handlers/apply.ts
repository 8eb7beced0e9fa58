/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (kube's applyPatcher). The
 * body is the manager's whole intent; the field manager merges it into the live object (or
 * a new one: apply creates), drops what this manager applied before and no longer does, and
 * refuses with 409 where it would change another manager's fields unless `force` is set.
 */
import { goJSONType, newBadRequest, type StatusError } from '@windlass/machinery';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import type { FieldManager } from '../fieldmanager/fieldmanager.js';
import type { KubeObject } from '../registry/types.js';
import { boolParam } from '../registry/queryparams.js';
import { parseYAMLBody, YAMLSyntaxError } from './yamlbody.js';
import { applyCBORPatchType, decodeCBORApplyBody } from '../cbor.js';
import { bodyMediaType } from '../negotiation.js';
import { writeResult } from './read.js';
import type { RequestScope } from './scope.js';
import { withWarnings, writeOptions } from './write.js';
import { checkPathSegmentName } from './pathname.js';
import { ensureNameMatches } from '../registry/objectmeta.js';

/**
 * The applied configuration: YAML (JSON is YAML) holding one object, read as kube reads it
 * (sigs.k8s.io/yaml into a map: `null` is an empty object, other non-objects are refused), with
 * the keys the YAML repeats, which yaml.UnmarshalStrict reports.
 */
export function parseApplyBody(body: unknown): { patch: KubeObject; duplicates: string[] } {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body ?? null);
  let doc;
  try {
    doc = parseYAMLBody(text);
  } catch (err) {
    // kube 1.35's applyPatcher: sigs.k8s.io/yaml.Unmarshal into a map, "error decoding YAML: …".
    if (err instanceof YAMLSyntaxError) throw newBadRequest(`error decoding YAML: error converting YAML to JSON: ${err.message}`);
    throw err;
  }
  const v = doc.value ?? {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw newBadRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJSONType(v)} into Go value of type map[string]interface {}`);
  }
  return { patch: v as KubeObject, duplicates: doc.duplicates };
}

/**
 * The field manager's apply of `patch` onto the object it is given, then the body's repeated
 * keys as fieldValidation says: kube checks them only once the apply itself succeeded
 * (applyPatchToCurrentObject); Strict refuses, Warn (the default) warns once, one warning per
 * line of the YAML error (addStrictDecodingWarnings).
 */
export function applier(
  fm: FieldManager, patch: KubeObject, duplicates: string[],
  opts: { fieldValidation: string; fieldManager: string; warnings: string[] }, force: boolean, subresource: string,
): (current: KubeObject | undefined) => KubeObject {
  const strict = opts.fieldValidation === 'Strict' && duplicates.length > 0;
  const warn = (opts.fieldValidation === 'Warn' || opts.fieldValidation === '') && duplicates.length > 0;
  let warned = false;
  return (current) => {
    const out = fm.apply(current, structuredClone(patch), opts.fieldManager, force, subresource);
    if (strict) throw newBadRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
    if (warn && !warned) opts.warnings.push(...duplicates);
    warned = true;
    return out;
  };
}

export async function applyResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'PatchOptions', true);
  const force = boolParam(s.query, 'force') === true;
  checkPathSegmentName(s.info.name);
  const fm = await fieldManagerFor(s.def);
  if (!fm) throw newBadRequest(`server-side apply is not supported for ${s.def.resource}`);
  // application/apply-patch+cbor (CBORServingAndStorage) reaches here as the apply patch type too;
  // a CBOR map cannot repeat a key, so it has no duplicates to report.
  const cbor = bodyMediaType(s.req.headers['content-type']) === applyCBORPatchType;
  const { patch, duplicates } = cbor ? { patch: decodeCBORApplyBody(Buffer.isBuffer(s.body) ? s.body : Buffer.alloc(0)) as KubeObject, duplicates: [] } : parseApplyBody(s.body);
  const { namespace, name } = s.info;
  const subresource = s.info.subresource ?? '';
  const apply = applier(fm, patch, duplicates, opts, force, subresource);
  const written = { ...opts, managedFieldsSet: true };
  // Warnings go into the headers, so the answer is written once the write returned.
  const { object, created } = await withWarnings(s, opts.warnings, async () => {
    try {
      return { object: await s.store.patch(namespace, name, apply, written), created: false };
    } catch (err) {
      if ((err as StatusError).code !== 404 || subresource) throw err;
      // Apply creates what does not exist yet (kube's forceAllowCreate), from the kind's empty object.
      const obj = apply(undefined);
      obj.metadata ??= {};
      ensureNameMatches(obj, name);
      return { object: await s.store.create(namespace, obj, written), created: true };
    }
  });
  writeResult(s, created ? 201 : 200, object);
}
