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

/**
 * kube's PruneNonNullableNullsWithoutDefaults: a null in a field that is neither nullable nor
 * has a default is dropped (a defaulted one is defaulted afterwards).
 */
export function pruneNulls(x: unknown, s: StructuralSchema | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    if (s.items) for (const item of x) pruneNulls(item, s.items);
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    const prop = s.properties?.[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
    if (!prop) continue;
    if (x[key] === null) {
      if (!prop.nullable && prop.default === undefined && s.properties?.[key]) delete x[key];
      continue;
    }
    pruneNulls(x[key], prop);
  }
}

/**
 * kube's structuraldefaulting.Default: a missing field (or a null one that is not nullable)
 * with a `default` gets a copy of it, then every value is walked, list items and map values
 * included.
 */
export function applyDefaults(x: unknown, s: StructuralSchema | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    if (s.items) for (const item of x) applyDefaults(item, s.items);
    return;
  }
  if (!isObject(x)) return;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined) continue;
    if (!(key in x) || (x[key] === null && !prop.nullable)) x[key] = structuredClone(prop.default);
  }
  for (const key of Object.keys(x)) {
    const prop = s.properties?.[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
    if (prop) applyDefaults(x[key], prop);
  }
}
