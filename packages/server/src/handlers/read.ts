/** get and list. */
import { encodeListProtobuf, protobufMediaType, wrapProtobufMessage } from '@windlass/machinery';
import { protobufMessages } from '../cacher/protobufmessages.js';
import { parseListOptions } from '../registry/listoptions.js';
import { partialObjectMetadata, partialObjectMetadataList, parseIncludeObject, toTable } from '../table.js';
import { groupVersion, type KubeObject } from '../registry/types.js';
import { writeBytes, writeObject } from '../respond.js';
import type { CachedObject } from '../cacher/cachedobject.js';
import type { RequestScope } from './scope.js';
import { checkPathSegmentName } from './pathname.js';

export async function getResource(s: RequestScope): Promise<void> {
  checkPathSegmentName(s.info.name);
  writeResult(s, 200, await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? ''));
}

/** One object in the negotiated representation; plain JSON is the cache's bytes, encoded once and shared. */
export function writeResult(s: RequestScope, code: number, cached: CachedObject): void {
  if (s.negotiated.as === 'object' && s.negotiated.mediaType === 'application/json' && !s.negotiated.pretty) {
    return writeBytes(s.res, code, cached.objectBytes(), 'application/json', s.gzip);
  }
  if (s.negotiated.as === 'object' && s.negotiated.mediaType === protobufMediaType) {
    const message = protobufMessages.get(cached);
    if (message) return writeBytes(s.res, code, wrapProtobufMessage(groupVersion(s.def), s.def.kind, message), protobufMediaType, s.gzip);
  }
  writeObject(s.res, code, representObject(s, cached.object), s.negotiated, s.gzip);
}

export function representObject(s: RequestScope, obj: KubeObject): unknown {
  switch (s.negotiated.as) {
    case 'Table':
      return toTable(s.def, [obj], { resourceVersion: obj.metadata.resourceVersion }, parseIncludeObject(s.query.get('includeObject')));
    case 'PartialObjectMetadata':
      return partialObjectMetadata(obj);
    default:
      return obj;
  }
}

export async function listResource(s: RequestScope): Promise<void> {
  const opts = parseListOptions(s.query, false);
  const result = await s.store.list(s.info.namespace, opts);
  const listMeta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) listMeta.continue = result.continue;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  const objects = () => result.items.map((i) => i.object);
  switch (s.negotiated.as) {
    case 'Table':
      return writeObject(s.res, 200, toTable(s.def, objects(), listMeta, parseIncludeObject(s.query.get('includeObject'))), s.negotiated, s.gzip);
    case 'PartialObjectMetadata':
      return writeObject(s.res, 200, partialObjectMetadataList(objects(), listMeta), s.negotiated, s.gzip);
  }
  // An unstructured list (custom resources) always writes continue, and its items keep kind and apiVersion.
  const unstructured = s.def.customResource === true;
  if (unstructured) listMeta.continue ??= '';
  if (s.negotiated.mediaType === 'application/json' && !s.negotiated.pretty) {
    // The hot path: each item's bytes were encoded once and are shared with every other list and watch.
    const head = `{"kind":${JSON.stringify(s.def.listKind)},"apiVersion":${JSON.stringify(groupVersion(s.def))},"metadata":${JSON.stringify(listMeta)},"items":[`;
    const parts: Buffer[] = [Buffer.from(head)];
    result.items.forEach((item, i) => {
      if (i > 0) parts.push(comma);
      if (unstructured) parts.push(item.objectBytes());
      else item.pushItem(parts);
    });
    parts.push(tail);
    writeBytes(s.res, 200, Buffer.concat(parts), 'application/json', s.gzip);
    return;
  }
  if (s.negotiated.mediaType === protobufMediaType && !unstructured) {
    // Each item's message is encoded once and shared, as the JSON bytes are.
    const messages = result.items.map((i) => protobufMessages.get(i));
    const body = messages.every((m) => m !== undefined) ? encodeListProtobuf(groupVersion(s.def), s.def.listKind, listMeta, messages as Buffer[]) : undefined;
    if (body) return writeBytes(s.res, 200, body, protobufMediaType, s.gzip);
  }
  // Items of a typed list carry no kind/apiVersion of their own, as in kube's responses.
  const items = unstructured ? objects() : objects().map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  writeObject(s.res, 200, { kind: s.def.listKind, apiVersion: groupVersion(s.def), metadata: listMeta, items }, s.negotiated, s.gzip);
}

const comma = Buffer.from(',');
const tail = Buffer.from(']}');
