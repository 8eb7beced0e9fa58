/**
 * The protocol-buffer wire format for etcd's messages, over protobufjs's Writer and Reader: a
 * small builder and field walker so kvmessages.ts and watchmessages.ts can encode and decode the
 * few fields Windlass uses with etcd's field numbers, without loading .proto files or building a
 * JS object per message and field as proto-loader did (~6 % of a create's server CPU on etcd,
 * bench/RESULTS.md). int64 fields are revisions and counts, below 2^53: plain numbers.
 */
import protobuf from 'protobufjs';

type Long = { toNumber(): number };
const toNumber = (v: number | Long) => (typeof v === 'number' ? v : v.toNumber());

/** A message being built; nested messages are built on their own and written whole. */
export class ProtoWriter {
  private readonly w = protobuf.Writer.create();

  /** An int64/uint64/bool/enum field; zero is skipped unless `always` (oneof members). */
  varint(field: number, n: number, always = false): this {
    if (n !== 0 || always) this.w.uint32(field * 8).int64(n);
    return this;
  }

  bool(field: number, b: boolean | undefined): this {
    if (b) this.w.uint32(field * 8).bool(true);
    return this;
  }

  bytes(field: number, b: Buffer | undefined): this {
    if (b !== undefined) this.w.uint32(field * 8 + 2).bytes(b);
    return this;
  }

  message(field: number, m: ProtoWriter): this {
    this.w.uint32(field * 8 + 2).bytes(m.w.finish());
    return this;
  }

  /** The message as one gRPC length-prefixed frame (uncompressed). */
  frame(): Buffer {
    const body = this.w.finish();
    const out = Buffer.allocUnsafe(5 + body.length);
    out[0] = 0;
    out.writeUInt32BE(body.length, 1);
    out.set(body, 5);
    return out;
  }
}

/** Walks the fields of one message in `buf[pos, end)`. Bytes fields are views, not copies. */
export class ProtoReader {
  private readonly r: protobuf.Reader;

  constructor(buf: Buffer, pos: number, end: number) {
    this.r = protobuf.Reader.create(buf);
    this.r.pos = pos;
    this.r.len = end;
  }

  more(): boolean {
    return this.r.pos < this.r.len;
  }

  /** The next field's number and wire type. */
  next(): { field: number; wireType: number } {
    const key = truncatedAsError(() => this.r.uint32());
    return { field: key >>> 3, wireType: key & 7 };
  }

  varint(): number {
    return toNumber(truncatedAsError(() => this.r.int64() as unknown as number | Long));
  }

  bytes(): Buffer {
    return truncatedAsError(() => this.r.bytes() as Buffer);
  }

  /** A reader over the nested message that follows. */
  message(): ProtoReader {
    const len = this.r.uint32();
    const start = this.r.pos;
    if (start + len > this.r.len) throw new Error('protobuf: truncated message field');
    this.r.pos += len;
    return new ProtoReader(this.r.buf as Buffer, start, start + len);
  }

  skip(wireType: number): void {
    truncatedAsError(() => this.r.skipType(wireType));
  }
}

/** protobufjs reports reading past the end as a RangeError ("index out of range"). */
function truncatedAsError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RangeError) throw new Error(`protobuf: truncated message (${err.message})`);
    throw err;
  }
}
