/** delete and deletecollection. */
import { successStatus } from '@windlass/machinery';
import { parseListOptions } from '../registry/listoptions.js';
import { groupVersion } from '../registry/types.js';
import { writeObject } from '../respond.js';
import { parseDeleteOptions } from './options.js';
import { representObject } from './read.js';
import type { RequestScope } from './scope.js';

export async function deleteResource(s: RequestScope): Promise<void> {
  const opts = parseDeleteOptions(s.query, s.body, s.req.headers['content-type']);
  const refused = s.def.refuseDelete?.(s.info.name);
  if (refused) throw refused;
  const { object, removed } = await s.store.delete(s.info.namespace, s.info.name, opts);
  // An object kept for finalizers is answered as it now is; a removed one as a Success
  // Status, except for kinds kube answers with the object (namespaces).
  if (!removed || s.def.deleteReturnsObject) {
    writeObject(s.res, 200, representObject(s, object), s.negotiated);
    return;
  }
  const details: Record<string, string> = { name: s.info.name };
  if (s.def.group) details.group = s.def.group;
  details.kind = s.def.resource;
  details.uid = object.metadata.uid ?? '';
  // kube's delete answers a Success Status without a code.
  const { code: _, ...status } = successStatus(details);
  writeObject(s.res, 200, status, s.negotiated);
}

export async function deleteCollection(s: RequestScope): Promise<void> {
  const opts = parseDeleteOptions(s.query, s.body, s.req.headers['content-type']);
  const listOpts = parseListOptions(s.query, false);
  const deleted = await s.store.deleteCollection(s.info.namespace, listOpts, opts);
  for (const item of deleted) {
    delete item.kind;
    delete item.apiVersion;
  }
  writeObject(s.res, 200, { kind: s.def.listKind, apiVersion: groupVersion(s.def), metadata: {}, items: deleted }, s.negotiated);
}
