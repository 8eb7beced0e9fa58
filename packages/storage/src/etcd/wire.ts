/**
 * Protocol-buffer wire format, only as much as etcd's KV messages need: varints (int64 fields
 * are revisions, counts and flags, all below 2^53, so they are plain numbers), bytes and
 * nested messages.
 *
 * Hand-written rather than decoded through @grpc/proto-loader and protobufjs's reflection,
 * because that path built a JS object per message and field, converted every int64 through
 * Long to a string, and was ~6 % of a create's server CPU on etcd (bench/RESULTS.md).
 */

/**
 * Builds a message as a list of chunks: tags, lengths and short fields collect in a byte array,
 * long bytes fields (values) are kept by reference; nothing large is copied until `frame()`.
 */
export class ProtoWriter {
  private readonly parts: Buffer[] = [];
  private pending: number[] = [];
  length = 0;

  private pushVarint(n: number): void {
    if (n < 0 || !Number.isSafeInteger(n)) throw new RangeError(`varint out of range: ${n}`);
    while (n >= 0x80) {
      this.pending.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
      this.length++;
    }
    this.pending.push(n);
    this.length++;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Buffer.from(this.pending));
    this.pending = [];
  }

  /** An int64/uint64/bool/enum field; zero is skipped unless `always` (oneof members). */
  varint(field: number, n: number, always = false): this {
    if (n === 0 && !always) return this;
    this.pushVarint(field * 8);
    this.pushVarint(n);
    return this;
  }

  bool(field: number, b: boolean | undefined): this {
    return b ? this.varint(field, 1) : this;
  }

  bytes(field: number, b: Buffer | undefined): this {
    if (b === undefined) return this;
    this.pushVarint(field * 8 + 2);
    this.pushVarint(b.length);
    if (b.length <= 64) {
      for (let i = 0; i < b.length; i++) this.pending.push(b[i]);
    } else {
      this.flush();
      this.parts.push(b);
    }
    this.length += b.length;
    return this;
  }

  message(field: number, m: ProtoWriter): this {
    m.flush();
    this.pushVarint(field * 8 + 2);
    this.pushVarint(m.length);
    this.flush();
    for (const p of m.parts) this.parts.push(p);
    this.length += m.length;
    return this;
  }

  /** The message as one gRPC length-prefixed frame (uncompressed). */
  frame(): Buffer {
    this.flush();
    const out = Buffer.allocUnsafe(5 + this.length);
    out[0] = 0;
    out.writeUInt32BE(this.length, 1);
    let at = 5;
    for (const p of this.parts) at += p.copy(out, at);
    return out;
  }
}

/** Reads fields of one message in `buf[pos, end)`. Bytes fields are views, not copies. */
export class ProtoReader {
  constructor(private readonly buf: Buffer, public pos: number, private readonly end: number) {}

  more(): boolean {
    return this.pos < this.end;
  }

  /** The next field's number and wire type. */
  next(): { field: number; wireType: number } {
    const key = this.varint();
    return { field: Math.floor(key / 8), wireType: key % 8 };
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('protobuf: truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    throw new Error('protobuf: varint longer than 10 bytes');
  }

  bytes(): Buffer {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('protobuf: truncated bytes field');
    return this.buf.subarray(start, this.pos);
  }

  /** A reader over the nested message that follows. */
  message(): ProtoReader {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('protobuf: truncated message field');
    return new ProtoReader(this.buf, start, this.pos);
  }

  skip(wireType: number): void {
    // Every case leaves pos past the field; `pos` is read after any varint that moves it.
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        return;
      case 2: {
        const len = this.varint();
        this.pos += len;
        return;
      }
      case 5:
        this.pos += 4;
        return;
      default:
        throw new Error(`protobuf: unsupported wire type ${wireType}`);
    }
  }
}
