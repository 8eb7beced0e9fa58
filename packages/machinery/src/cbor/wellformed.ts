/**
 * The first pass of kube's CBOR decoding (fxamacker's wellformedInternal): the whole item is
 * checked well-formed, within kube's limits, and free of the values kube refuses at that stage
 * (NaN, infinities, bignums, reserved simple values) before anything is decoded. Also what
 * both passes share: the error, the limits and a data item's head.
 */
export class CBORDecodeError extends Error {
  /**
   * Where the error was met: the keys and indices from the top-level item down to the map or
   * array whose entry failed (empty for the top-level item itself and for errors of the
   * well-formedness pass).
   */
  readonly path: (string | number)[] = [];
  /** Whether the well-formedness pass refused the bytes (nothing was decoded). */
  readonly wellformedness: boolean;

  constructor(message: string, wellformedness = false) {
    super(message);
    this.wellformedness = wellformedness;
  }
}

export interface CBORDecodeOptions {
  maxNestedLevels?: number;
  maxArrayElements?: number;
  maxMapPairs?: number;
}

/** kube's decoder limits (modes.decode: MaxNestedLevels 64, MaxArrayElements and MaxMapPairs 1024). */
export const cborLimits = { maxNestedLevels: 64, maxArrayElements: 1024, maxMapPairs: 1024 };

export const typeNames = ['positive integer', 'negative integer', 'byte string', 'UTF-8 text string', 'array', 'map', 'tag', 'primitives'];

export const maxInt64 = (1n << 63n) - 1n;

export interface Head {
  major: number;
  ai: number;
  /** The argument; exact up to 2^53, see `big` beyond. */
  val: number;
  big?: bigint;
  indefinite: boolean;
}

export function unacceptable(cborType: string, message: string, wellformedness = false): CBORDecodeError {
  return new CBORDecodeError(`cbor: data item of cbor type ${cborType} is not accepted by protocol: ${message}`, wellformedness);
}

export function acceptableFloat(f: number): void {
  if (Number.isNaN(f)) throw unacceptable('primitives', 'floating-point NaN', true);
  if (!Number.isFinite(f)) throw unacceptable('primitives', 'floating-point infinity', true);
}

export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Throws unless `data` is exactly one well-formed data item, as kube accepts them. */
export function checkWellformed(data: Uint8Array, limits: typeof cborLimits): void {
  if (data.length === 0) throw new CBORDecodeError('EOF', true);
  const check = new WellformednessCheck(data, limits);
  check.wellformed(0);
  if (check.off !== data.length) {
    throw new CBORDecodeError(`cbor: ${data.length - check.off} bytes of extraneous data starting at index ${check.off}`, true);
  }
}

class WellformednessCheck {
  off = 0;
  private readonly view: DataView;

  constructor(
    private readonly data: Uint8Array,
    private readonly limits: typeof cborLimits,
  ) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  private eof(): CBORDecodeError {
    return new CBORDecodeError('unexpected EOF', true);
  }

  /** wellformedHead: reads a head, refusing what is malformed or refused at this stage. */
  private wellformedHead(): Head {
    const data = this.data;
    if (this.off >= data.length) throw this.eof();
    const b = data[this.off++];
    const major = b >>> 5;
    const ai = b & 0x1f;
    const remaining = data.length - this.off;
    if (ai < 24) return { major, ai, val: ai, indefinite: false };
    if (ai === 24) {
      if (remaining < 1) throw this.eof();
      const val = data[this.off++];
      if (major === 7 && val < 32) throw new CBORDecodeError(`cbor: invalid simple value ${val} for type primitives`, true);
      return { major, ai, val, indefinite: false };
    }
    if (ai === 25) {
      if (remaining < 2) throw this.eof();
      const val = this.view.getUint16(this.off);
      this.off += 2;
      if (major === 7) acceptableFloat(float16Value(val));
      return { major, ai, val, indefinite: false };
    }
    if (ai === 26) {
      if (remaining < 4) throw this.eof();
      const val = this.view.getUint32(this.off);
      if (major === 7) acceptableFloat(this.view.getFloat32(this.off));
      this.off += 4;
      return { major, ai, val, indefinite: false };
    }
    if (ai === 27) {
      if (remaining < 8) throw this.eof();
      const big = this.view.getBigUint64(this.off);
      if (major === 7) acceptableFloat(this.view.getFloat64(this.off));
      this.off += 8;
      return { major, ai, val: Number(big), big, indefinite: false };
    }
    if (ai === 31) {
      if (major === 0 || major === 1 || major === 6) throw new CBORDecodeError(`cbor: invalid additional information 31 for type ${typeNames[major]}`, true);
      if (major === 7) throw new CBORDecodeError('cbor: unexpected "break" code', true);
      return { major, ai, val: 0, indefinite: true };
    }
    throw new CBORDecodeError(`cbor: invalid additional information ${ai} for type ${typeNames[major]}`, true);
  }

  /** Go's int(val) of a length: negative (an overflow) past 2^63 - 1. */
  private lengthOverflows(h: Head): boolean {
    return h.big !== undefined && h.big > maxInt64;
  }

  wellformed(depth: number): number {
    const h = this.wellformedHead();
    switch (h.major) {
      case 2:
      case 3: {
        if (h.indefinite) return this.wellformedIndefiniteString(h.major, depth);
        if (this.lengthOverflows(h)) throw new CBORDecodeError(`cbor: ${typeNames[h.major]} length ${h.big} is too large, causing integer overflow`, true);
        if (this.data.length - this.off < h.val) throw this.eof();
        this.off += h.val;
        return depth;
      }
      case 4:
      case 5: {
        depth++;
        if (depth > this.limits.maxNestedLevels) throw new CBORDecodeError(`cbor: exceeded max nested level ${this.limits.maxNestedLevels}`, true);
        if (h.indefinite) return this.wellformedIndefiniteContainer(h.major, depth);
        if (this.lengthOverflows(h)) throw new CBORDecodeError(`cbor: ${typeNames[h.major]} length ${h.big} is too large, it would cause integer overflow`, true);
        if (h.major === 4 && h.val > this.limits.maxArrayElements) {
          throw new CBORDecodeError(`cbor: exceeded max number of elements ${this.limits.maxArrayElements} for CBOR array`, true);
        }
        if (h.major === 5 && h.val > this.limits.maxMapPairs) {
          throw new CBORDecodeError(`cbor: exceeded max number of key-value pairs ${this.limits.maxMapPairs} for CBOR map`, true);
        }
        const count = h.major === 5 ? h.val * 2 : h.val;
        let max = depth;
        for (let i = 0; i < count; i++) max = Math.max(max, this.wellformed(depth));
        return max;
      }
      case 6: {
        let tag = h.big ?? BigInt(h.val);
        for (;;) {
          if (this.off >= this.data.length) throw this.eof();
          if (tag === 2n || tag === 3n) throw unacceptable('tag', 'bignum', true);
          if (this.data[this.off] >>> 5 !== 6) break;
          const next = this.wellformedHead();
          tag = next.big ?? BigInt(next.val);
          depth++;
          if (depth > this.limits.maxNestedLevels) throw new CBORDecodeError(`cbor: exceeded max nested level ${this.limits.maxNestedLevels}`, true);
        }
        return this.wellformed(depth);
      }
      default:
        return depth;
    }
  }

  private wellformedIndefiniteString(major: number, depth: number): number {
    for (;;) {
      if (this.off >= this.data.length) throw this.eof();
      const b = this.data[this.off];
      if (b === 0xff) {
        this.off++;
        return depth;
      }
      if (b >>> 5 !== major) throw new CBORDecodeError(`cbor: wrong element type ${typeNames[b >>> 5]} for indefinite-length ${typeNames[major]}`, true);
      if ((b & 0x1f) === 31) throw new CBORDecodeError(`cbor: indefinite-length ${typeNames[major]} chunk is not definite-length`, true);
      depth = this.wellformed(depth);
    }
  }

  private wellformedIndefiniteContainer(major: number, depth: number): number {
    let max = depth;
    let i = 0;
    for (;;) {
      if (this.off >= this.data.length) throw this.eof();
      if (this.data[this.off] === 0xff) {
        this.off++;
        break;
      }
      max = Math.max(max, this.wellformed(depth));
      i++;
      if (major === 4 && i > this.limits.maxArrayElements) {
        throw new CBORDecodeError(`cbor: exceeded max number of elements ${this.limits.maxArrayElements} for CBOR array`, true);
      }
      if (major === 5 && i % 2 === 0 && i / 2 > this.limits.maxMapPairs) {
        throw new CBORDecodeError(`cbor: exceeded max number of key-value pairs ${this.limits.maxMapPairs} for CBOR map`, true);
      }
    }
    if (major === 5 && i % 2 === 1) throw new CBORDecodeError('cbor: unexpected "break" code', true);
    return max;
  }
}
