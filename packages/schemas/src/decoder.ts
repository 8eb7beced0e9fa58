/**
 * Typed decoding of a kind's objects against its schema, as kube's JSON decoder
 * (sigs.k8s.io/json over the Go types) does it: a value of the wrong JSON type is an error
 * with encoding/json's message, unknown fields are removed and reported (for
 * fieldValidation), and the types that unmarshal themselves are read and written back as Go
 * writes them: quantities canonical (`1000m` → `1`), times in UTC at second precision
 * (MicroTime with six digits), []byte as standard base64. Each definition is compiled once
 * into a closure the first time a kind needs it; decoding an object walks the object, never
 * the schema by name.
 */
import { canonicalBase64JSON, canonicalQuantityJSON, canonicalTimeJSON, goJSONType } from '@windlass/machinery';
import type { Schemas } from './definitions.js';
import type { GroupVersionKind, JsonObject } from './types.js';

/** A decoding failure; its message is what kube appends to `X in version "v" cannot be handled as a X: `. */
export class DecodeError extends Error {}

/** encoding/json's UnmarshalTypeError: `cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`. */
export class DecodeTypeError extends DecodeError {
  constructor(jsonType: string, struct: string, path: string, goType: string) {
    super(`json: cannot unmarshal ${jsonType} into Go struct field ${struct}.${path} of type ${goType}`);
  }
}

/**
 * Decodes `obj` in place. Unknown fields are deleted and their paths (`spec.foo`,
 * `spec.containers[0].bar`) pushed to `unknown`. Throws a DecodeError: encoding/json keeps
 * the first type error and goes on, but a type that unmarshals itself (Quantity, Time,
 * IntOrString) stops decoding with its own error.
 */
export type ObjectDecoder = (obj: JsonObject, unknown: string[]) => void;

interface DecodeState {
  unknown: string[];
  /** The first type (or base64) error, reported once the whole object was read. */
  typeError?: DecodeError;
}

/**
 * Decodes `value` found at `path` (JSON path for unknown fields) below the struct field
 * `field`; answers the value to keep (the same one unless Go writes it differently).
 */
type Node = (value: unknown, path: string, struct: string, field: string, state: DecodeState) => unknown;

interface Compiled {
  node: Node;
  goType: string;
}

/** What Go's decoder leaves in a slice item or map value that is JSON null: the element type's zero value. */
const zeroValues: Record<string, string | boolean | number> = { string: '', bool: false, int32: 0, int64: 0, float64: 0 };

const anyValue: Node = (v) => v;

function typeError(state: DecodeState, jsonType: string, struct: string, field: string, goType: string): void {
  state.typeError ??= new DecodeTypeError(jsonType, struct, field, goType);
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`, as Go prints a named type. */
function goTypeName(defName: string): string {
  const segs = defName.split('.');
  return `${segs[segs.length - 2]}.${segs[segs.length - 1]}`;
}

/** Canonical forms are the same for the same input: parsing each distinct quantity once is enough. */
const quantityCache = new Map<string, string | { error: string }>();

const quantity: Node = (value) => {
  let out = typeof value === 'string' ? quantityCache.get(value) : undefined;
  if (out === undefined) {
    out = canonicalQuantityJSON(value);
    if (typeof value === 'string') {
      if (quantityCache.size >= 4096) quantityCache.clear();
      quantityCache.set(value, out);
    }
  }
  if (typeof out !== 'string') throw new DecodeError(out.error);
  return out;
};

const time = (micro: boolean): Node => (value) => {
  const out = canonicalTimeJSON(value, micro);
  if (out !== null && typeof out === 'object') throw new DecodeError(out.error);
  return out;
};

/** IntOrString.UnmarshalJSON: a string, or json.Unmarshal into an int32 with its own message. */
const intOrString: Node = (value) => {
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') throw new DecodeError(`json: cannot unmarshal ${goJSONType(value)} into Go value of type int32`);
  if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) throw new DecodeError(`json: cannot unmarshal number ${value} into Go value of type int32`);
  return value;
};

/** Definitions whose Go types unmarshal themselves from more than one JSON type. */
const custom: Record<string, Compiled> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { node: intOrString, goType: 'intstr.IntOrString' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { node: quantity, goType: 'resource.Quantity' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { node: time(false), goType: 'v1.Time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { node: time(true), goType: 'v1.MicroTime' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { node: anyValue, goType: 'runtime.RawExtension' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': { node: anyValue, goType: 'v1.JSON' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': { node: anyValue, goType: 'v1.JSONSchemaPropsOrArray' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': { node: anyValue, goType: 'v1.JSONSchemaPropsOrBool' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': { node: anyValue, goType: 'v1.JSONSchemaPropsOrStringArray' },
};

/**
 * Go fields named `description` the reference document lost with its doc strings and that
 * scripts/extract.mjs does not restore (yet): decoding must not drop them as unknown.
 */
const restoredFields: Record<string, Record<string, JsonObject>> = {
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition': { description: { type: 'string' } },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ExternalDocumentation': { description: { type: 'string' } },
};

const int32Min = -2147483648;
const int32Max = 2147483647;
const int64Limit = 2 ** 63;

class Compiler {
  private readonly defs = new Map<string, Compiled>();

  constructor(private readonly schemas: Schemas) {}

  definition(name: string): Compiled {
    const done = this.defs.get(name) ?? custom[name];
    if (done) return done;
    const def = this.schemas.getDefinition(name) ?? {};
    // Registered before its fields are compiled, so recursive types (JSONSchemaProps) terminate.
    const entry: Compiled = { node: anyValue, goType: goTypeName(name) };
    this.defs.set(name, entry);
    if (def.type === 'object' && def.properties) entry.node = this.struct(name, def);
    else entry.node = this.schema(def).node;
    return entry;
  }

  private struct(name: string, def: JsonObject): Node {
    const structName = name.slice(name.lastIndexOf('.') + 1);
    const fields = new Map<string, Compiled>();
    const properties = { ...(def.properties as Record<string, JsonObject>), ...restoredFields[name] };
    for (const [field, prop] of Object.entries(properties)) fields.set(field, this.schema(prop));
    const goType = goTypeName(name);
    return (value, path, struct, field, state) => {
      if (value === null) return value;
      if (typeof value !== 'object' || Array.isArray(value)) {
        typeError(state, goJSONType(value), struct, field, goType);
        return value;
      }
      const obj = value as JsonObject;
      const prefix = path === '' ? '' : `${path}.`;
      const fieldPrefix = field === '' ? '' : `${field}.`;
      for (const key in obj) {
        const f = fields.get(key);
        if (f === undefined) {
          state.unknown.push(prefix + key);
          delete obj[key];
          continue;
        }
        const v = obj[key];
        if (v === null) continue;
        const out = f.node(v, prefix + key, structName, fieldPrefix + key, state);
        if (out !== v) obj[key] = out;
      }
      return obj;
    };
  }

  /** A property's schema: a `$ref`, a scalar, an array or a map. */
  schema(s: JsonObject): Compiled {
    if (typeof s.$ref === 'string') return this.lazyRef(s.$ref.replace(/^#\/definitions\//, ''));
    if (Array.isArray(s.allOf) && s.allOf.length === 1 && s.allOf[0].$ref) return this.schema(s.allOf[0]);
    if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string']) return { node: intOrString, goType: 'intstr.IntOrString' };
    switch (s.type) {
      case 'string':
        return s.format === 'byte' ? this.bytes() : this.scalar('string', 'string');
      case 'boolean':
        return this.scalar('boolean', 'bool');
      case 'integer':
        return this.integer(s.format === 'int32' ? 'int32' : 'int64');
      case 'number':
        return this.scalar('number', 'float64');
      case 'array': {
        const items = s.items ? this.schema(s.items) : { node: anyValue, goType: 'interface {}' };
        const goType = `[]${items.goType}`;
        return {
          goType,
          node: (value, path, struct, field, state) => {
            if (!Array.isArray(value)) {
              typeError(state, goJSONType(value), struct, field, goType);
              return value;
            }
            for (let i = 0; i < value.length; i++) {
              const v = value[i];
              if (v === null) {
                if (items.goType in zeroValues) value[i] = zeroValues[items.goType];
                continue;
              }
              const out = items.node(v, `${path}[${i}]`, struct, field, state);
              if (out !== v) value[i] = out;
            }
            return value;
          },
        };
      }
      case 'object': {
        if (!s.additionalProperties || typeof s.additionalProperties !== 'object') return { node: anyValue, goType: 'map[string]interface {}' };
        const values = this.schema(s.additionalProperties);
        const goType = `map[string]${values.goType}`;
        return {
          goType,
          node: (value, path, struct, field, state) => {
            if (typeof value !== 'object' || value === null || Array.isArray(value)) {
              typeError(state, goJSONType(value), struct, field, goType);
              return value;
            }
            const obj = value as JsonObject;
            for (const key in obj) {
              const v = obj[key];
              if (v === null) {
                if (values.goType in zeroValues) obj[key] = zeroValues[values.goType];
                continue;
              }
              const out = values.node(v, `${path}.${key}`, struct, field, state);
              if (out !== v) obj[key] = out;
            }
            return obj;
          },
        };
      }
      default:
        return { node: anyValue, goType: 'interface {}' };
    }
  }

  /** The referenced definition is compiled when first used, so compiling a kind touches only its own types. */
  private lazyRef(name: string): Compiled {
    let target: Compiled | undefined;
    const resolve = () => (target ??= this.definition(name));
    return {
      get goType() {
        return resolve().goType;
      },
      node: (value, path, struct, field, state) => resolve().node(value, path, struct, field, state),
    };
  }

  private scalar(type: 'string' | 'boolean' | 'number', goType: string): Compiled {
    return {
      goType,
      node: (value, _path, struct, field, state) => {
        if (typeof value !== type) typeError(state, goJSONType(value), struct, field, goType);
        return value;
      },
    };
  }

  /** []byte: a base64 string, read with StdEncoding (Go's error is saved like a type error) and written back canonical. */
  private bytes(): Compiled {
    return {
      goType: '[]uint8',
      node: (value, _path, struct, field, state) => {
        if (typeof value !== 'string') {
          typeError(state, goJSONType(value), struct, field, '[]uint8');
          return value;
        }
        const out = canonicalBase64JSON(value);
        if (typeof out === 'string') return out;
        state.typeError ??= new DecodeError(out.error);
        return value;
      },
    };
  }

  private integer(goType: 'int32' | 'int64'): Compiled {
    const [min, max] = goType === 'int32' ? [int32Min, int32Max] : [-int64Limit, int64Limit - 1];
    return {
      goType,
      node: (value, _path, struct, field, state) => {
        // Go refuses a fraction or an overflow with the same error, naming the number.
        if (typeof value !== 'number') typeError(state, goJSONType(value), struct, field, goType);
        else if (!Number.isInteger(value) || value < min || value > max) typeError(state, `number ${value}`, struct, field, goType);
        return value;
      },
    };
  }
}

const compilers = new WeakMap<Schemas, Compiler>();
const decoders = new WeakMap<Schemas, Map<string, ObjectDecoder | null>>();

function compilerFor(schemas: Schemas): Compiler {
  let compiler = compilers.get(schemas);
  if (!compiler) compilers.set(schemas, (compiler = new Compiler(schemas)));
  return compiler;
}

/**
 * A custom resource's metadata decoded into ObjectMeta, as kube's CRD handler decodes it
 * (GetObjectMetaWithOptions): a field of the wrong type is encoding/json's error
 * (`cannot unmarshal number into Go struct field ObjectMeta.labels of type string`). Only the
 * errors count: the metadata itself is left as it was.
 */
export function checkObjectMeta(schemas: Schemas, metadata: unknown): void {
  const state: DecodeState = { unknown: [] };
  compilerFor(schemas).definition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').node(structuredClone(metadata), '', 'ObjectMeta', '', state);
  if (state.typeError) throw state.typeError;
}

/** The decoder of a kind; undefined for a kind the schemas do not describe (custom resources). */
export function decoderFor(schemas: Schemas, gvk: GroupVersionKind): ObjectDecoder | undefined {
  let byKind = decoders.get(schemas);
  if (!byKind) decoders.set(schemas, (byKind = new Map()));
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let d = byKind.get(key);
  if (d === undefined) {
    const name = schemas.definitionNameFor(gvk);
    if (name === undefined) {
      d = null;
    } else {
      const root = compilerFor(schemas).definition(name);
      d = (obj, unknown) => {
        const state: DecodeState = { unknown };
        root.node(obj, '', gvk.kind, '', state);
        if (state.typeError) throw state.typeError;
      };
    }
    byKind.set(key, d);
  }
  return d ?? undefined;
}
