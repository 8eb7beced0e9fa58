/**
 * Typed decoding of a kind's objects against its schema, as kube's JSON decoder does it:
 * a value of the wrong JSON type is an error with encoding/json's message, unknown fields
 * are removed and reported (for fieldValidation). Each definition is compiled once into a
 * closure the first time a kind needs it; decoding an object walks the object, never the
 * schema by name.
 */
import type { Schemas } from './definitions.js';
import type { GroupVersionKind, JsonObject } from './types.js';

/** encoding/json's UnmarshalTypeError: `cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`. */
export class DecodeTypeError extends Error {
  constructor(jsonType: string, struct: string, path: string, goType: string) {
    super(`json: cannot unmarshal ${jsonType} into Go struct field ${struct}.${path} of type ${goType}`);
  }
}

/**
 * Decodes `obj` in place. Unknown fields are deleted and their paths (`spec.foo`,
 * `spec.containers[0].bar`) pushed to `unknown`; throws DecodeTypeError at the first value of
 * the wrong type, in document order.
 */
export type ObjectDecoder = (obj: JsonObject, unknown: string[]) => void;

/** Decodes `value` found at `path` (JSON path for unknown fields) below the struct field `field`. */
type Node = (value: unknown, path: string, struct: string, field: string, unknown: string[]) => void;

interface Compiled {
  node: Node;
  goType: string;
}

const jsonTypeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'object' ? 'object' : (typeof v as string);

const anyValue: Node = () => {};

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`, as Go prints a named type. */
function goTypeName(defName: string): string {
  const segs = defName.split('.');
  return `${segs[segs.length - 2]}.${segs[segs.length - 1]}`;
}

/** Definitions whose Go types unmarshal themselves from more than one JSON type. */
const custom: Record<string, Compiled> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { node: anyValue, goType: 'intstr.IntOrString' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { node: anyValue, goType: 'resource.Quantity' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { node: anyValue, goType: 'runtime.RawExtension' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': { node: anyValue, goType: 'v1.JSON' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': { node: anyValue, goType: 'v1.JSONSchemaPropsOrArray' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': { node: anyValue, goType: 'v1.JSONSchemaPropsOrBool' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': { node: anyValue, goType: 'v1.JSONSchemaPropsOrStringArray' },
};

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
    for (const [field, prop] of Object.entries(def.properties as Record<string, JsonObject>)) fields.set(field, this.schema(prop));
    const goType = goTypeName(name);
    return (value, path, struct, field, unknown) => {
      if (value === null) return;
      if (typeof value !== 'object' || Array.isArray(value)) throw new DecodeTypeError(jsonTypeOf(value), struct, field, goType);
      const obj = value as JsonObject;
      const prefix = path === '' ? '' : `${path}.`;
      const fieldPrefix = field === '' ? '' : `${field}.`;
      for (const key in obj) {
        const f = fields.get(key);
        if (f === undefined) {
          unknown.push(prefix + key);
          delete obj[key];
          continue;
        }
        const v = obj[key];
        if (v !== null) f.node(v, prefix + key, structName, fieldPrefix + key, unknown);
      }
    };
  }

  /** A property's schema: a `$ref`, a scalar, an array or a map. */
  schema(s: JsonObject): Compiled {
    if (typeof s.$ref === 'string') return this.lazyRef(s.$ref.replace(/^#\/definitions\//, ''));
    if (Array.isArray(s.allOf) && s.allOf.length === 1 && s.allOf[0].$ref) return this.schema(s.allOf[0]);
    if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string']) return { node: anyValue, goType: 'intstr.IntOrString' };
    switch (s.type) {
      case 'string':
        return this.scalar('string', s.format === 'byte' ? '[]uint8' : 'string');
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
          node: (value, path, struct, field, unknown) => {
            if (!Array.isArray(value)) throw new DecodeTypeError(jsonTypeOf(value), struct, field, goType);
            for (let i = 0; i < value.length; i++) if (value[i] !== null) items.node(value[i], `${path}[${i}]`, struct, field, unknown);
          },
        };
      }
      case 'object': {
        if (!s.additionalProperties || typeof s.additionalProperties !== 'object') return { node: anyValue, goType: 'map[string]interface {}' };
        const values = this.schema(s.additionalProperties);
        const goType = `map[string]${values.goType}`;
        return {
          goType,
          node: (value, path, struct, field, unknown) => {
            if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DecodeTypeError(jsonTypeOf(value), struct, field, goType);
            const obj = value as JsonObject;
            for (const key in obj) if (obj[key] !== null) values.node(obj[key], `${path}.${key}`, struct, field, unknown);
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
      node: (value, path, struct, field, unknown) => resolve().node(value, path, struct, field, unknown),
    };
  }

  private scalar(type: 'string' | 'boolean' | 'number', goType: string): Compiled {
    return {
      goType,
      node: (value, _path, struct, field) => {
        if (typeof value !== type) throw new DecodeTypeError(jsonTypeOf(value), struct, field, goType);
      },
    };
  }

  private integer(goType: string): Compiled {
    return {
      goType,
      node: (value, _path, struct, field) => {
        // Go refuses a fraction for an integer field with the same error, naming the number.
        if (typeof value !== 'number') throw new DecodeTypeError(jsonTypeOf(value), struct, field, goType);
        if (!Number.isInteger(value)) throw new DecodeTypeError(`number ${value}`, struct, field, goType);
      },
    };
  }
}

const compilers = new WeakMap<Schemas, Compiler>();
const decoders = new WeakMap<Schemas, Map<string, ObjectDecoder | null>>();

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
      let compiler = compilers.get(schemas);
      if (!compiler) compilers.set(schemas, (compiler = new Compiler(schemas)));
      const root = compiler.definition(name);
      d = (obj, unknown) => root.node(obj, '', gvk.kind, '', unknown);
    }
    byKind.set(key, d);
  }
  return d ?? undefined;
}
