/** Table and PartialObjectMetadata representations (spec 2.3), as kube's TableConvertor renders them. */
import { newBadRequest } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from './registry/types.js';
import { nameColumn } from './registry/kinds/common.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw newBadRequest(`unrecognized includeObject value: "${v}"`);
}

export function partialObjectMetadata(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function partialObjectMetadataList(items: KubeObject[], listMeta: Record<string, unknown>): unknown {
  return { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: items.map(partialObjectMetadata) };
}

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return partialObjectMetadata(obj);
}

export function toTable(def: ResourceDefinition, items: KubeObject[], listMeta: Record<string, unknown>, include: IncludeObject, withHeaders = true): unknown {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withHeaders ? (def.table.ownNameColumn ? def.table.columns : [nameColumn, ...def.table.columns]) : null,
    rows: items.map((obj) => {
      const row: Record<string, unknown> = { cells: def.table.ownNameColumn ? def.table.cells(obj) : [obj.metadata.name ?? '', ...def.table.cells(obj)] };
      const o = rowObject(obj, include);
      if (o !== undefined) row.object = o;
      return row;
    }),
  };
}
