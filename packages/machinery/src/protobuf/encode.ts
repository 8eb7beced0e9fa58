/**
 * Encoding objects from kube's JSON form into `application/vnd.kubernetes.protobuf` (spec 2.7):
 * the message of the object's kind, field by field in field-number order as Go's generated
 * marshallers write them, inside the `k8s\0` + runtime.Unknown envelope.
 *
 * A field is written when the JSON form has it: a Go pointer set to its zero value is in the
 * JSON and so is written, and a zero value Go omitted is absent here and zero when decoded,
 * so a client decodes the same Go object from either form.
 */
import protobuf from 'protobufjs';
import { messageDescriptor, messageForKind, type FieldDescriptor, type MessageDescriptor, type ScalarType } from './descriptors.js';

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
  const w = protobuf.Writer.create();
  const desc = messageForKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
  if (desc) writeEnvelope(w, obj, (inner) => writeMessage(inner, desc, obj));
  else writeEnvelope(w, obj, Buffer.from(JSON.stringify(obj)), 'application/json');
  return Buffer.concat([protobufMagic, w.finish()]);
}

/** Unknown{typeMeta, raw, contentEncoding, contentType}: `raw` is written by `body`, or is the given bytes. */
export function writeEnvelope(w: protobuf.Writer, obj: Json, body: ((w: protobuf.Writer) => void) | Uint8Array, contentType = ''): void {
  w.uint32(tag(1, 2)).fork();
  w.uint32(tag(1, 2)).string(String(obj.apiVersion ?? ''));
  w.uint32(tag(2, 2)).string(String(obj.kind ?? ''));
  w.ldelim();
  if (typeof body === 'function') {
    w.uint32(tag(2, 2)).fork();
    body(w);
    w.ldelim();
  } else w.uint32(tag(2, 2)).bytes(body);
  // Go writes its non-pointer strings even when empty.
  w.uint32(tag(3, 2)).string('');
  w.uint32(tag(4, 2)).string(contentType);
}

/** The bare message of one object (no envelope): a list item, or the raw of a watch event. */
export function encodeMessage(obj: Json): Buffer | undefined {
  const desc = messageForKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
  if (!desc) return undefined;
  const w = protobuf.Writer.create();
  writeMessage(w, desc, obj);
  return Buffer.from(w.finish());
}

function tag(number: number, wireType: number): number {
  return ((number << 3) | wireType) >>> 0;
}

const wireTypes: Record<ScalarType, number> = {
  string: 2, bytes: 2, bool: 0, int32: 0, int64: 0, uint32: 0, uint64: 0, sint32: 0, sint64: 0,
  fixed32: 5, sfixed32: 5, float: 5, fixed64: 1, sfixed64: 1, double: 1,
};

/** The fields of `desc` from the JSON object `obj`, which may hold the fields of embedded structs too. */
export function writeMessage(w: protobuf.Writer, desc: MessageDescriptor, obj: Json): void {
  if (desc.special) return writeSpecial(w, desc, obj);
  for (const f of desc.fields) {
    if (f.json === '') {
      // An embedded struct: Go writes it always; its fields sit in this same JSON object.
      w.uint32(tag(f.number, 2)).fork();
      writeMessage(w, messageDescriptor(f.message!)!, obj);
      w.ldelim();
      continue;
    }
    const v = obj[f.json];
    if (v === undefined || v === null) continue;
    writeField(w, f, v);
  }
}

function writeField(w: protobuf.Writer, f: FieldDescriptor, v: unknown): void {
  if (f.map) {
    const m = v as Json;
    // Go writes map entries in the order of their sorted keys.
    for (const k of Object.keys(m).sort(compareStrings)) {
      const value = m[k];
      if (value === undefined) continue;
      w.uint32(tag(f.number, 2)).fork();
      writeScalar(w, 1, f.map.key, k);
      if (f.map.message) writeSubmessage(w, 2, f.map.message, value);
      else if (value !== null) writeScalar(w, 2, f.map.scalar!, value);
      w.ldelim();
    }
    return;
  }
  if (f.repeated) {
    if (!Array.isArray(v)) return;
    for (const item of v) {
      if (f.message) writeSubmessage(w, f.number, f.message, item);
      else if (item !== null) writeScalar(w, f.number, f.scalar!, item);
    }
    return;
  }
  if (f.message) writeSubmessage(w, f.number, f.message, v);
  else writeScalar(w, f.number, f.scalar!, v);
}

function writeSubmessage(w: protobuf.Writer, number: number, message: string, v: unknown): void {
  w.uint32(tag(number, 2)).fork();
  // A null list item or map value is Go's zero value of the message: an empty message.
  if (v !== null && v !== undefined) writeMessage(w, messageDescriptor(message)!, v as Json);
  w.ldelim();
}

function writeScalar(w: protobuf.Writer, number: number, type: ScalarType, v: unknown): void {
  w.uint32(tag(number, wireTypes[type]));
  switch (type) {
    case 'string': w.string(String(v)); return;
    // JSON holds bytes as standard base64, which the writer decodes.
    case 'bytes': w.bytes(typeof v === 'string' ? Buffer.from(v, 'base64') : (v as Uint8Array)); return;
    case 'bool': w.bool(v === true); return;
    case 'int32': w.int32(Number(v)); return;
    case 'uint32': w.uint32(Number(v)); return;
    case 'sint32': w.sint32(Number(v)); return;
    case 'int64': w.int64(Number(v)); return;
    case 'uint64': w.uint64(Number(v)); return;
    case 'sint64': w.sint64(Number(v)); return;
    case 'fixed32': w.fixed32(Number(v)); return;
    case 'sfixed32': w.sfixed32(Number(v)); return;
    case 'fixed64': w.fixed64(Number(v)); return;
    case 'sfixed64': w.sfixed64(Number(v)); return;
    case 'float': w.float(Number(v)); return;
    case 'double': w.double(Number(v)); return;
  }
}

/** Go's sort.Strings: by UTF-8 bytes, which for these keys is UTF-16 code unit order. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeSpecial(w: protobuf.Writer, desc: MessageDescriptor, v: unknown): void {
  switch (desc.special) {
    case 'Time':
    case 'MicroTime': {
      const { seconds, nanos } = parseTimestamp(String(v));
      w.uint32(tag(1, 0)).int64(seconds);
      w.uint32(tag(2, 0)).int32(nanos);
      return;
    }
    case 'RawJSON':
      w.uint32(tag(1, 2)).bytes(Buffer.from(JSON.stringify(v)));
      return;
    case 'IntOrString':
      // Go writes all three fields of the struct: type (0 int, 1 string), intVal, strVal.
      if (typeof v === 'string') {
        w.uint32(tag(1, 0)).int64(1);
        w.uint32(tag(2, 0)).int32(0);
        w.uint32(tag(3, 2)).string(v);
      } else {
        w.uint32(tag(1, 0)).int64(0);
        w.uint32(tag(2, 0)).int32(Number(v));
        w.uint32(tag(3, 2)).string('');
      }
      return;
    case 'Quantity':
      w.uint32(tag(1, 2)).string(String(v));
      return;
    case 'StringArray':
      for (const s of v as unknown[]) w.uint32(tag(1, 2)).string(String(s));
      return;
    case 'PropsOrArray': {
      const props = messageDescriptor(desc.fields.find((f) => f.number === 1)!.message!)!;
      if (Array.isArray(v)) for (const s of v) writeSubmessage(w, 2, props.fullName, s);
      else writeSubmessage(w, 1, props.fullName, v);
      return;
    }
    case 'PropsOrBool': {
      // A schema means allowed; only `false` disallows.
      if (typeof v === 'boolean') {
        w.uint32(tag(1, 0)).bool(v);
        return;
      }
      w.uint32(tag(1, 0)).bool(true);
      writeSubmessage(w, 2, desc.fields.find((f) => f.number === 2)!.message!, v);
      return;
    }
    case 'PropsOrStringArray':
      if (Array.isArray(v)) for (const s of v) w.uint32(tag(2, 2)).string(String(s));
      else writeSubmessage(w, 1, desc.fields.find((f) => f.number === 1)!.message!, v);
      return;
  }
}

/** RFC 3339 with optional fraction (kube's Time has seconds, MicroTime microseconds). */
export function parseTimestamp(s: string): { seconds: number; nanos: number } {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) {
    const ms = Date.parse(s);
    return { seconds: Number.isFinite(ms) ? Math.floor(ms / 1000) : 0, nanos: 0 };
  }
  const seconds = Math.floor(Date.parse(`${m[1]}${m[3]}`) / 1000);
  const nanos = m[2] ? Number(m[2].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then WatchEvent{type, object:
 * RawExtension{raw}} whose raw is the object's whole envelope, magic included.
 */
export function encodeWatchFrame(type: string, object: Uint8Array): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(tag(1, 2)).string(type);
  w.uint32(tag(2, 2)).fork();
  w.uint32(tag(1, 2)).bytes(object);
  w.ldelim();
  const event = w.finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
