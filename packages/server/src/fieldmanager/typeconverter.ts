/**
 * OpenAPI schemas → the structured-merge-diff types server-side apply walks, with the rules
 * of kube-openapi's schemaconv (what kube's TypeConverter is built from):
 * - a list's relationship comes from `x-kubernetes-list-type` (`map` with its
 *   `x-kubernetes-list-map-keys`, `set`, `atomic`), else from the patch strategy (`merge` with
 *   a merge key is a map-list, `merge` alone a set), else the list is atomic;
 * - an object is granular unless `x-kubernetes-map-type: atomic` (on its schema, or on the
 *   property that refers to it); keys that are not declared properties take
 *   `additionalProperties`' type, or the deduced type when the schema declares no properties
 *   or preserves unknown fields;
 * - a schema without a type (int-or-string in CRDs, JSON, RawExtension) is the deduced type:
 *   objects granular, lists atomic; Quantity is a scalar.
 * Named definitions are converted once and resolved lazily, so recursive schemas terminate.
 */
import type { JsonValue, ListType, MapType, SmdType } from '@windlass/patch';

export type JsonSchema = Record<string, unknown>;

/** Resolves `$ref`s; returns undefined for a reference it does not know. */
export type RefResolver = (ref: string) => JsonSchema | undefined;

const scalars = {
  string: Object.freeze({ kind: 'scalar', scalar: 'string' }),
  numeric: Object.freeze({ kind: 'scalar', scalar: 'numeric' }),
  boolean: Object.freeze({ kind: 'scalar', scalar: 'boolean' }),
  // Quantity: kube-openapi's schemaconv makes it an untyped scalar (`cpu: 1` and `cpu: "1"` alike).
  untyped: Object.freeze({ kind: 'scalar', scalar: 'untyped' }),
} satisfies Record<string, SmdType>;
const untyped: SmdType = Object.freeze({ kind: 'untyped' });
/** SMD's `__untyped_atomic_`: any value, one leaf (RawExtension, list items without a schema). */
const untypedAtomic: SmdType = Object.freeze({ kind: 'untyped', atomic: true });

/**
 * kube's `+default` markers on map-list key fields, which its published OpenAPI carries as
 * `default` and the reference schemas leave out: an applied port without a protocol is keyed
 * `{"containerPort":80,"protocol":"TCP"}`.
 */
const keyDefaults: Record<string, Record<string, string>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
};

const quantityNames = new Set(['io.k8s.apimachinery.pkg.api.resource.Quantity']);
const untypedNames = new Set(['io.k8s.apimachinery.pkg.runtime.RawExtension']);

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function listRelationship(s: JsonSchema): { atomic: boolean; keys: string[] } {
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'map') return { atomic: false, keys: Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [] };
  if (listType === 'set') return { atomic: false, keys: [] };
  if (listType !== undefined) return { atomic: true, keys: [] };
  const strategy = s['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = s['x-kubernetes-patch-merge-key'];
    return { atomic: false, keys: typeof key === 'string' ? [key] : [] };
  }
  return { atomic: true, keys: [] };
}

class SchemaMap implements MapType {
  readonly kind = 'map';
  private readonly fields = new Map<string, SmdType>();
  private element?: SmdType | null;

  constructor(
    private readonly conv: TypeConverter,
    private readonly schema: JsonSchema,
    readonly atomic: boolean,
    private readonly preserveUnknown: boolean,
    private readonly knownDefaults?: Record<string, string>,
  ) {}

  fieldDefault(name: string): JsonValue | undefined {
    const props = this.schema.properties as Record<string, JsonSchema> | undefined;
    const own = props && Object.prototype.hasOwnProperty.call(props, name) ? props[name].default : undefined;
    return (own as JsonValue | undefined) ?? this.knownDefaults?.[name];
  }

  field(name: string): SmdType | undefined {
    let t = this.fields.get(name);
    if (t) return t;
    const props = this.schema.properties as Record<string, JsonSchema> | undefined;
    if (!props || !Object.prototype.hasOwnProperty.call(props, name)) return undefined;
    t = this.conv.typeOf(props[name], this.preserveUnknown);
    this.fields.set(name, t);
    return t;
  }

  get elementType(): SmdType | undefined {
    if (this.element === undefined) {
      const ap = this.schema.additionalProperties;
      const hasProps = !!this.schema.properties && Object.keys(this.schema.properties as object).length > 0;
      if (ap && typeof ap === 'object') this.element = this.conv.typeOf(ap as JsonSchema, this.preserveUnknown);
      else if (ap === true || (ap === undefined && (this.preserveUnknown || !hasProps))) this.element = untyped;
      else this.element = null;
    }
    return this.element ?? undefined;
  }
}

class SchemaList implements ListType {
  readonly kind = 'list';
  readonly atomic: boolean;
  readonly keys: readonly string[];
  private element?: SmdType;

  constructor(private readonly conv: TypeConverter, private readonly schema: JsonSchema, private readonly preserveUnknown: boolean) {
    const rel = listRelationship(schema);
    this.atomic = rel.atomic;
    this.keys = rel.keys;
  }

  get elementType(): SmdType {
    if (!this.element) {
      const items = this.schema.items;
      this.element = items && typeof items === 'object' && !Array.isArray(items) ? this.conv.typeOf(items as JsonSchema, this.preserveUnknown) : untypedAtomic;
    }
    return this.element;
  }
}

export class TypeConverter {
  private readonly named = new Map<string, SmdType>();

  constructor(private readonly resolve: RefResolver) {}

  /** The type of a schema (a property, an item, or a kind's root definition). */
  typeOf(s: JsonSchema, preserveUnknown = false): SmdType {
    let ref = typeof s.$ref === 'string' ? s.$ref : undefined;
    if (!ref && Array.isArray(s.allOf) && s.allOf.length === 1 && typeof (s.allOf[0] as JsonSchema).$ref === 'string') ref = (s.allOf[0] as JsonSchema).$ref as string;
    if (ref) {
      const t = this.namedType(ref);
      // The referring property may make an object atomic (kube's TypeRef ElementRelationship).
      if (t.kind === 'map' && s['x-kubernetes-map-type'] === 'atomic' && !t.atomic) return atomicView(t);
      return t;
    }
    return this.inline(s, preserveUnknown);
  }

  private namedType(ref: string): SmdType {
    const name = refName(ref);
    let t = this.named.get(name);
    if (t) return t;
    if (quantityNames.has(name)) t = scalars.untyped;
    else if (untypedNames.has(name)) t = untypedAtomic;
    else {
      const def = this.resolve(ref);
      t = def ? this.inline(def, false, keyDefaults[name]) : untyped;
    }
    this.named.set(name, t);
    return t;
  }

  private inline(s: JsonSchema, inheritedPreserve: boolean, knownDefaults?: Record<string, string>): SmdType {
    const preserve = inheritedPreserve || s['x-kubernetes-preserve-unknown-fields'] === true;
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case 'object':
        return new SchemaMap(this, s, s['x-kubernetes-map-type'] === 'atomic', preserve, knownDefaults);
      case 'array':
        return new SchemaList(this, s, preserve);
      case 'string':
        // kube-openapi's convertPrimitive: a string with a format (int-or-string, date-time…) is untyped.
        return s.format === undefined || s.format === '' || s.format === 'byte' ? scalars.string : scalars.untyped;
      case 'integer':
      case 'number':
        return scalars.numeric;
      case 'boolean':
        return scalars.boolean;
      default:
        // No type: kube gives such a schema every atom; with declared properties or items
        // those shape the object or list it holds.
        if (s.properties) return new SchemaMap(this, s, s['x-kubernetes-map-type'] === 'atomic', preserve);
        if (s.items) return new SchemaList(this, s, preserve);
        return untyped;
    }
  }
}

function atomicView(t: MapType): MapType {
  return { kind: 'map', atomic: true, field: (name) => t.field(name), fieldDefault: (name) => t.fieldDefault?.(name), get elementType() { return t.elementType; } };
}
