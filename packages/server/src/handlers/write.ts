/** create (POST), update (PUT) and patch (PATCH). */
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@windlass/patch';
import { loadedSchemas, loadSchemas, patchMetaFor } from '@windlass/schemas';
import { requireBodyType, patchBodyTypes } from '../negotiation.js';
import type { KubeObject } from '../registry/types.js';
import { decodeObjectBody } from './body.js';
import { addWarnings, decodeTyped, typedDecoder } from './typed.js';
import { parseModifyOptions } from './options.js';
import { dedupOwnerReferences } from './ownerrefs.js';
import { writeResult } from './read.js';
import type { RequestScope } from './scope.js';

/** The write options of a request: its query's, who asks, the subresource written as the whole object, and where warnings go. */
function writeOptions(s: RequestScope, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions') {
  return { ...parseModifyOptions(s.query, kind), user: s.user, subresource: s.info.subresource, warnings: [] as string[] };
}

/**
 * Runs a write and sends the warnings it recorded, on success and on failure alike (kube's
 * recorder writes them into the headers of whatever response follows).
 */
async function withWarnings<T>(s: RequestScope, warnings: string[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    addWarnings(s.res, warnings);
  }
}

function warnOnDuplicateOwners(obj: KubeObject, afterPatch: boolean, warnings: string[]): void {
  const warning = dedupOwnerReferences(obj, afterPatch);
  if (warning) warnings.push(warning);
}

export async function createResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'CreateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  decodeTyped(await typedDecoder(s.def), obj, s.def, opts.fieldValidation, s.res);
  warnOnDuplicateOwners(obj, false, opts.warnings);
  writeResult(s, 201, await withWarnings(s, opts.warnings, () => s.store.create(s.info.namespace, obj, opts)));
}

export async function updateResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'UpdateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  decodeTyped(await typedDecoder(s.def), obj, s.def, opts.fieldValidation, s.res);
  warnOnDuplicateOwners(obj, false, opts.warnings);
  const { object, created } = await withWarnings(s, opts.warnings, () => s.store.update(s.info.namespace, s.info.name, obj, opts));
  writeResult(s, created ? 201 : 200, object);
}

export async function patchResource(s: RequestScope): Promise<void> {
  const patchType = requireBodyType(s.req.headers['content-type'], patchBodyTypes);
  const opts = writeOptions(s, 'PatchOptions');
  const body = s.body;
  const schemas = loadedSchemas() ?? (await loadSchemas());
  const meta = patchMetaFor(schemas, { group: s.def.group, version: s.def.version, kind: s.def.kind });
  const decoder = await typedDecoder(s.def);
  const patched = (current: KubeObject): KubeObject => {
    switch (patchType) {
      case 'application/json-patch+json':
        return applyJsonPatch(current, body) as KubeObject;
      case 'application/merge-patch+json':
        return applyMergePatch(current, body) as KubeObject;
      default:
        return applyStrategicMergePatch(current, body, meta) as KubeObject;
    }
  };
  // The patched object is decoded as a body would be: its types checked, unknown fields handled.
  const apply = (current: KubeObject): KubeObject => {
    const obj = patched(current);
    decodeTyped(decoder, obj, s.def, opts.fieldValidation, s.res, Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body));
    warnOnDuplicateOwners(obj, true, opts.warnings);
    return obj;
  };
  writeResult(s, 200, await withWarnings(s, opts.warnings, () => s.store.patch(s.info.namespace, s.info.name, apply, opts)));
}
