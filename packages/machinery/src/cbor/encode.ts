/**
 * kube-apiserver's CBOR encoding (k8s.io/apimachinery runtime/serializer/cbor, modes.Encode
 * over fxamacker/cbor) of an object held in its JSON form:
 *
 * - the item is enclosed in the self-described CBOR tag 55799 (the prefix 0xd9d9f7, kube's
 *   magic number for recognizing CBOR);
 * - every string, map keys included, is a byte string (major type 2): kube encodes Go strings
 *   with StringToByteString and struct field names with FieldNameToByteString;
 * - integers take their shortest head; other numbers the shortest float that holds them
 *   exactly (ShortestFloat16), NaN and infinities are refused (they have no JSON form);
 * - map keys are sorted bytewise by their encoding (RFC 8949 4.2.1), which for byte-string
 *   keys is shorter first, then bytewise;
 * - definite lengths only; null for a nil map or slice as in JSON;
 * - a Go []byte (found through a plan, see plan.ts) is tag 22 around a byte string.
 *
 * Why not cbor-x: it writes JS strings and object keys as text strings (major type 3) with no
 * option for byte strings, has no float16, does not sort keys and knows no schema; its
 * output for a Kubernetes object would share almost no bytes with kube's. It serves as an
 * independent decoder in the tests instead.
 *
 * kube-apiserver answers requests with the non-deterministic variant (keys shuffled,
 * SortFastShuffle), so clients cannot rely on an order; the sorted order is the one kube
 * stores and tests, and one an object's bytes are cached in.
 */
import type { CBORPlan } from './plan.js';

/** The head of tag 55799 (self-described CBOR) that starts every item kube encodes. */
export const selfDescribedCBOR: Buffer = Buffer.from([0xd9, 0xd9, 0xf7]);

/**
 * An already encoded CBOR item, written verbatim where it appears in a value (an object's
 * cached bytes inside a list or a watch event). It must be one complete data item.
 */
export class CBORRaw {
  constructor(readonly bytes: Uint8Array) {}
}

export interface CBOREncodeOptions {
  /** Where the value holds Go []byte or float64 fields (plan.ts); none for most kinds. */
  plan?: CBORPlan;
  /** Enclose the item in tag 55799 (kube's every top-level item); default true. */
  selfDescribed?: boolean;
}

/** fxamacker's UnsupportedValueError, as kube reports an object it cannot encode. */
export class CBOREncodeError extends Error {}

const initialSize = 64 * 1024;
/** A scratch buffer kept between calls (encoding is synchronous), grown as needed. */
let buf = Buffer.allocUnsafe(initialSize);
let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
let pos = 0;

function ensure(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const next = Buffer.allocUnsafe(size);
  buf.copy(next, 0, 0, pos);
  buf = next;
  view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** The CBOR of `value` (a JSON-form object, list, Status…) as kube encodes it. */
export function encodeCBOR(value: unknown, opts: CBOREncodeOptions = {}): Buffer {
  pos = 0;
  try {
    if (opts.selfDescribed !== false) {
      ensure(3);
      buf[pos++] = 0xd9;
      buf[pos++] = 0xd9;
      buf[pos++] = 0xf7;
    }
    if (opts.plan) encodePlanned(value, opts.plan);
    else encodeValue(value);
    return Buffer.from(buf.subarray(0, pos));
  } finally {
    // A huge answer should not pin its buffer for the life of the process.
    if (buf.length > 16 * initialSize) {
      buf = Buffer.allocUnsafe(initialSize);
      view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
  }
}

const eventKeyType = Buffer.from([0x44, 0x74, 0x79, 0x70, 0x65]); // 'type'
const eventKeyObject = Buffer.from([0x46, 0x6f, 0x62, 0x6a, 0x65, 0x63, 0x74]); // 'object'

/**
 * One event of a `application/cbor-seq` watch: the metav1.WatchEvent `{type, object}` whose
 * object is a RawExtension holding the object's own encoding, self-described prefix
 * included (kube's embedded encoder writes a whole item, which RawExtension.MarshalCBOR
 * copies as it is). `object` is the object's bytes with or without that prefix.
 */
export function encodeCBORWatchEvent(type: string, object: Uint8Array): Buffer {
  const prefixed = object.length >= 3 && object[0] === 0xd9 && object[1] === 0xd9 && object[2] === 0xf7;
  const typeBytes = Buffer.from(type, 'utf8');
  const out = Buffer.allocUnsafe(3 + 1 + eventKeyType.length + 1 + typeBytes.length + eventKeyObject.length + (prefixed ? 0 : 3) + object.length);
  let o = 0;
  out[o++] = 0xd9;
  out[o++] = 0xd9;
  out[o++] = 0xf7;
  out[o++] = 0xa2;
  // 'type' sorts before 'object': shorter keys first.
  o += eventKeyType.copy(out, o);
  out[o++] = 0x40 | typeBytes.length; // event types are short: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  o += typeBytes.copy(out, o);
  o += eventKeyObject.copy(out, o);
  if (!prefixed) {
    out[o++] = 0xd9;
    out[o++] = 0xd9;
    out[o++] = 0xf7;
  }
  out.set(object, o);
  return out;
}

/** A head: major type and argument in the shortest form (RFC 8949 4.2.1). */
function head(major: number, n: number): void {
  ensure(9);
  const m = major << 5;
  if (n < 24) {
    buf[pos++] = m | n;
  } else if (n < 0x100) {
    buf[pos++] = m | 24;
    buf[pos++] = n;
  } else if (n < 0x10000) {
    buf[pos++] = m | 25;
    buf[pos++] = n >>> 8;
    buf[pos++] = n & 0xff;
  } else if (n < 0x100000000) {
    buf[pos++] = m | 26;
    view.setUint32(pos, n);
    pos += 4;
  } else {
    buf[pos++] = m | 27;
    const hi = Math.floor(n / 0x100000000);
    view.setUint32(pos, hi);
    view.setUint32(pos + 4, n - hi * 0x100000000);
    pos += 8;
  }
}

/**
 * A string as a byte string. Short ASCII strings (nearly every key and value of an object)
 * are copied by a loop: a native UTF-8 write per string costs more than the copy.
 */
function writeString(s: string): void {
  const len = s.length;
  if (len < 64) {
    ensure(2 + len);
    const start = pos + (len < 24 ? 1 : 2);
    let p = start;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return writeUTF8(s);
      buf[p++] = c;
    }
    if (len < 24) {
      buf[pos] = 0x40 | len;
    } else {
      buf[pos] = 0x58;
      buf[pos + 1] = len;
    }
    pos = p;
    return;
  }
  writeUTF8(s);
}

function writeUTF8(s: string): void {
  const n = Buffer.byteLength(s, 'utf8');
  head(2, n);
  ensure(n);
  pos += buf.write(s, pos, 'utf8');
}

const twoTo63 = 2 ** 63;

function writeNumber(v: number, float: boolean): void {
  if (!float && Number.isInteger(v) && v >= -twoTo63 && v < twoTo63) {
    if (v >= 0) head(0, v);
    else head(1, -1 - v);
    return;
  }
  writeFloat(v);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** ShortestFloat16: float16 when exact (subnormals included), else float32 when exact, else float64. */
function writeFloat(v: number): void {
  if (Number.isNaN(v)) throw new CBOREncodeError('cbor: unsupported value: floating-point NaN');
  if (!Number.isFinite(v)) throw new CBOREncodeError('cbor: unsupported value: floating-point infinity');
  ensure(9);
  f32[0] = v;
  if (f32[0] !== v) {
    buf[pos++] = 0xfb;
    view.setFloat64(pos, v);
    pos += 8;
    return;
  }
  const half = float16Bits(u32[0]);
  if (half >= 0) {
    buf[pos++] = 0xf9;
    buf[pos++] = half >>> 8;
    buf[pos++] = half & 0xff;
    return;
  }
  buf[pos++] = 0xfa;
  view.setUint32(pos, u32[0]);
  pos += 4;
}

/** The float16 bits of a finite float32 that float16 holds exactly, or -1. */
export function float16Bits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0 && mant === 0) return sign;
  const e = exp - 127;
  if (e >= -14 && e <= 15) {
    if ((mant & 0x1fff) !== 0) return -1;
    return sign | ((e + 15) << 10) | (mant >>> 13);
  }
  if (e < -14 && e >= -24) {
    // A float16 subnormal: the significand with its leading 1, shifted into ten bits.
    const shift = 13 + (-14 - e);
    const sig = mant | 0x800000;
    if (sig & ((1 << shift) - 1)) return -1;
    return sign | (sig >>> shift);
  }
  return -1;
}

const asciiOnly = /^[\x00-\x7f]*$/;

/** Bytewise order of the keys' encodings: shorter UTF-8 first, then bytewise. */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  const n = keys.length;
  if (n < 2) return keys;
  for (let i = 0; i < n; i++) {
    if (!asciiOnly.test(keys[i])) return sortUTF8(keys);
  }
  if (n > 24) return keys.sort(compareAscii);
  // Insertion sort: objects have few keys, and a comparator call per step costs more.
  for (let i = 1; i < n; i++) {
    const k = keys[i];
    const kl = k.length;
    let j = i - 1;
    while (j >= 0) {
      const o = keys[j];
      if (o.length < kl || (o.length === kl && o <= k)) break;
      keys[j + 1] = o;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

function sortUTF8(keys: string[]): string[] {
  const bytes = new Map(keys.map((k) => [k, Buffer.from(k, 'utf8')]));
  return keys.sort((a, b) => {
    const x = bytes.get(a)!;
    const y = bytes.get(b)!;
    return x.length - y.length || Buffer.compare(x, y);
  });
}

function compareAscii(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function writeRaw(raw: CBORRaw): void {
  ensure(raw.bytes.length);
  buf.set(raw.bytes, pos);
  pos += raw.bytes.length;
}

function encodeValue(v: unknown): void {
  switch (typeof v) {
    case 'string':
      writeString(v);
      return;
    case 'number':
      writeNumber(v, false);
      return;
    case 'boolean':
      ensure(1);
      buf[pos++] = v ? 0xf5 : 0xf4;
      return;
    case 'object':
      break;
    default:
      // undefined (absent) and functions are null where JSON.stringify would write null.
      ensure(1);
      buf[pos++] = 0xf6;
      return;
  }
  if (v === null) {
    ensure(1);
    buf[pos++] = 0xf6;
  } else if (Array.isArray(v)) {
    head(4, v.length);
    for (let i = 0; i < v.length; i++) encodeValue(v[i]);
  } else if (v instanceof CBORRaw) {
    writeRaw(v);
  } else {
    const obj = v as Record<string, unknown>;
    const keys = sortedKeys(obj);
    let n = keys.length;
    for (const k of keys) if (obj[k] === undefined) n--;
    head(5, n);
    for (const k of keys) {
      const x = obj[k];
      if (x === undefined) continue;
      writeString(k);
      encodeValue(x);
    }
  }
}

/** encodeValue with a plan: the same, except where the plan names a []byte or a float64. */
function encodePlanned(v: unknown, plan: CBORPlan): void {
  if (typeof v === 'string') {
    if (plan.bytes) {
      ensure(1);
      buf[pos++] = 0xd6; // tag 22: expected later encoding base64 (ByteSliceLaterFormatBase64)
      const bytes = Buffer.from(v, 'base64');
      head(2, bytes.length);
      ensure(bytes.length);
      buf.set(bytes, pos);
      pos += bytes.length;
    } else {
      writeString(v);
    }
  } else if (typeof v === 'number') {
    writeNumber(v, plan.float === true || plan.floats === true);
  } else if (v === null || typeof v !== 'object' || v instanceof CBORRaw) {
    encodeValue(v);
  } else if (Array.isArray(v)) {
    const items = plan.items ?? (plan.floats ? plan : undefined);
    if (!items) {
      encodeValue(v);
      return;
    }
    head(4, v.length);
    for (let i = 0; i < v.length; i++) encodePlanned(v[i], items);
  } else {
    const obj = v as Record<string, unknown>;
    const keys = sortedKeys(obj);
    let n = keys.length;
    for (const k of keys) if (obj[k] === undefined) n--;
    head(5, n);
    const inherited = plan.values ?? (plan.floats ? plan : undefined);
    for (const k of keys) {
      const x = obj[k];
      if (x === undefined) continue;
      writeString(k);
      const p = plan.fields?.get(k) ?? inherited;
      if (p) encodePlanned(x, p);
      else encodeValue(x);
    }
  }
}
