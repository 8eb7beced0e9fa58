/**
 * Kubernetes' protobuf messages as the codec walks them: each message's fields in field-number
 * order, with the JSON name each has in kube's JSON form, resolved once from the generated
 * field tables of k8s.io/api, apimachinery and apiextensions-apiserver.
 *
 * A few Go types marshal themselves rather than field by field, in JSON and in proto alike;
 * they are `special`: the codec converts between their JSON form (a string, a number, an
 * embedded document) and their message by hand.
 */
import { protoJsonNames, protoMessages } from '../generated/proto-messages.js';

export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'sint32' | 'sint64' | 'fixed32' | 'fixed64' | 'sfixed32' | 'sfixed64' | 'double' | 'float';

export type Special =
  | 'Time' // metav1.Time: RFC 3339 in JSON, {seconds, nanos} in proto
  | 'MicroTime'
  | 'RawJSON' // FieldsV1, RawExtension, apiextensions JSON: the value's JSON bytes in field 1
  | 'IntOrString'
  | 'Quantity'
  | 'StringArray' // Go named []string types (ExtraValue, Verbs): a JSON array
  | 'PropsOrArray' // apiextensions JSONSchemaPropsOrArray: a schema or an array of schemas
  | 'PropsOrBool'
  | 'PropsOrStringArray';

export interface FieldDescriptor {
  /** The proto field name. */
  name: string;
  /** Its name in kube's JSON; '' for an embedded (json:",inline") struct flattened into its parent. */
  json: string;
  number: number;
  repeated: boolean;
  /** The scalar type, or the message (resolved on first use). */
  scalar?: ScalarType;
  message?: string;
  /** A map field: its key type and the value's scalar type or message. */
  map?: { key: ScalarType; scalar?: ScalarType; message?: string };
}

export interface MessageDescriptor {
  fullName: string;
  fields: FieldDescriptor[];
  /** For decoding: the field a tag names. */
  byNumber: Map<number, FieldDescriptor>;
  special?: Special;
}

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const apiextensions = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const specials: Record<string, Special> = {
  [`${meta}.Time`]: 'Time',
  [`${meta}.MicroTime`]: 'MicroTime',
  [`${meta}.FieldsV1`]: 'RawJSON',
  [`${meta}.Verbs`]: 'StringArray',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawJSON',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'k8s.io.api.authentication.v1.ExtraValue': 'StringArray',
  'k8s.io.api.authorization.v1.ExtraValue': 'StringArray',
  'k8s.io.api.certificates.v1.ExtraValue': 'StringArray',
  [`${apiextensions}.JSON`]: 'RawJSON',
  [`${apiextensions}.JSONSchemaPropsOrArray`]: 'PropsOrArray',
  [`${apiextensions}.JSONSchemaPropsOrBool`]: 'PropsOrBool',
  [`${apiextensions}.JSONSchemaPropsOrStringArray`]: 'PropsOrStringArray',
};

const scalarTypes = new Set<string>(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float']);

const descriptors = new Map<string, MessageDescriptor | null>();

/** The message `fullName` (package.Name, no leading dot), or undefined when kube has no such message. */
export function messageDescriptor(fullName: string): MessageDescriptor | undefined {
  let d = descriptors.get(fullName);
  if (d === undefined) {
    d = build(fullName);
    descriptors.set(fullName, d);
  }
  return d ?? undefined;
}

function build(fullName: string): MessageDescriptor | null {
  const dot = fullName.lastIndexOf('.');
  const pkg = fullName.slice(0, dot);
  const table = protoMessages[pkg]?.[fullName.slice(dot + 1)];
  if (!table) return null;
  const renamed = protoJsonNames[fullName] ?? {};
  const resolve = (t: string) => (t.startsWith('.') ? t.slice(1) : `${pkg}.${t}`);
  const fields: FieldDescriptor[] = table.map(([name, number, type, rule, key, value]) => {
    const f: FieldDescriptor = { name, json: renamed[name] ?? name, number, repeated: rule === 'r' };
    if (type === 'map') {
      f.map = scalarTypes.has(value!) ? { key: key as ScalarType, scalar: value as ScalarType } : { key: key as ScalarType, message: resolve(value!) };
    } else if (scalarTypes.has(type)) f.scalar = type as ScalarType;
    else f.message = resolve(type);
    return f;
  });
  fields.sort((a, b) => a.number - b.number);
  return { fullName, fields, byNumber: new Map(fields.map((f) => [f.number, f])), special: specials[fullName] };
}

/** The proto package of a group/version: '' → k8s.io.api.core.v1, 'coordination.k8s.io' → k8s.io.api.coordination.v1. */
export function protoPackageFor(group: string, version: string): string {
  if (group === 'meta.k8s.io') return `k8s.io.apimachinery.pkg.apis.meta.${version}`;
  if (group === 'apiextensions.k8s.io') return `k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.${version}`;
  const short = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0];
  return `k8s.io.api.${short}.${version}`;
}

/**
 * The message of an object with this apiVersion and kind. Kinds every group version shares
 * (Status, DeleteOptions, WatchEvent, the discovery documents) are meta/v1's messages,
 * whatever group version names them, as kube registers them in every group.
 */
export function messageForKind(apiVersion: string, kind: string): MessageDescriptor | undefined {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return messageDescriptor(`${protoPackageFor(group, version)}.${kind}`) ?? (sharedMetaKinds.has(kind) ? messageDescriptor(`${meta}.${kind}`) : undefined);
}

const sharedMetaKinds = new Set(['Status', 'DeleteOptions', 'WatchEvent', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'ListOptions']);
