/**
 * Decoding `application/vnd.kubernetes.protobuf` bodies (spec 2.7): the 4-byte magic
 * `k8s\0`, a runtime.Unknown envelope, and the object's message in `raw`. Typed clients
 * (kubectl create namespace/configmap/secret) send these. The result is the object's
 * JSON form, as kube's JSON serializer would render it.
 */
import { newBadRequest } from '../status.js';
import { messageForKind, protoPackageFor } from './descriptors.js';
import { decodeMessage, readEnvelope, type Envelope } from './decode.js';
import { protobufMagic } from './encode.js';

export { protoPackageFor };
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

export interface DecodedProtobuf {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

export function decodeProtobuf(body: Buffer, expected: { group: string; version: string; kind: string }): DecodedProtobuf {
  if (body.length < 4 || !body.subarray(0, 4).equals(protobufMagic)) throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  let unknown: Envelope;
  try {
    unknown = readEnvelope(body.subarray(4));
  } catch (err) {
    throw newBadRequest(`unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  if (unknown.contentEncoding) throw newBadRequest(`unsupported protobuf content encoding ${JSON.stringify(unknown.contentEncoding)}`);
  const kind = unknown.kind || expected.kind;
  const apiVersion = unknown.apiVersion || (expected.group ? `${expected.group}/${expected.version}` : expected.version);
  const desc = messageForKind(apiVersion, kind);
  if (!desc) throw newBadRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme`);
  let object: Record<string, unknown>;
  try {
    object = decodeMessage(desc, unknown.raw) as Record<string, unknown>;
  } catch (err) {
    throw newBadRequest(`${kind} in version "${apiVersion}" cannot be handled as a ${kind}: ${(err as Error).message}`);
  }
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}
