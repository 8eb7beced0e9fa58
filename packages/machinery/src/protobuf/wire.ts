/**
 * The two passes of protobuf encoding (Measure, then Out), over the message descriptors, with
 * the wire's small pieces: varints, tags, UTF-8 lengths, Go's map key order, kube's timestamps.
 */
import { messageDescriptor, type FieldDescriptor, type MessageDescriptor, type ScalarType } from './descriptors.js';

type Json = Record<string, unknown>;

const wireTypes: Record<ScalarType, number> = {
  string: 2, bytes: 2, bool: 0, int32: 0, int64: 0, uint32: 0, uint64: 0, sint32: 0, sint64: 0,
  fixed32: 5, sfixed32: 5, float: 5, fixed64: 1, sfixed64: 1, double: 1,
};

export function varintSize(v: number): number {
  if (v < 0) return 10;
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export function tagSize(number: number): number {
  return varintSize(number << 3);
}

export function lengthDelimited(length: number): number {
  return varintSize(length) + length;
}

/** Go's sort.Strings: by UTF-8 bytes, which for these keys is UTF-16 code unit order. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A map's keys in Go's order; most maps arrive sorted, and are then not copied again. */
function sortedKeys(m: Json): string[] {
  const keys = Object.keys(m);
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    if (m[keys[i]] === undefined) return keys.filter((k) => m[k] !== undefined).sort(compareStrings);
    if (i > 0 && keys[i - 1] > keys[i]) sorted = false;
  }
  return sorted ? keys : keys.sort(compareStrings);
}

/** UTF-8 length; counted here rather than by Buffer.byteLength, whose call costs more than the short strings objects hold. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: four bytes for two UTF-16 units.
      n += 2;
      i++;
    } else n += 2; // three bytes (a lone surrogate too: Node writes U+FFFD)
  }
  return n;
}

/** The JSON text a RawJSON special (FieldsV1, RawExtension, apiextensions JSON) carries. */
const rawJSON = (v: unknown) => JSON.stringify(v === undefined ? null : v);

const timestamps = new Map<string, { seconds: number; nanos: number }>();

/** Objects repeat the same few times (creation, managedFields): each is parsed once. */
function timestamp(s: string): { seconds: number; nanos: number } {
  let t = timestamps.get(s);
  if (!t) {
    if (timestamps.size >= 4096) timestamps.clear();
    timestamps.set(s, (t = parseTimestamp(s)));
  }
  return t;
}

/**
 * The first pass: the size of every nested message, in the order the second pass writes them,
 * and the JSON texts of RawJSON values (built once, written as measured).
 */
export class Measure {
  readonly sizes: number[] = [];
  readonly texts: string[] = [];

  message(desc: MessageDescriptor, obj: Json): number {
    if (desc.special) return this.special(desc, obj);
    let n = 0;
    for (const f of desc.fields) {
      if (f.json === '') {
        // An embedded struct: Go writes it always; its fields sit in this same JSON object.
        n += this.submessage(f.number, f.message!, obj);
        continue;
      }
      const v = obj[f.json];
      if (v === undefined || v === null) continue;
      n += this.field(f, v);
    }
    return n;
  }

  private field(f: FieldDescriptor, v: unknown): number {
    let n = 0;
    if (f.map) {
      const m = v as Json;
      for (const k of sortedKeys(m)) {
        const at = this.sizes.length;
        this.sizes.push(0);
        const value = m[k];
        let entry = scalarSize(1, f.map.key, k);
        if (f.map.message) entry += this.submessage(2, f.map.message, value);
        else if (value !== null) entry += scalarSize(2, f.map.scalar!, value);
        this.sizes[at] = entry;
        n += tagSize(f.number) + lengthDelimited(entry);
      }
      return n;
    }
    if (f.repeated) {
      if (!Array.isArray(v)) return 0;
      for (const item of v) {
        if (f.message) n += this.submessage(f.number, f.message, item);
        else if (item !== null) n += scalarSize(f.number, f.scalar!, item);
      }
      return n;
    }
    return f.message ? this.submessage(f.number, f.message, v) : scalarSize(f.number, f.scalar!, v);
  }

  submessage(number: number, message: string, v: unknown): number {
    const at = this.sizes.length;
    this.sizes.push(0);
    // A null list item or map value is Go's zero value of the message: an empty message, except a raw JSON null.
    const desc = messageDescriptor(message)!;
    const size = v !== null && v !== undefined ? this.message(desc, v as Json) : desc.special === 'RawJSON' && v === null ? this.special(desc, v) : 0;
    this.sizes[at] = size;
    return tagSize(number) + lengthDelimited(size);
  }

  private special(desc: MessageDescriptor, v: unknown): number {
    switch (desc.special) {
      case 'Time':
      case 'MicroTime': {
        const { seconds, nanos } = timestamp(String(v));
        return 2 + varintSize(seconds) + varintSize(nanos);
      }
      case 'RawJSON': {
        const text = rawJSON(v);
        this.texts.push(text);
        return tagSize(1) + lengthDelimited(utf8Length(text));
      }
      case 'IntOrString':
        return typeof v === 'string' ? 2 + 1 + 1 + 1 + lengthDelimited(utf8Length(v)) : 2 + 1 + varintSize(Number(v)) + 1 + 1;
      case 'Quantity':
        return scalarSize(1, 'string', v);
      case 'StringArray': {
        let n = 0;
        for (const s of v as unknown[]) n += scalarSize(1, 'string', s);
        return n;
      }
      case 'PropsOrArray':
        if (Array.isArray(v)) {
          let n = 0;
          for (const s of v) n += this.submessage(2, propsMessage(desc, 2), s);
          return n;
        }
        return this.submessage(1, propsMessage(desc, 1), v);
      case 'PropsOrBool':
        // A schema means allowed; only `false` disallows.
        return typeof v === 'boolean' ? 2 : 2 + this.submessage(2, propsMessage(desc, 2), v);
      case 'PropsOrStringArray': {
        if (!Array.isArray(v)) return this.submessage(1, propsMessage(desc, 1), v);
        let n = 0;
        for (const s of v) n += scalarSize(2, 'string', s);
        return n;
      }
    }
    return 0;
  }
}

/** The schema message field `number` of a JSONSchemaProps union holds. */
function propsMessage(desc: MessageDescriptor, number: number): string {
  return desc.byNumber.get(number)!.message!;
}

function scalarSize(number: number, type: ScalarType, v: unknown): number {
  const tag = tagSize(number);
  switch (type) {
    case 'string': return tag + lengthDelimited(utf8Length(String(v)));
    // JSON holds bytes as standard base64.
    case 'bytes': return tag + lengthDelimited(typeof v === 'string' ? Buffer.byteLength(v, 'base64') : (v as Uint8Array).length);
    case 'bool': return tag + 1;
    case 'fixed32': case 'sfixed32': case 'float': return tag + 4;
    case 'fixed64': case 'sfixed64': case 'double': return tag + 8;
    case 'sint32': case 'sint64': return tag + varintSize(zigzag(Number(v)));
    default: return tag + varintSize(Number(v));
  }
}

function zigzag(v: number): number {
  return v >= 0 ? v * 2 : -v * 2 - 1;
}

/** The second pass: writes what Measure measured, taking the nested sizes and texts in the same order. */
export class Out {
  pos = 0;
  private size = 0;
  private texts = 0;

  constructor(readonly buf: Buffer, private readonly m: Measure) {}

  done(): Buffer {
    if (this.pos !== this.buf.length) throw new Error(`protobuf encoding wrote ${this.pos} of ${this.buf.length} bytes`);
    return this.buf;
  }

  varint(v: number): void {
    const buf = this.buf;
    if (v < 0) {
      // A negative int32 or int64: its 64-bit two's complement, ten bytes.
      let big = BigInt.asUintN(64, BigInt(Math.trunc(v)));
      for (let i = 0; i < 9; i++) {
        buf[this.pos++] = Number(big & 0x7fn) | 0x80;
        big >>= 7n;
      }
      buf[this.pos++] = Number(big);
      return;
    }
    while (v >= 128) {
      buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    buf[this.pos++] = v;
  }

  tag(number: number, wireType: number): void {
    this.varint(((number << 3) | wireType) >>> 0);
  }

  string(number: number, s: string): void {
    this.tag(number, 2);
    this.text(s);
  }

  /** A length-prefixed UTF-8 string; ASCII, by far the most common, copied by hand. */
  private text(s: string): void {
    const length = utf8Length(s);
    this.varint(length);
    const buf = this.buf;
    if (length === s.length) {
      for (let i = 0; i < length; i++) buf[this.pos + i] = s.charCodeAt(i);
      this.pos += length;
    } else this.pos += buf.write(s, this.pos, 'utf8');
  }

  raw(bytes: Uint8Array): void {
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  message(desc: MessageDescriptor, obj: Json): void {
    if (desc.special) return this.special(desc, obj);
    for (const f of desc.fields) {
      if (f.json === '') {
        this.submessage(f.number, f.message!, obj);
        continue;
      }
      const v = obj[f.json];
      if (v === undefined || v === null) continue;
      this.field(f, v);
    }
  }

  private field(f: FieldDescriptor, v: unknown): void {
    if (f.map) {
      const m = v as Json;
      for (const k of sortedKeys(m)) {
        const value = m[k];
        this.tag(f.number, 2);
        this.varint(this.m.sizes[this.size++]);
        this.scalar(1, f.map.key, k);
        if (f.map.message) this.submessage(2, f.map.message, value);
        else if (value !== null) this.scalar(2, f.map.scalar!, value);
      }
      return;
    }
    if (f.repeated) {
      if (!Array.isArray(v)) return;
      for (const item of v) {
        if (f.message) this.submessage(f.number, f.message, item);
        else if (item !== null) this.scalar(f.number, f.scalar!, item);
      }
      return;
    }
    if (f.message) this.submessage(f.number, f.message, v);
    else this.scalar(f.number, f.scalar!, v);
  }

  private submessage(number: number, message: string, v: unknown): void {
    this.tag(number, 2);
    this.varint(this.m.sizes[this.size++]);
    const desc = messageDescriptor(message)!;
    if (v !== null && v !== undefined) this.message(desc, v as Json);
    else if (desc.special === 'RawJSON' && v === null) this.special(desc, v);
  }

  private scalar(number: number, type: ScalarType, v: unknown): void {
    this.tag(number, wireTypes[type]);
    const buf = this.buf;
    switch (type) {
      case 'string':
        this.text(String(v));
        return;
      case 'bytes':
        if (typeof v === 'string') {
          this.varint(Buffer.byteLength(v, 'base64'));
          this.pos += buf.write(v, this.pos, 'base64');
        } else {
          this.varint((v as Uint8Array).length);
          this.raw(v as Uint8Array);
        }
        return;
      case 'bool': buf[this.pos++] = v === true ? 1 : 0; return;
      case 'fixed32': this.pos = buf.writeUInt32LE(Number(v) >>> 0, this.pos); return;
      case 'sfixed32': this.pos = buf.writeInt32LE(Number(v) | 0, this.pos); return;
      case 'float': this.pos = buf.writeFloatLE(Number(v), this.pos); return;
      case 'fixed64': this.pos = buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(Math.trunc(Number(v)))), this.pos); return;
      case 'sfixed64': this.pos = buf.writeBigInt64LE(BigInt(Math.trunc(Number(v))), this.pos); return;
      case 'double': this.pos = buf.writeDoubleLE(Number(v), this.pos); return;
      case 'sint32': case 'sint64': this.varint(zigzag(Number(v))); return;
      default: this.varint(Number(v));
    }
  }

  private special(desc: MessageDescriptor, v: unknown): void {
    switch (desc.special) {
      case 'Time':
      case 'MicroTime': {
        const { seconds, nanos } = timestamp(String(v));
        this.tag(1, 0);
        this.varint(seconds);
        this.tag(2, 0);
        this.varint(nanos);
        return;
      }
      case 'RawJSON':
        this.tag(1, 2);
        this.text(this.m.texts[this.texts++]);
        return;
      case 'IntOrString':
        // Go writes all three fields of the struct: type (0 int, 1 string), intVal, strVal.
        this.tag(1, 0);
        this.varint(typeof v === 'string' ? 1 : 0);
        this.tag(2, 0);
        this.varint(typeof v === 'string' ? 0 : Number(v));
        this.string(3, typeof v === 'string' ? v : '');
        return;
      case 'Quantity':
        this.string(1, String(v));
        return;
      case 'StringArray':
        for (const s of v as unknown[]) this.string(1, String(s));
        return;
      case 'PropsOrArray':
        if (Array.isArray(v)) for (const s of v) this.submessage(2, propsMessage(desc, 2), s);
        else this.submessage(1, propsMessage(desc, 1), v);
        return;
      case 'PropsOrBool':
        this.tag(1, 0);
        this.buf[this.pos++] = typeof v === 'boolean' && !v ? 0 : 1;
        if (typeof v !== 'boolean') this.submessage(2, propsMessage(desc, 2), v);
        return;
      case 'PropsOrStringArray':
        if (Array.isArray(v)) for (const s of v) this.string(2, String(s));
        else this.submessage(1, propsMessage(desc, 1), v);
        return;
    }
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
