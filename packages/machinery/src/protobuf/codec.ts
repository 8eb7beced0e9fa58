/**
 * Decoding `application/vnd.kubernetes.protobuf` bodies (spec 2.7): the 4-byte magic
 * `k8s\0`, a runtime.Unknown envelope, and the object's message in `raw`. Typed clients
 * (kubectl create namespace/configmap/secret) send these. The result is the object's
 * JSON form, as kube's JSON serializer would render it.
 */
import protobuf from 'protobufjs';
import { newBadRequest } from '../status.js';
import { protoJsonNames } from '../generated/proto-messages.js';
import { protoRoot } from './schema.js';

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export interface DecodedProtobuf {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/** The proto package of a group/version: '' → k8s.io.api.core.v1, 'coordination.k8s.io' → k8s.io.api.coordination.v1. */
export function protoPackageFor(group: string, version: string): string {
  if (group === 'meta.k8s.io') return `k8s.io.apimachinery.pkg.apis.meta.${version}`;
  if (group === 'apiextensions.k8s.io') return `k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.${version}`;
  const short = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0];
  return `k8s.io.api.${short}.${version}`;
}

export function decodeProtobuf(body: Buffer, expected: { group: string; version: string; kind: string }): DecodedProtobuf {
  if (body.length < 4 || !body.subarray(0, 4).equals(magic)) throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  const root = protoRoot();
  let unknown: { typeMeta?: { apiVersion?: string; kind?: string }; raw?: Uint8Array; contentEncoding?: string };
  try {
    unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(4)) as typeof unknown;
  } catch (err) {
    throw newBadRequest(`unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  if (unknown.contentEncoding) throw newBadRequest(`unsupported protobuf content encoding ${JSON.stringify(unknown.contentEncoding)}`);
  const kind = unknown.typeMeta?.kind || expected.kind;
  const apiVersion = unknown.typeMeta?.apiVersion || (expected.group ? `${expected.group}/${expected.version}` : expected.version);
  const [g, v] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  let type: protobuf.Type;
  try {
    type = root.lookupType(`${protoPackageFor(g, v)}.${kind}`);
  } catch {
    throw newBadRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme`);
  }
  let message: protobuf.Message;
  try {
    message = type.decode(unknown.raw ?? new Uint8Array());
  } catch (err) {
    throw newBadRequest(`${kind} in version "${apiVersion}" cannot be handled as a ${kind}: ${(err as Error).message}`);
  }
  const object = toJSON(type, message) as Record<string, unknown>;
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}

/** Converts a decoded message into kube's JSON form, field by field, with kube's special types. */
function toJSON(type: protobuf.Type, message: any): unknown {
  switch (type.fullName) {
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.Time':
      return message.seconds === undefined || Number(message.seconds) === 0 ? undefined : new Date(Number(message.seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': {
      if (message.seconds === undefined) return undefined;
      const micros = String(Math.floor((message.nanos ?? 0) / 1000)).padStart(6, '0');
      return new Date(Number(message.seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
    }
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1':
    case '.k8s.io.apimachinery.pkg.runtime.RawExtension': {
      const raw = message.Raw ?? message.raw;
      return raw && raw.length ? JSON.parse(Buffer.from(raw).toString('utf8')) : undefined;
    }
    case '.k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return Number(message.type ?? 0) === 1 ? (message.strVal ?? '') : Number(message.intVal ?? 0);
    case '.k8s.io.apimachinery.pkg.api.resource.Quantity':
      return message.string ?? '';
  }
  const out: Record<string, unknown> = {};
  const jsonNames = protoJsonNames[type.fullName.slice(1)];
  for (const field of type.fieldsArray) {
    const name = jsonNames?.[field.name] ?? field.name;
    // protobufjs exposes unset optional fields as prototype defaults; only own fields were on the wire.
    if (!Object.prototype.hasOwnProperty.call(message, field.name)) continue;
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      const m: Record<string, unknown> = {};
      // Map values of a message type (ResourceList's Quantity) decode as messages, like fields.
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) m[k] = field.resolvedType instanceof protobuf.Type ? toJSON(field.resolvedType, v) : scalar(field, v);
      if (Object.keys(m).length) out[name] = m;
      continue;
    }
    if (field.repeated) {
      if ((value as unknown[]).length === 0) continue;
      out[name] = (value as unknown[]).map((v) => (field.resolvedType instanceof protobuf.Type ? toJSON(field.resolvedType, v) : scalar(field, v)));
      continue;
    }
    const v = field.resolvedType instanceof protobuf.Type ? toJSON(field.resolvedType, value) : scalar(field, value);
    // gogo-protobuf writes proto2 optional strings even when empty; kube's JSON omits them.
    if (v === undefined || v === '') continue;
    // An embedded Go struct (json:",inline") is its own proto field but flattened in JSON.
    if (name === '') Object.assign(out, v);
    else out[name] = v;
  }
  return out;
}

function scalar(field: protobuf.Field, v: unknown): unknown {
  const t = field.type; // for a map field: the value type
  if (t === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (t === 'int64' || t === 'uint64' || t === 'sint64' || t === 'fixed64') return Number(v);
  return v;
}
