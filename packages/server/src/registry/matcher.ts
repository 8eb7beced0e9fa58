/** Label and field selectors applied to objects of one kind (kube's SelectionPredicate). */
import { newBadRequest, type FieldSelector, type LabelSelector } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from './types.js';

export interface ObjectMatcher {
  /** No selector: every object matches (and remainingItemCount may be reported). */
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
}

const metadataFields: Record<string, (obj: KubeObject) => string | undefined> = {
  'metadata.name': (obj) => obj.metadata.name ?? '',
  'metadata.namespace': (obj) => obj.metadata.namespace ?? '',
};

export function objectMatcher(def: ResourceDefinition, labels: LabelSelector, fields: FieldSelector): ObjectMatcher {
  const getters = { ...metadataFields, ...(def.selectableFields ?? {}) };
  for (const r of fields.requirements) {
    if (!(r.field in getters)) throw newBadRequest(`field label not supported: ${r.field}`);
  }
  const empty = labels.empty && fields.empty;
  return {
    empty,
    matches(obj) {
      if (empty) return true;
      return labels.matches(obj.metadata.labels ?? {}) && fields.matches((f) => getters[f]?.(obj));
    },
  };
}
