/** get and list. */
import { parseListOptions } from '../registry/listoptions.js';
import { partialObjectMetadata, partialObjectMetadataList, parseIncludeObject, toTable } from '../table.js';
import { groupVersion, type KubeObject } from '../registry/types.js';
import { writeObject } from '../respond.js';
import type { RequestScope } from './scope.js';

export async function getResource(s: RequestScope): Promise<void> {
  const obj = await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? '');
  writeObject(s.res, 200, representObject(s, obj), s.negotiated);
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
  let body: unknown;
  switch (s.negotiated.as) {
    case 'Table':
      body = toTable(s.def, result.items, listMeta, parseIncludeObject(s.query.get('includeObject')));
      break;
    case 'PartialObjectMetadata':
      body = partialObjectMetadataList(result.items, listMeta);
      break;
    default:
      // Items of a typed list carry no kind/apiVersion of their own, as in kube's responses.
      for (const item of result.items) {
        delete item.kind;
        delete item.apiVersion;
      }
      body = { kind: s.def.listKind, apiVersion: groupVersion(s.def), metadata: listMeta, items: result.items };
  }
  writeObject(s.res, 200, body, s.negotiated);
}
