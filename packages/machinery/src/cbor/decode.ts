/**
 * kube-apiserver's CBOR decoding (modes.Decode over fxamacker/cbor v2.9) into the JSON form,
 * i.e. what kube decodes into an interface{} (Unstructured), with the same refusals and
 * error messages. As fxamacker's Unmarshal, two passes: the whole item is first checked
 * well-formed (and for the limits and the values kube refuses at that stage: NaN,
 * infinities, bignums, reserved simple values), then decoded.
 *
 * - strings: byte strings and text strings alike (text strings must be valid UTF-8);
 *   a byte string inside tag 22, 21 or 23 ("expected later encoding") becomes its base64,
 *   base64url or hex text, which is how a Go []byte reaches the JSON form;
 * - maps: keys must be strings; a repeated key is refused (`cbor: found duplicate map key
 *   "a" at map element index 1`), not reported as a strict-decoding error as in JSON;
 * - integers beyond int64 are refused; floats are numbers;
 * - only the simple values false, true and null are accepted;
 * - tag 0 (RFC 3339 text) and tag 1 (epoch) become RFC 3339 strings; the self-described tag
 *   and every unknown tag are transparent: their content is decoded (kube's
 *   UnrecognizedTagContentToAny), they are not refused;
 * - at most 64 nested levels, 1024 elements in an array and 1024 pairs in a map (kube's
 *   limits; a longer list in one request body is refused);
 * - indefinite-length items are accepted.
 *
 * Why not cbor-x: it yields byte strings as Buffers, drops repeated keys silently (the last
 * wins), accepts undefined, NaN and every simple value, validates no UTF-8 and knows no
 * limits; each of kube's refusals would need a second pass of our own over the bytes, which
 * is most of a decoder.
 *
 * Numbers are JS numbers as in JSON.parse: integers beyond 2^53 lose precision as they do on
 * the JSON path.
 */
import { goParseTime } from '../gotime.js';
import { goQuote } from '../validation.js';
import { CBORDecodeError, cborLimits, checkWellformed, float16Value, maxInt64, typeNames, unacceptable, type CBORDecodeOptions, type Head } from './wellformed.js';

export { CBORDecodeError, cborLimits, type CBORDecodeOptions } from './wellformed.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');

const tagSelfDescribed = 55799;

/** Decodes one CBOR data item (the whole of `data`) into its JSON form, or throws a CBORDecodeError. */
export function decodeCBOR(data: Uint8Array, opts: CBORDecodeOptions = {}): unknown {
  const limits = { ...cborLimits, ...opts };
  checkWellformed(data, limits);
  const v = new Decoder(data, limits).value();
  if (v instanceof CBORDecodeError) throw v;
  return v;
}

/**
 * What kube's CBOR serializer reads first from a body (its metaFactory.Interpret: a lax
 * decoding into metav1.TypeMeta): apiVersion and kind, with the errors that make it fail —
 * malformed data, a top-level item that is not a map (null is an empty TypeMeta), a bad or
 * repeated top-level key, an apiVersion or kind that is not a string. Other values are
 * skipped unread, as a struct skips unknown fields.
 */
export function interpretCBORTypeMeta(data: Uint8Array): { apiVersion: string; kind: string } {
  checkWellformed(data, cborLimits);
  return new Decoder(data, cborLimits).typeMeta();
}

class Decoder {
  off = 0;
  private readonly view: DataView;
  /** Expected-later-encoding tags (21, 22, 23) enclosing the item being decoded, innermost last. */
  private readonly laterEncodings: number[] = [];

  constructor(
    private readonly data: Uint8Array,
    private readonly limits: typeof cborLimits,
  ) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  // The second pass, over an item wellformed.ts checked: no bounds checks needed.

  /** A head of well-formed data. */
  private head(): Head {
    const data = this.data;
    const b = data[this.off++];
    const major = b >>> 5;
    const ai = b & 0x1f;
    if (ai < 24) return { major, ai, val: ai, indefinite: false };
    if (ai === 24) return { major, ai, val: data[this.off++], indefinite: false };
    if (ai === 25) {
      const val = this.view.getUint16(this.off);
      this.off += 2;
      return { major, ai, val, indefinite: false };
    }
    if (ai === 26) {
      const val = this.view.getUint32(this.off);
      this.off += 4;
      return { major, ai, val, indefinite: false };
    }
    if (ai === 27) {
      const big = this.view.getBigUint64(this.off);
      this.off += 8;
      return { major, ai, val: Number(big), big, indefinite: false };
    }
    return { major, ai, val: 0, indefinite: true };
  }

  /** Skips one well-formed item without looking at its meaning (fxamacker's skip). */
  private skip(): void {
    const h = this.head();
    if (h.major === 2 || h.major === 3) {
      if (!h.indefinite) {
        this.off += h.val;
        return;
      }
      while (this.data[this.off] !== 0xff) this.skip();
      this.off++;
    } else if (h.major === 4 || h.major === 5) {
      if (!h.indefinite) {
        const count = h.major === 5 ? h.val * 2 : h.val;
        for (let i = 0; i < count; i++) this.skip();
        return;
      }
      while (this.data[this.off] !== 0xff) this.skip();
      this.off++;
    } else if (h.major === 6) {
      this.skip();
    }
  }

  private nextMajor(): number {
    return this.data[this.off] >>> 5;
  }

  /** Strips self-described tags, then checks the built-in tags' content types (parseToValue's preamble). */
  private preamble(): CBORDecodeError | undefined {
    while (this.nextMajor() === 6) {
      const at = this.off;
      const h = this.head();
      if (h.val !== tagSelfDescribed || h.big !== undefined) {
        this.off = at;
        break;
      }
    }
    const at = this.off;
    while (this.nextMajor() === 6) {
      const h = this.head();
      const err = validBuiltinTag(h.big ?? BigInt(h.val), this.data[this.off]);
      if (err) {
        this.off = at;
        this.skip();
        return err;
      }
    }
    this.off = at;
    return undefined;
  }

  /** interpretCBORTypeMeta's decoding into metav1.TypeMeta. */
  typeMeta(): { apiVersion: string; kind: string } {
    const out = { apiVersion: '', kind: '' };
    const err = this.preamble();
    if (err) throw err;
    const major = this.nextMajor();
    if (major === 7 && (this.data[this.off] === 0xf6 || this.data[this.off] === 0xf7)) return out;
    if (major === 6) {
      // Tags other than the self-described one enclose the map (their content is decoded).
      this.head();
      return this.typeMeta();
    }
    if (major !== 5) {
      const name = major === 7 ? 'primitives' : typeNames[major];
      throw new CBORDecodeError(`cbor: cannot unmarshal ${name} into Go value of type v1.TypeMeta`);
    }
    const h = this.head();
    const seen = new Set<string>();
    let first: CBORDecodeError | undefined;
    for (let i = 0; h.indefinite ? this.data[this.off] !== 0xff : i < h.val; i++) {
      const k = this.key();
      if (k instanceof CBORDecodeError) {
        first ??= k;
        this.skip();
        continue;
      }
      if (seen.has(k)) throw new CBORDecodeError(`cbor: found duplicate map key ${goQuote(k)} at map element index ${i}`);
      seen.add(k);
      if (k !== 'apiVersion' && k !== 'kind') {
        this.skip();
        continue;
      }
      const v = this.value();
      if (v instanceof CBORDecodeError) {
        first ??= v;
        continue;
      }
      if (v === null) continue;
      if (typeof v !== 'string') {
        first ??= new CBORDecodeError(`cbor: cannot unmarshal ${cborTypeOf(v)} into Go struct field v1.TypeMeta.${k} of type string`);
        continue;
      }
      out[k] = v;
    }
    if (first) throw first;
    return out;
  }

  /** A value decoded into an interface{}: parseToValue then parse. */
  value(): unknown {
    const err = this.preamble();
    if (err) return err;
    return this.parse();
  }

  private parse(): unknown {
    const start = this.off;
    const h = this.head();
    switch (h.major) {
      case 0:
        if (h.big !== undefined && h.big > maxInt64) {
          return new CBORDecodeError(`cbor: cannot unmarshal positive integer into Go value of type int64 (${h.big} overflows Go's int64)`);
        }
        return h.val;
      case 1:
        if (h.big !== undefined && h.big > maxInt64) {
          return new CBORDecodeError(`cbor: cannot unmarshal negative integer into Go value of type int64 (${-1n - h.big} overflows Go's int64)`);
        }
        return -1 - h.val;
      case 2:
        return this.plainByteString(h) ?? this.convertedBytes(this.byteString(h));
      case 3:
        return this.textString(h);
      case 4:
        return this.array(h);
      case 5:
        return this.map(h);
      case 6:
        return this.tag(h, start);
      default:
        return this.primitive(h);
    }
  }

  /** A short ASCII run as a string without a native call (most keys and values), else undefined. */
  private ascii(start: number, end: number): string | undefined {
    if (end - start > 48) return undefined;
    const data = this.data;
    let s = '';
    for (let i = start; i < end; i++) {
      const c = data[i];
      if (c >= 0x80) return undefined;
      s += String.fromCharCode(c);
    }
    return s;
  }

  /** A definite byte string's text when no expected-later-encoding tag applies to it. */
  private plainByteString(h: Head): string | undefined {
    if (h.indefinite || this.laterEncodings.length > 0) return undefined;
    const s = this.ascii(this.off, this.off + h.val);
    if (s !== undefined) this.off += h.val;
    return s;
  }

  private byteString(h: Head): Uint8Array {
    if (!h.indefinite) {
      const b = this.data.subarray(this.off, this.off + h.val);
      this.off += h.val;
      return b;
    }
    const chunks: Uint8Array[] = [];
    while (this.data[this.off] !== 0xff) {
      const c = this.head();
      chunks.push(this.data.subarray(this.off, this.off + c.val));
      this.off += c.val;
    }
    this.off++;
    return Buffer.concat(chunks);
  }

  /** A byte string as a string: its bytes, or their base64/base64url/hex text inside an expected-later-encoding tag. */
  private convertedBytes(b: Uint8Array): string {
    const tag = this.laterEncodings[this.laterEncodings.length - 1];
    if (tag === undefined) return utf8Lenient.decode(b);
    const buffer = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    if (tag === 22) return buffer.toString('base64');
    if (tag === 21) return buffer.toString('base64url');
    return buffer.toString('hex');
  }

  private textString(h: Head): string | CBORDecodeError {
    try {
      if (!h.indefinite) {
        const a = this.ascii(this.off, this.off + h.val);
        if (a !== undefined) {
          this.off += h.val;
          return a;
        }
        const s = utf8.decode(this.data.subarray(this.off, this.off + h.val));
        this.off += h.val;
        return s;
      }
      let s = '';
      while (this.data[this.off] !== 0xff) {
        const c = this.head();
        s += utf8.decode(this.data.subarray(this.off, this.off + c.val));
        this.off += c.val;
      }
      this.off++;
      return s;
    } catch {
      // Skip what is left of the string, as fxamacker has consumed it.
      this.off = this.skipStringFrom(h);
      return new CBORDecodeError('cbor: invalid UTF-8 string');
    }
  }

  private skipStringFrom(h: Head): number {
    if (!h.indefinite) return this.off + h.val;
    let off = this.off;
    while (this.data[off] !== 0xff) {
      this.off = off;
      const c = this.head();
      off = this.off + c.val;
    }
    return off + 1;
  }

  private array(h: Head): unknown[] | CBORDecodeError {
    const out: unknown[] = [];
    let err: CBORDecodeError | undefined;
    for (let i = 0; h.indefinite ? this.data[this.off] !== 0xff : i < h.val; i++) {
      const v = this.value();
      if (v instanceof CBORDecodeError) {
        if (!err) {
          v.path.unshift(i);
          err = v;
        }
        continue;
      }
      out.push(v);
    }
    if (h.indefinite) this.off++;
    return err ?? out;
  }

  private map(h: Head): Record<string, unknown> | CBORDecodeError {
    const out: Record<string, unknown> = {};
    let err: CBORDecodeError | undefined;
    const more = (i: number) => (h.indefinite ? this.data[this.off] !== 0xff : i < h.val);
    for (let i = 0; more(i); i++) {
      const k = this.key();
      if (k instanceof CBORDecodeError) {
        err ??= k;
        this.skip();
        continue;
      }
      const v = this.value();
      if (v instanceof CBORDecodeError) {
        if (!err) {
          v.path.unshift(k);
          err = v;
        }
        continue;
      }
      if (Object.prototype.hasOwnProperty.call(out, k)) {
        // DupMapKeyEnforcedAPF: the rest of the map is skipped and this error replaces any other.
        const index = i;
        for (i++; more(i); i++) {
          this.skip();
          this.skip();
        }
        if (h.indefinite) this.off++;
        return new CBORDecodeError(`cbor: found duplicate map key ${goQuote(k)} at map element index ${index}`);
      }
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
    }
    if (h.indefinite) this.off++;
    return err ?? out;
  }

  /** A map key decoded into a Go string (parseToValue into a string): only strings, and null. */
  private key(): string | CBORDecodeError {
    const err = this.preamble();
    if (err) return err;
    const major = this.nextMajor();
    if (major === 2) {
      const h = this.head();
      return this.plainByteString(h) ?? this.convertedBytes(this.byteString(h));
    }
    if (major === 3) return this.textString(this.head());
    if (major === 6) {
      const h = this.head();
      const tag = h.big ?? BigInt(h.val);
      const later = tag === 21n || tag === 22n || tag === 23n;
      if (later) this.laterEncodings.push(Number(tag));
      try {
        return this.key();
      } finally {
        if (later) this.laterEncodings.pop();
      }
    }
    if (major === 7) {
      const h = this.head();
      if (h.ai < 24 || h.ai === 24) {
        if (h.val === 22) return ''; // null leaves a Go string as it was
        if (h.val !== 20 && h.val !== 21) return notRecognized(h.val);
      }
      return new CBORDecodeError('cbor: cannot unmarshal primitives into Go value of type string');
    }
    this.skip();
    return new CBORDecodeError(`cbor: cannot unmarshal ${typeNames[major]} into Go value of type string`);
  }

  private tag(h: Head, start: number): unknown {
    const tag = h.big ?? BigInt(h.val);
    if (tag === 0n || tag === 1n) {
      this.off = start;
      return this.time();
    }
    if (tag === 21n || tag === 22n || tag === 23n) {
      this.laterEncodings.push(Number(tag));
      try {
        // parse(false): the content's own tags are checked, self-described ones not stripped.
        const at = this.off;
        while (this.nextMajor() === 6) {
          const t = this.head();
          const err = validBuiltinTag(t.big ?? BigInt(t.val), this.data[this.off]);
          if (err) {
            this.off = at;
            this.skip();
            return err;
          }
        }
        this.off = at;
        return this.parse();
      } finally {
        this.laterEncodings.pop();
      }
    }
    // An unrecognized tag: its content (UnrecognizedTagContentToAny).
    const at = this.off;
    while (this.nextMajor() === 6) {
      const t = this.head();
      const err = validBuiltinTag(t.big ?? BigInt(t.val), this.data[this.off]);
      if (err) {
        this.off = at;
        this.skip();
        return err;
      }
    }
    this.off = at;
    return this.parse();
  }

  /** Tags 0 and 1 decoded into interface{} as RFC 3339 text with nanoseconds (TimeTagToRFC3339Nano). */
  private time(): string | CBORDecodeError {
    const h = this.head();
    const content = this.head();
    if (h.val === 0) {
      const text = this.textString(content);
      if (text instanceof CBORDecodeError) return text;
      const t = goParseTime(text, false);
      if ('error' in t) return new CBORDecodeError(`cbor: cannot set text for time.Time: ${t.error}`);
      const zone = /(Z|[+-]\d\d:\d\d)$/.exec(text)?.[1] ?? 'Z';
      const offset = zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
      return formatRFC3339Nano(t.unix + offset, t.nanos, offset === 0 ? 'Z' : zone);
    }
    let seconds: number;
    let nanos = 0;
    if (content.major === 0) {
      if (content.big !== undefined && content.big > maxInt64) {
        return new CBORDecodeError(`cbor: cannot unmarshal positive integer into Go value of type time.Time (${content.big} overflows Go's int64)`);
      }
      seconds = content.val;
    } else if (content.major === 1) {
      if (content.big !== undefined && content.big > maxInt64) {
        return new CBORDecodeError(`cbor: cannot unmarshal negative integer into Go value of type time.Time (${-1n - content.big} overflows Go's int64)`);
      }
      seconds = -1 - content.val;
    } else {
      const f = content.ai === 25 ? float16Value(content.val) : content.ai === 26 ? floatOf32(content.val) : floatOf(content);
      // math.Modf, then time.Unix(sec, frac*1e9)
      seconds = Math.trunc(f);
      nanos = Math.trunc((f - seconds) * 1e9);
      if (nanos < 0) {
        seconds -= 1;
        nanos += 1e9;
      }
    }
    return formatRFC3339Nano(seconds, nanos, 'Z');
  }

  private primitive(h: Head): unknown {
    if (h.ai === 25) return float16Value(h.val);
    if (h.ai === 26) return floatOf32(h.val);
    if (h.ai === 27) return floatOf(h);
    if (h.val === 20) return false;
    if (h.val === 21) return true;
    if (h.val === 22) return null;
    return notRecognized(h.val);
  }
}

/** The CBOR type name of a decoded value, for a Go string field that cannot hold it. */
function cborTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object' && v !== null) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? (v < 0 ? 'negative integer' : 'positive integer') : 'primitives';
  return 'primitives';
}

function notRecognized(val: number): CBORDecodeError {
  return unacceptable('primitives', `simple value ${val} is not recognized`);
}



/** validBuiltinTag: tags 0 and 1 must enclose a text string and a number. */
function validBuiltinTag(tag: bigint, contentHead: number): CBORDecodeError | undefined {
  const t = contentHead >>> 5;
  if (tag === 0n && t !== 3) return new CBORDecodeError(`cbor: tag number 0 must be followed by text string, got ${typeNames[t]}`);
  if (tag === 1n && t !== 0 && t !== 1 && (contentHead < 0xf9 || contentHead > 0xfb)) {
    return new CBORDecodeError(`cbor: tag number 1 must be followed by integer or floating-point number, got ${typeNames[t]}`);
  }
  if ((tag === 2n || tag === 3n) && t !== 2) return new CBORDecodeError(`cbor: tag number 2 or 3 must be followed by byte string, got ${typeNames[t]}`);
  return undefined;
}


function floatOf32(bits: number): number {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, bits);
  return dv.getFloat32(0);
}

function floatOf(h: Head): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setBigUint64(0, h.big ?? BigInt(h.val));
  return dv.getFloat64(0);
}

/** time.Time.MarshalText (RFC3339Nano) of a local time (seconds already shifted by the zone's offset). */
function formatRFC3339Nano(localSeconds: number, nanos: number, zone: string): string | CBORDecodeError {
  const date = new Date(localSeconds * 1000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(year) || year < 0 || year > 9999) {
    return new CBORDecodeError('cbor: decoded time cannot be represented in RFC3339 format with sub-second precision: Time.MarshalText: year outside of range [0,9999]');
  }
  const base = date.toISOString().slice(0, 19);
  const frac = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${base}${frac}${zone}`;
}

