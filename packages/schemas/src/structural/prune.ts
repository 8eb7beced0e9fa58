/**
 * Pruning, defaulting and null-pruning of a custom resource, as the apiextensions-apiserver's
 * codec does them on every decoded body (pkg/apiserver/schema/pruning and defaulting): fields
 * the schema does not specify are dropped (and named, for fieldValidation), nulls of fields
 * that are neither nullable nor defaulted are dropped, then `default`s fill what is missing.
 */
import { child, index, isObject, objectMetaFields, type StructuralSchema } from './schema.js';

const preserves = (s: StructuralSchema | undefined) => s?.['x-kubernetes-preserve-unknown-fields'] === true;

/**
 * Drops unknown fields of `obj` (a whole custom resource) in place and returns their paths
 * (`spec.foo`, `spec.items[0].bar`) in the order found. apiVersion, kind and metadata of the
 * resource and of every embedded resource are kept; their metadata is pruned to ObjectMeta.
 */
export function prune(obj: Record<string, unknown>, schema: StructuralSchema | undefined): string[] {
  const unknown: string[] = [];
  pruneObject(obj, schema, '', true, unknown);
  return unknown;
}

/**
 * kube's pruning.Prune of any value at a place in a schema (a `default`, say): drops unknown
 * fields in place and returns their paths, relative to the value. `resourceRoot` when the value
 * is a whole (embedded) resource, whose apiVersion, kind and metadata are kept.
 */
export function pruneAt(v: unknown, schema: StructuralSchema, resourceRoot: boolean): string[] {
  const unknown: string[] = [];
  if (isObject(v) && resourceRoot) pruneObject(v, schema, '', true, unknown);
  else pruneValue(v, schema, '', unknown);
  return unknown;
}

function pruneMetadata(meta: unknown, path: string, unknown: string[]): void {
  if (!isObject(meta)) return;
  for (const key of Object.keys(meta)) {
    if (!objectMetaFields.has(key)) {
      unknown.push(child(path, key));
      delete meta[key];
    }
  }
}

function pruneObject(x: Record<string, unknown>, s: StructuralSchema | undefined, path: string, resourceRoot: boolean, unknown: string[]): void {
  if (resourceRoot) {
    if ('metadata' in x) pruneMetadata(x.metadata, child(path, 'metadata'), unknown);
  }
  const props = s?.properties ?? {};
  const additional = s?.additionalProperties;
  for (const key of Object.keys(x)) {
    if (resourceRoot && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
      // Their value is checked against the schema only where it specifies them.
      if (key === 'metadata' || !(key in props)) continue;
    }
    const p = path ? child(path, key) : key;
    const prop = props[key];
    if (prop) {
      pruneValue(x[key], prop, p, unknown);
      continue;
    }
    if (isObject(additional)) {
      pruneValue(x[key], additional, p, unknown);
      continue;
    }
    if (additional === true || preserves(s)) continue;
    unknown.push(p);
    delete x[key];
  }
}

function pruneValue(v: unknown, s: StructuralSchema, path: string, unknown: string[]): void {
  if (Array.isArray(v)) {
    if (s.items) v.forEach((item, i) => pruneValue(item, s.items!, index(path, i), unknown));
    return;
  }
  if (isObject(v)) pruneObject(v, s, path, s['x-kubernetes-embedded-resource'] === true, unknown);
}

/** A null where the schema takes none: kube's isNonNullableNull. */
const nonNullableNull = (v: unknown, s: StructuralSchema | undefined) => v === null && s !== undefined && !s.nullable;

/** The schema of a field: its property, else additionalProperties (kube's getSchemaForField). */
function fieldSchema(key: string, s: StructuralSchema | undefined): StructuralSchema | undefined {
  const prop = s?.properties?.[key];
  if (prop) return prop;
  return isObject(s?.additionalProperties) ? s.additionalProperties : undefined;
}

/**
 * kube's PruneNonNullableNullsWithoutDefaults: a null in a field (a property or a map value)
 * that is neither nullable nor has a default is dropped; a defaulted one is defaulted afterwards.
 * Returns whether anything was dropped.
 */
export function pruneNulls(x: unknown, s: StructuralSchema | undefined): boolean {
  let changed = false;
  if (Array.isArray(x)) {
    for (const item of x) changed = pruneNulls(item, s?.items) || changed;
    return changed;
  }
  if (!isObject(x)) return false;
  for (const key of Object.keys(x)) {
    const prop = fieldSchema(key, s);
    if (nonNullableNull(x[key], prop) && prop!.default === undefined) {
      delete x[key];
      changed = true;
    } else changed = pruneNulls(x[key], prop) || changed;
  }
  return changed;
}

/** Whether any value the defaulting walk reaches (properties, map values, list items) has a `default`. */
export function hasDefaults(s: StructuralSchema | undefined): boolean {
  if (!s) return false;
  if (s.default !== undefined && s.default !== null) return true;
  if (Object.values(s.properties ?? {}).some(hasDefaults)) return true;
  return hasDefaults(s.items) || (isObject(s.additionalProperties) && hasDefaults(s.additionalProperties));
}

/**
 * kube's structuraldefaulting.Default: a missing property, or a null one that is not nullable,
 * gets a copy of its `default`; so does a non-nullable null map value or list item; then every
 * value is walked. Returns whether a default was set.
 */
export function applyDefaults(x: unknown, s: StructuralSchema | undefined): boolean {
  if (!s) return false;
  let changed = false;
  const fill = (v: unknown, prop: StructuralSchema | undefined, set: (d: unknown) => void) => {
    if (!nonNullableNull(v, prop) || prop!.default === undefined || prop!.default === null) return;
    set(structuredClone(prop!.default));
    changed = true;
  };
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      fill(x[i], s.items, (d) => (x[i] = d));
      changed = applyDefaults(x[i], s.items) || changed;
    }
    return changed;
  }
  if (!isObject(x)) return false;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined || prop.default === null) continue;
    if (!(key in x) || nonNullableNull(x[key], prop)) {
      x[key] = structuredClone(prop.default);
      changed = true;
    }
  }
  const additional = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  for (const key of Object.keys(x)) {
    const prop = s.properties?.[key];
    if (prop) {
      changed = applyDefaults(x[key], prop) || changed;
    } else if (additional) {
      fill(x[key], additional, (d) => (x[key] = d));
      changed = applyDefaults(x[key], additional) || changed;
    }
  }
  return changed;
}
