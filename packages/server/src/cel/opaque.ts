/**
 * Kube's CEL object types (kubernetes.Quantity, kubernetes.URL, net.IP, net.CIDR,
 * kubernetes.Semver, kubernetes.NamedFormat, kubernetes.authorization.*, optional_type) as @bufbuild/cel can carry them.
 *
 * @bufbuild/cel knows scalars, lists, maps and protobuf messages only: a function result that is
 * none of these is refused. So each type is a message with one string field, `key`, built from
 * descriptors made here. The key is the value's identity under kube's Equal (a quantity's exact
 * decimal, an IP's canonical text), so CEL's `==` — protobuf message equality — answers what kube's
 * does, and the value itself is rebuilt from the key (or taken from a side table for values a key
 * cannot carry, such as an optional's contents).
 */
import { create, createFileRegistry, type DescMessage, type Message } from '@bufbuild/protobuf';
import { reflect, isReflectMessage, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorSetSchema, FieldDescriptorProto_Label, FieldDescriptorProto_Type } from '@bufbuild/protobuf/wkt';
import { objectType, type CelObjectType } from '@bufbuild/cel';

/** Type names as kube declares them, grouped by protobuf package. */
const packages: Record<string, string[]> = {
  kubernetes: ['Quantity', 'URL', 'Semver', 'NamedFormat'],
  net: ['IP', 'CIDR'],
  'kubernetes.authorization': ['Authorizer', 'PathCheck', 'GroupCheck', 'ResourceCheck', 'Decision'],
  '': ['optional_type'],
};

const keyField = { name: 'key', number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL, jsonName: 'key' };

/** The registry holding kube's types; the CEL environment is built with it so `net.IP` resolves. */
export const kubeTypeRegistry = createFileRegistry(
  create(FileDescriptorSetSchema, {
    file: Object.entries(packages).map(([pkg, names]) => ({
      name: `windlass/cel/${pkg || 'optional'}.proto`,
      package: pkg,
      syntax: 'proto3',
      messageType: names.map((name) => ({ name, field: [keyField] })),
    })),
  }),
);

export interface OpaqueType<T> {
  readonly type: CelObjectType;
  /** The CEL value for `v`. */
  of(v: T): ReflectMessage;
  /** The value a CEL value of this type holds. */
  get(m: ReflectMessage): T;
  is(v: unknown): v is ReflectMessage;
}

/**
 * An opaque CEL type: `key` gives a value's identity for equality, `decode` rebuilds a value from
 * a key when the side table does not hold it (a message copied by the evaluator).
 */
export function opaqueType<T>(typeName: string, key: (v: T) => string, decode: (key: string) => T): OpaqueType<T> {
  const desc = kubeTypeRegistry.getMessage(typeName) as DescMessage | undefined;
  if (!desc) throw new Error(`no descriptor for ${typeName}`);
  const values = new WeakMap<Message, T>();
  const field = desc.fields[0];
  return {
    type: objectType(desc),
    of(v) {
      const m = reflect(desc);
      m.set(field, key(v));
      values.set(m.message, v);
      return m;
    },
    get(m) {
      const cached = values.get(m.message);
      if (cached !== undefined) return cached;
      const v = decode(m.get(field) as string);
      values.set(m.message, v);
      return v;
    },
    is(v): v is ReflectMessage {
      return isReflectMessage(v) && v.desc.typeName === typeName;
    },
  };
}
