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
  const t = def.table;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withHeaders ? (t.ownNameColumn ? t.columns : [nameColumn, ...t.columns]) : null,
    rows: (t.sortRows ? t.sortRows(items) : items).map((obj) => {
      // metav1.TableRow's field order: cells, conditions (omitempty), object.
      const row: Record<string, unknown> = { cells: t.ownNameColumn ? t.cells(obj) : [obj.metadata.name ?? '', ...t.cells(obj)] };
      const conditions = t.rowConditions?.(obj) ?? [];
      if (conditions.length > 0) row.conditions = conditions;
      const o = rowObject(obj, include);
      if (o !== undefined) row.object = o;
      return row;
    }),
  };
}
