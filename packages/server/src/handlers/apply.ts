/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (kube's applyPatcher). The
 * body is the manager's whole intent; the field manager merges it into the live object (or
 * a new one: apply creates), drops what this manager applied before and no longer does, and
 * refuses with 409 where it would change another manager's fields unless `force` is set.
 */
import { newBadRequest, type StatusError } from '@windlass/machinery';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import type { KubeObject } from '../registry/types.js';
import { boolParam } from '../registry/queryparams.js';
import { parseYAMLBody, YAMLSyntaxError } from './yamlbody.js';
import { writeResult } from './read.js';
import type { RequestScope } from './scope.js';
import { withWarnings, writeOptions } from './write.js';

/** The applied configuration: YAML (JSON is YAML) holding one object. */
function parseApplyBody(body: unknown, fieldValidation: string, warnings: string[]): KubeObject {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body ?? null);
  let doc;
  try {
    doc = parseYAMLBody(text);
  } catch (err) {
    if (err instanceof YAMLSyntaxError) throw newBadRequest(`error encoding patch: ${err.message}`);
    throw err;
  }
  const v = doc.value;
  if (v === null || v === undefined) throw newBadRequest('error decoding patch: Object \'Kind\' is missing in \'null\'');
  if (typeof v !== 'object' || Array.isArray(v)) {
    const what = Array.isArray(v) ? 'array' : typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'bool';
    throw newBadRequest(`error decoding patch: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  // yaml.UnmarshalStrict into a map finds repeated keys only; unknown fields are the schema's business.
  if (doc.duplicates.length > 0 && (fieldValidation === 'Strict' || fieldValidation === 'Warn')) {
    const message = `yaml: unmarshal errors:\n  ${doc.duplicates.join('\n  ')}`;
    if (fieldValidation === 'Strict') throw newBadRequest(`error strict decoding patch: ${message}`);
    warnings.push(message);
  }
  return v as KubeObject;
}

export async function applyResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'PatchOptions', true);
  const force = boolParam(s.query, 'force') === true;
  const fm = await fieldManagerFor(s.def);
  if (!fm) throw newBadRequest(`server-side apply is not supported for ${s.def.resource}`);
  const patch = parseApplyBody(s.body, opts.fieldValidation, opts.warnings);
  const { namespace, name } = s.info;
  const subresource = s.info.subresource ?? '';
  const apply = (current: KubeObject | undefined): KubeObject => fm.apply(current, structuredClone(patch), opts.fieldManager, force, subresource);
  const written = { ...opts, managedFieldsSet: true };
  await withWarnings(s, opts.warnings, async () => {
    try {
      writeResult(s, 200, await s.store.patch(namespace, name, apply, written));
    } catch (err) {
      if ((err as StatusError).code !== 404 || subresource) throw err;
      // Apply creates what does not exist yet (kube's forceAllowCreate), from the kind's empty object.
      const obj = apply(undefined);
      obj.metadata ??= {};
      if ((obj.metadata.name ?? '') !== name) throw newBadRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
      writeResult(s, 201, await s.store.create(namespace, obj, written));
    }
  });
}
