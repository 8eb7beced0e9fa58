/** Lookup of the extracted OpenAPI v2 definitions by name, `$ref` and GroupVersionKind. */
import type { ExtractedOpenAPI, GroupVersionKind, JsonObject } from './types.js';

const definitionPrefix = '#/definitions/';
const gvkKey = (g: GroupVersionKind) => `${g.group}/${g.version}/${g.kind}`;

/** The extracted schema data with its indexes; one per process, from loadSchemas(). */
export class Schemas {
  private readonly byGVK = new Map<string, string>();

  constructor(readonly data: ExtractedOpenAPI) {
    for (const [name, def] of Object.entries(data.definitions)) {
      for (const g of (def['x-kubernetes-group-version-kind'] ?? []) as GroupVersionKind[]) {
        // Meta types (DeleteOptions, WatchEvent) list one GVK per group; the first name wins.
        if (!this.byGVK.has(gvkKey(g))) this.byGVK.set(gvkKey(g), name);
      }
    }
  }

  definitionNames(): string[] {
    return Object.keys(this.data.definitions);
  }

  getDefinition(name: string): JsonObject | undefined {
    return Object.prototype.hasOwnProperty.call(this.data.definitions, name) ? this.data.definitions[name] : undefined;
  }

  /** The schema a `$ref` (`#/definitions/…` or `#/components/schemas/…`) points at. */
  resolveRef(ref: string): JsonObject | undefined {
    const name = ref.startsWith(definitionPrefix) ? ref.slice(definitionPrefix.length) : ref.replace(/^#\/components\/schemas\//, '');
    return this.getDefinition(name);
  }

  /** The definition name of a kind, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  definitionNameFor(gvk: GroupVersionKind): string | undefined {
    return this.byGVK.get(gvkKey(gvk));
  }

  /** The OpenAPI v2 schema of a kind; its `$ref`s point into the extracted definitions. */
  definitionFor(gvk: GroupVersionKind): JsonObject | undefined {
    const name = this.definitionNameFor(gvk);
    return name === undefined ? undefined : this.getDefinition(name);
  }

  /** Follows `$ref` (and the `allOf: [{$ref}]` wrapping of v3) to the schema itself. */
  deref(schema: JsonObject | undefined): JsonObject | undefined {
    let s = schema;
    for (let i = 0; s && i < 32; i++) {
      if (typeof s.$ref === 'string') s = this.resolveRef(s.$ref);
      else if (Array.isArray(s.allOf) && s.allOf.length > 0 && !s.properties) s = s.allOf[0];
      else return s;
    }
    return s;
  }

  /** Names of the definitions `roots` reference, directly or through other definitions. */
  definitionClosure(roots: Iterable<string>): string[] {
    const seen = new Set<string>();
    const queue = [...roots];
    while (queue.length) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      const def = this.getDefinition(name);
      if (!def) continue;
      seen.add(name);
      for (const ref of collectRefs(def)) queue.push(ref.replace(/^#\/(definitions|components\/schemas)\//, ''));
    }
    return [...seen].sort();
  }
}

/** Every `$ref` string inside a JSON value. */
export function collectRefs(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else collectRefs(v, out);
    }
  }
  return out;
}
