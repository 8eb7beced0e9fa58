/**
 * Label and field selectors applied to objects of one kind (kube's SelectionPredicate), after
 * the field labels went through the served version's conversion (Scheme.ConvertFieldLabel,
 * refused with 400 as the list, watch and deletecollection handlers do).
 */
import { newBadRequest, type FieldSelector, type LabelSelector } from '@windlass/machinery';
import { defaultAttrs, type AttrsFunc, type ObjectAttrs } from '../cacher/cachedobject.js';
import { fieldLabelConversion } from './fieldlabels.js';
import type { KubeObject, ResourceDefinition } from './types.js';

export interface ObjectMatcher {
  /** No selector: every object matches (and remainingItemCount may be reported). */
  readonly empty: boolean;
  matches(attrs: ObjectAttrs): boolean;
}

/** The labels and selectable fields of the kind's objects (kube's GetAttrs), kept by the watch cache. */
export function objectAttrs(def: ResourceDefinition): AttrsFunc {
  const attrs = selectorAttrs(def);
  return def.schemaDefaults ? Object.assign((obj: KubeObject) => attrs(obj), { readDefaults: def.schemaDefaults }) : attrs;
}

function selectorAttrs(def: ResourceDefinition): AttrsFunc {
  const extra = def.cachedSelectableFields ?? def.selectableFields;
  if (!extra) return defaultAttrs;
  const names = Object.keys(extra);
  return (obj) => {
    const attrs = defaultAttrs(obj);
    const fields: Record<string, string | undefined> = { ...attrs.fields };
    for (const f of names) fields[f] = extra[f](obj);
    return { labels: attrs.labels, fields };
  };
}

/**
 * The matcher of a list or watch. `def` is the definition whose attributes the objects carry
 * (the storage version's); `served`, the version the request addressed, whose field label
 * conversion applies (events.k8s.io/v1 takes `regarding.name` for the stored
 * `involvedObject.name`).
 */
export function objectMatcher(def: ResourceDefinition, labels: LabelSelector, fields: FieldSelector, served: ResourceDefinition = def): ObjectMatcher {
  const convert = fieldLabelConversion(served);
  const requirements = fields.requirements.map((r) => {
    const converted = convert(r.field);
    if (typeof converted !== 'string') throw newBadRequest(converted.error);
    return { field: converted, equal: r.operator === '=', value: r.value };
  });
  const empty = labels.empty && requirements.length === 0;
  return {
    empty,
    matches(attrs) {
      if (empty) return true;
      if (!labels.matches(attrs.labels as Record<string, string>)) return false;
      // A field the object does not carry compares as "", as in kube's fields.Set.
      for (const r of requirements) if (((attrs.fields[r.field] ?? '') === r.value) !== r.equal) return false;
      return true;
    },
  };
}
