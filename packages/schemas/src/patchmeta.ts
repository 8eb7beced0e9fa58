/**
 * Strategic-merge-patch metadata from the schema markers, as kube's
 * PatchMetaFromOpenAPI reads them: the property's own `x-kubernetes-patch-strategy`
 * and `x-kubernetes-patch-merge-key`, after which `$ref`s are followed and list
 * fields descend into their `items`.
 */
import { noPatchMeta, type PatchMeta, type PatchMetaLookup } from '@windlass/machinery';
import type { Schemas } from './definitions.js';
import type { GroupVersionKind, JsonObject } from './types.js';

function markers(s: JsonObject): PatchMeta {
  const meta: PatchMeta = {};
  if (typeof s['x-kubernetes-patch-strategy'] === 'string') meta.patchStrategy = s['x-kubernetes-patch-strategy'];
  if (typeof s['x-kubernetes-patch-merge-key'] === 'string') meta.patchMergeKey = s['x-kubernetes-patch-merge-key'];
  return meta;
}

/** Markers of the field at `path` below `root`; `{}` where the schema does not say. */
export function patchMetaAt(schemas: Schemas, root: JsonObject, path: readonly string[]): PatchMeta {
  let schema: JsonObject | undefined = root;
  let meta: PatchMeta = {};
  for (const seg of path) {
    schema = schemas.deref(schema);
    // Fields of list elements: the path does not count the element itself.
    while (schema && schema.type === 'array' && schema.items) schema = schemas.deref(schema.items);
    if (!schema) return {};
    let next: JsonObject | undefined = schema.properties?.[seg];
    // A map (additionalProperties) entry is addressed by its key.
    if (next === undefined && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      next = schema.additionalProperties;
    }
    if (next === undefined) return {};
    meta = markers(next);
    schema = next;
  }
  return meta;
}

const lookups = new WeakMap<Schemas, Map<string, PatchMetaLookup>>();

/** The PatchMetaLookup of a kind; kinds without a schema merge maps and replace lists. */
export function patchMetaFor(schemas: Schemas, gvk: GroupVersionKind): PatchMetaLookup {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let byKind = lookups.get(schemas);
  if (!byKind) lookups.set(schemas, (byKind = new Map()));
  let lookup = byKind.get(key);
  if (!lookup) {
    const root = schemas.definitionFor(gvk);
    if (!root) return noPatchMeta;
    const cache = new Map<string, PatchMeta>();
    lookup = (path) => {
      const k = path.join('\u0000');
      let m = cache.get(k);
      if (!m) {
        m = patchMetaAt(schemas, root, path);
        cache.set(k, m);
      }
      return { ...m };
    };
    byKind.set(key, lookup);
  }
  return lookup;
}
