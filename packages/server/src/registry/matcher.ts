/** Label and field selectors applied to objects of one kind (kube's SelectionPredicate). */
import { newBadRequest, type FieldSelector, type LabelSelector } from '@windlass/machinery';
import { defaultAttrs, type AttrsFunc, type ObjectAttrs } from '../cacher/cachedobject.js';
import type { ResourceDefinition } from './types.js';

export interface ObjectMatcher {
  /** No selector: every object matches (and remainingItemCount may be reported). */
  readonly empty: boolean;
  matches(attrs: ObjectAttrs): boolean;
}

/** The labels and selectable fields of the kind's objects (kube's GetAttrs), kept by the watch cache. */
export function objectAttrs(def: ResourceDefinition): AttrsFunc {
  const extra = def.selectableFields;
  if (!extra) return defaultAttrs;
  const names = Object.keys(extra);
  return (obj) => {
    const attrs = defaultAttrs(obj);
    const fields: Record<string, string | undefined> = { ...attrs.fields };
    for (const f of names) fields[f] = extra[f](obj);
    return { labels: attrs.labels, fields };
  };
}

export function objectMatcher(def: ResourceDefinition, labels: LabelSelector, fields: FieldSelector): ObjectMatcher {
  const supported = new Set(['metadata.name', 'metadata.namespace', ...Object.keys(def.selectableFields ?? {})]);
  for (const r of fields.requirements) {
    if (!supported.has(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
  }
  const empty = labels.empty && fields.empty;
  return {
    empty,
    matches(attrs) {
      if (empty) return true;
      return labels.matches(attrs.labels as Record<string, string>) && fields.matches((f) => attrs.fields[f]);
    },
  };
}
