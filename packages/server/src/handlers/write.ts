/** create (POST), update (PUT) and patch (PATCH). */
import { newUnsupportedMediaType } from '@windlass/machinery';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@windlass/patch';
import { loadedSchemas, loadSchemas, patchMetaFor } from '@windlass/schemas';
import { bodyMediaType, isApplyPatchType, requireBodyType, patchBodyTypes } from '../negotiation.js';
import { managerOrUserAgent } from '../fieldmanager/managedfields.js';
import { applyResource } from './apply.js';
import type { KubeObject } from '../registry/types.js';
import { checkPatchedKind, decodeObjectBody } from './body.js';
import { addWarnings, decodeTyped, typedDecoder } from './typed.js';
import { parseModifyOptions } from './options.js';
import { dedupOwnerReferences } from './ownerrefs.js';
import { writeResult } from './read.js';
import type { RequestScope } from './scope.js';
import { checkPathSegmentName } from './pathname.js';

/**
 * The write options of a request: its query's, who asks, the manager managedFields record (kube's
 * managerOrUserAgent), the subresource written as the whole object, and where warnings go.
 */
export function writeOptions(s: RequestScope, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false) {
  const { dryRun, fieldManager, fieldValidation } = parseModifyOptions(s.query, kind, apply);
  const manager = managerOrUserAgent(fieldManager, s.req.headers['user-agent']);
  // Spelled out, not spread from the parsed options: on Node 20 every object the spread made was
  // promoted to the old generation (measured on 409 answers to stale PUTs: ~350 KB per young
  // collection, none with the fields written out).
  return { dryRun, fieldManager, fieldValidation, user: s.user, manager, subresource: s.info.subresource, warnings: [] as string[] };
}

/**
 * Runs a write and sends the warnings it recorded, on success and on failure alike (kube's
 * recorder writes them into the headers of whatever response follows).
 */
export async function withWarnings<T>(s: RequestScope, warnings: string[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    addWarnings(s.res, warnings);
  }
}

/**
 * decodeTyped, keeping an empty `metadata.managedFields` list: decoding drops empty optional
 * lists, but for this one Go's non-nil empty slice is the request to reset the entries.
 */
function decodeRequestObject(decoder: Awaited<ReturnType<typeof typedDecoder>>, obj: KubeObject, s: RequestScope, fieldValidation: string, patch?: string): void {
  const reset = Array.isArray(obj.metadata?.managedFields) && obj.metadata.managedFields.length === 0;
  decodeTyped(decoder, obj, s.def, fieldValidation, s.res, patch);
  if (reset) obj.metadata.managedFields = [];
}

function warnOnDuplicateOwners(obj: KubeObject, afterPatch: boolean, warnings: string[]): void {
  const warning = dedupOwnerReferences(obj, afterPatch);
  if (warning) warnings.push(warning);
}

export async function createResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'CreateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  decodeRequestObject(await typedDecoder(s.def), obj, s, opts.fieldValidation);
  warnOnDuplicateOwners(obj, false, opts.warnings);
  writeResult(s, 201, await withWarnings(s, opts.warnings, () => s.store.create(s.info.namespace, obj, opts)));
}

export async function updateResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s, 'UpdateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  decodeRequestObject(await typedDecoder(s.def), obj, s, opts.fieldValidation);
  warnOnDuplicateOwners(obj, false, opts.warnings);
  checkPathSegmentName(s.info.name);
  const { object, created } = await withWarnings(s, opts.warnings, () => s.store.update(s.info.namespace, s.info.name, obj, opts));
  writeResult(s, created ? 201 : 200, object);
}

export async function patchResource(s: RequestScope): Promise<void> {
  // A custom resource's patch handler checks the type itself (apiextensions-apiserver serves no
  // go-restful route, whose 415 names no types): anything else, missing included, lists its types.
  const customType = s.def.patchTypes ? bodyMediaType(s.req.headers['content-type']) : undefined;
  if (customType !== undefined && !s.def.patchTypes!.includes(customType)) throw newUnsupportedMediaType(customType, [...s.def.patchTypes!]);
  const patchType = requireBodyType(s.req.headers['content-type'], patchBodyTypes);
  if (isApplyPatchType(patchType)) return applyResource(s);
  const opts = writeOptions(s, 'PatchOptions');
  checkPathSegmentName(s.info.name);
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
    checkPatchedKind(obj, s.def, patchType === 'application/strategic-merge-patch+json');
    decodeRequestObject(decoder, obj, s, opts.fieldValidation, Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body));
    warnOnDuplicateOwners(obj, true, opts.warnings);
    return obj;
  };
  writeResult(s, 200, await withWarnings(s, opts.warnings, () => s.store.patch(s.info.namespace, s.info.name, apply, opts)));
}
