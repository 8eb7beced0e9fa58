/** delete and deletecollection. */
import { successStatus } from '@windlass/machinery';
import { parseListOptions } from '../registry/listoptions.js';
import { groupVersion } from '../registry/types.js';
import { writeObject } from '../respond.js';
import { parseDeleteOptions } from './options.js';
import { representObject } from './read.js';
import type { RequestScope } from './scope.js';
import { checkPathSegmentName } from './pathname.js';

export async function deleteResource(s: RequestScope): Promise<void> {
  const opts = parseDeleteOptions(s.query, s.body, s.req.headers['content-type']);
  checkPathSegmentName(s.info.name);
  const refused = s.def.refuseDelete?.(s.info.name);
  if (refused) throw refused;
  const { object, removed } = await s.store.delete(s.info.namespace, s.info.name, opts);
  // An object kept (for finalizers or a grace period) is answered as it now is; a removed one as
  // a Success Status, except for kinds kube answers with the object (pods, namespaces). Only a
  // kept object whose request set orphanDependents=false is 202: kube keeps 200 elsewhere so as
  // not to break older clients.
  if (!removed || s.def.deleteReturnsObject) {
    writeObject(s.res, !removed && opts.orphanDependents === false ? 202 : 200, representObject(s, object), s.negotiated);
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
  const listed = await s.store.deleteCollection(s.info.namespace, listOpts, opts);
  const metadata: Record<string, unknown> = { resourceVersion: listed.resourceVersion };
  if (listed.continue) metadata.continue = listed.continue;
  if (listed.remainingItemCount !== undefined) metadata.remainingItemCount = listed.remainingItemCount;
  // Items of a typed list carry no kind/apiVersion of their own; custom resources' keep theirs.
  const items = s.def.customResource ? listed.items : listed.items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  writeObject(s.res, 200, { kind: s.def.listKind, apiVersion: groupVersion(s.def), metadata, items }, s.negotiated);
}
