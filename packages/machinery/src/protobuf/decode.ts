/**
 * Decoding a message into kube's JSON form, field by field over the same descriptors the
 * encoder uses, with kube's self-marshalling types converted by hand.
 *
 * gogo-protobuf writes Go's non-pointer strings even when empty, and kube's JSON omits those
 * (omitempty), so an empty singular string is left out; empty lists and maps likewise. The
 * kind's schema decoding that follows restores what Go would write.
 */
import protobuf from 'protobufjs';
import { messageDescriptor, type FieldDescriptor, type MessageDescriptor, type ScalarType } from './descriptors.js';

type Json = Record<string, unknown>;

/** runtime.Unknown: the envelope after the magic bytes. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export function readEnvelope(bytes: Uint8Array): Envelope {
  const r = protobuf.Reader.create(bytes);
  const e: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(), contentEncoding: '', contentType: '' };
  while (r.pos < r.len) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: {
        const end = r.uint32() + r.pos;
        while (r.pos < end) {
          const tt = r.uint32();
          if (tt >>> 3 === 1) e.apiVersion = r.string();
          else if (tt >>> 3 === 2) e.kind = r.string();
          else r.skipType(tt & 7);
        }
        break;
      }
      case 2: e.raw = r.bytes(); break;
      case 3: e.contentEncoding = r.string(); break;
      case 4: e.contentType = r.string(); break;
      default: r.skipType(t & 7);
    }
  }
  return e;
}

export function decodeMessage(desc: MessageDescriptor, bytes: Uint8Array): unknown {
  const r = protobuf.Reader.create(bytes);
  return readMessage(r, desc, r.len);
}

/** Calls `read` for each field of `desc` up to `end`, which must consume the field's value; unknown fields are skipped. */
function forEachField(r: protobuf.Reader, desc: MessageDescriptor, end: number, read: (f: FieldDescriptor, wireType: number) => void): void {
  while (r.pos < end) {
    const t = r.uint32();
    const f = desc.byNumber.get(t >>> 3);
    if (f) read(f, t & 7);
    else r.skipType(t & 7);
  }
}

function readMessage(r: protobuf.Reader, desc: MessageDescriptor, end: number): unknown {
  if (desc.special) return readSpecial(r, desc, end);
  const out: Json = {};
  forEachField(r, desc, end, (f, wireType) => readField(r, f, wireType, out));
  return out;
}

function readField(r: protobuf.Reader, f: FieldDescriptor, wireType: number, out: Json): void {
  if (f.map) {
    const { key, value } = readMapEntry(r, f);
    const m = (out[f.json] ??= {}) as Json;
    m[String(key)] = value;
    return;
  }
  if (f.repeated) {
    const list = (out[f.json] ??= []) as unknown[];
    if (f.scalar && wireType === 2 && f.scalar !== 'string' && f.scalar !== 'bytes') {
      // A packed list of numbers: proto3 writers pack them; Go's proto2 code does not, but reads both.
      const end = r.uint32() + r.pos;
      while (r.pos < end) list.push(readScalar(r, f.scalar));
      return;
    }
    list.push(f.message ? readSubmessage(r, f.message) : readScalar(r, f.scalar!));
    return;
  }
  const v = f.message ? readSubmessage(r, f.message) : readScalar(r, f.scalar!);
  if (f.json === '') {
    // An embedded Go struct (json:",inline") is its own proto field but flattened in JSON.
    Object.assign(out, v);
    return;
  }
  if (v === undefined || v === null || v === '') {
    delete out[f.json];
    return;
  }
  out[f.json] = v;
}

function readSubmessage(r: protobuf.Reader, message: string): unknown {
  const end = r.uint32() + r.pos;
  return readMessage(r, messageDescriptor(message)!, end);
}

function readMapEntry(r: protobuf.Reader, f: FieldDescriptor): { key: unknown; value: unknown } {
  const end = r.uint32() + r.pos;
  let key: unknown = '';
  let value: unknown;
  while (r.pos < end) {
    const t = r.uint32();
    if (t >>> 3 === 1) key = readScalar(r, f.map!.key);
    else if (t >>> 3 === 2) value = f.map!.message ? readSubmessage(r, f.map!.message) : readScalar(r, f.map!.scalar!);
    else r.skipType(t & 7);
  }
  if (value === undefined) value = f.map!.message ? undefined : zeroOf(f.map!.scalar!);
  return { key, value };
}

function zeroOf(type: ScalarType): unknown {
  return type === 'string' ? '' : type === 'bool' ? false : type === 'bytes' ? '' : 0;
}

function toNumber(v: unknown): number {
  return typeof v === 'number' ? v : (v as { toNumber(): number }).toNumber();
}

function readScalar(r: protobuf.Reader, type: ScalarType): unknown {
  switch (type) {
    case 'string': return r.string();
    case 'bytes': return Buffer.from(r.bytes()).toString('base64');
    case 'bool': return r.bool();
    case 'int32': return r.int32();
    case 'uint32': return r.uint32();
    case 'sint32': return r.sint32();
    case 'int64': return toNumber(r.int64());
    case 'uint64': return toNumber(r.uint64());
    case 'sint64': return toNumber(r.sint64());
    case 'fixed32': return r.fixed32();
    case 'sfixed32': return r.sfixed32();
    case 'fixed64': return toNumber(r.fixed64());
    case 'sfixed64': return toNumber(r.sfixed64());
    case 'float': return r.float();
    case 'double': return r.double();
  }
}

/** The fields of a special message, by number, with their wire values. */
function readRaw(r: protobuf.Reader, desc: MessageDescriptor, end: number): Map<number, unknown[]> {
  const fields = new Map<number, unknown[]>();
  forEachField(r, desc, end, (f) => {
    let v: unknown;
    if (f.message) v = readSubmessage(r, f.message);
    else if (f.scalar === 'bytes') v = r.bytes();
    else v = readScalar(r, f.scalar!);
    const list = fields.get(f.number) ?? [];
    list.push(v);
    fields.set(f.number, list);
  });
  return fields;
}

function readSpecial(r: protobuf.Reader, desc: MessageDescriptor, end: number): unknown {
  const fields = readRaw(r, desc, end);
  const one = (n: number) => fields.get(n)?.[fields.get(n)!.length - 1];
  switch (desc.special) {
    case 'Time': {
      const seconds = Number(one(1) ?? 0);
      // A zero Time is what Go writes for an unset one.
      return seconds === 0 ? undefined : new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'MicroTime': {
      if (one(1) === undefined) return undefined;
      const micros = String(Math.floor(Number(one(2) ?? 0) / 1000)).padStart(6, '0');
      return new Date(Number(one(1)) * 1000).toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
    }
    case 'RawJSON': {
      // Go's JSON types marshal an empty raw as null (an enum's null item); a field set to it is left out.
      const raw = one(1) as Uint8Array | undefined;
      return raw && raw.length ? JSON.parse(Buffer.from(raw).toString('utf8')) : null;
    }
    case 'IntOrString':
      return Number(one(1) ?? 0) === 1 ? (one(3) ?? '') : Number(one(2) ?? 0);
    case 'Quantity':
      return one(1) ?? '';
    case 'StringArray':
      return fields.get(1) ?? [];
    case 'PropsOrArray':
      return fields.has(2) ? fields.get(2) : one(1);
    case 'PropsOrBool':
      return fields.has(2) ? one(2) : one(1) === true;
    case 'PropsOrStringArray':
      return fields.has(2) ? fields.get(2) : one(1);
  }
  return undefined;
}
