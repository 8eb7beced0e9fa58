/**
 * Encoding objects from kube's JSON form into `application/vnd.kubernetes.protobuf` (spec 2.7):
 * the message of the object's kind, field by field in field-number order as Go's generated
 * marshallers write them, inside the `k8s\0` + runtime.Unknown envelope.
 *
 * A field is written when the JSON form has it: a Go pointer set to its zero value is in the
 * JSON and so is written, and a zero value Go omitted is absent here and zero when decoded,
 * so a client decodes the same Go object from either form.
 *
 * Two passes, as Go's marshallers do (Size, then MarshalToSizedBuffer; wire.ts): the first
 * measures every nested message, the second writes into one buffer of the exact size.
 * protobufjs's Writer keeps an operation object per value written, and encoding 10k ConfigMaps
 * with it spent half its time collecting them; see bench/RESULTS.md, "Sixth session: protobuf
 * encoding".
 */
import { messageDescriptor, messageForKind } from './descriptors.js';
import { lengthDelimited, Measure, Out, tagSize, utf8Length } from './wire.js';

export const protobufMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Json = Record<string, unknown>;

/** Whether kube has a protobuf message for objects of this kind. */
export function hasProtobufMessage(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== undefined;
}

/**
 * The whole body: magic, then Unknown{typeMeta, raw, contentEncoding, contentType}. An object
 * of a kind with no message (a Table: kube's Go type has no protobuf form) travels as its JSON
 * in `raw`, with contentType saying so, as the envelope allows.
 */
export function encodeProtobuf(obj: Json): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const desc = messageForKind(apiVersion, kind);
  if (!desc) return wrapProtobufMessage(apiVersion, kind, Buffer.from(JSON.stringify(obj)), 'application/json');
  const m = new Measure();
  return envelope(apiVersion, kind, m, m.message(desc, obj), (out) => out.message(desc, obj));
}

/**
 * Magic and the Unknown envelope, with `raw` (of `rawSize` bytes, measured in `m`) written by
 * `writeRaw`. Go writes its non-pointer strings even when empty: contentEncoding always is.
 */
function envelope(apiVersion: string, kind: string, m: Measure, rawSize: number, writeRaw: (out: Out) => void, contentType = ''): Buffer {
  const typeMeta = tagSize(1) + lengthDelimited(utf8Length(apiVersion)) + tagSize(2) + lengthDelimited(utf8Length(kind));
  const size = tagSize(1) + lengthDelimited(typeMeta) + tagSize(2) + lengthDelimited(rawSize) + tagSize(3) + 1 + tagSize(4) + lengthDelimited(utf8Length(contentType));
  const out = new Out(Buffer.allocUnsafe(4 + size), m);
  protobufMagic.copy(out.buf, 0);
  out.pos = 4;
  out.tag(1, 2);
  out.varint(typeMeta);
  out.string(1, apiVersion);
  out.string(2, kind);
  out.tag(2, 2);
  out.varint(rawSize);
  writeRaw(out);
  out.string(3, '');
  out.string(4, contentType);
  return out.done();
}

/** The bare message of one object (no envelope), or undefined for a kind without one. */
export function encodeMessage(obj: Json): Buffer | undefined {
  const desc = messageForKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
  if (!desc) return undefined;
  const m = new Measure();
  const out = new Out(Buffer.allocUnsafe(m.message(desc, obj)), m);
  out.message(desc, obj);
  return out.done();
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then WatchEvent{type, object:
 * RawExtension{raw}} whose raw is the object's whole envelope, magic included.
 */
export function encodeWatchFrame(type: string, object: Uint8Array): Buffer {
  const rawExtension = tagSize(1) + lengthDelimited(object.length);
  const event = tagSize(1) + lengthDelimited(utf8Length(type)) + tagSize(2) + lengthDelimited(rawExtension);
  const out = new Out(Buffer.allocUnsafe(4 + event), new Measure());
  out.buf.writeUInt32BE(event, 0);
  out.pos = 4;
  out.string(1, type);
  out.tag(2, 2);
  out.varint(rawExtension);
  out.tag(1, 2);
  out.varint(object.length);
  out.raw(object);
  return out.done();
}

/**
 * A list whose items are already encoded messages (each the bare message of one object, as
 * encodeMessage gives it): the list kind's message, its ListMeta from `metadata`, the items
 * as they are, inside the envelope. Undefined when kube has no such list message.
 */
export function encodeListProtobuf(apiVersion: string, listKind: string, metadata: Json, items: Uint8Array[]): Buffer | undefined {
  const desc = messageForKind(apiVersion, listKind);
  const metaField = desc?.fields.find((f) => f.json === 'metadata');
  const itemsField = desc?.fields.find((f) => f.json === 'items');
  if (!desc || !metaField?.message || !itemsField) return undefined;
  const m = new Measure();
  const meta = messageDescriptor(metaField.message)!;
  const metaSize = m.message(meta, metadata);
  let raw = tagSize(metaField.number) + lengthDelimited(metaSize);
  for (const item of items) raw += tagSize(itemsField.number) + lengthDelimited(item.length);
  return envelope(apiVersion, listKind, m, raw, (out) => {
    out.tag(metaField.number, 2);
    out.varint(metaSize);
    out.message(meta, metadata);
    for (const item of items) {
      out.tag(itemsField.number, 2);
      out.varint(item.length);
      out.raw(item);
    }
  });
}

/** The envelope around an object's already encoded message (encodeMessage's bytes), or other bytes of `contentType`. */
export function wrapProtobufMessage(apiVersion: string, kind: string, message: Uint8Array, contentType = ''): Buffer {
  return envelope(apiVersion, kind, new Measure(), message.length, (out) => out.raw(message), contentType);
}
