/**
 * A service CIDR as kube's IP allocator sees it (pkg/registry/core/service/ipallocator):
 * addresses as integers, the allocatable range (the network address, and for IPv4 the
 * broadcast address, are never handed out) and the lower band kept for static allocation.
 */
import { formatIP, parseCIDR, parseIP, type ParsedIP } from '../validation/network.js';

export class ServiceCIDR {
  readonly family: 4 | 6;
  readonly bits: number;
  readonly network: bigint;
  readonly prefix: number;
  /** First and last allocatable addresses. */
  readonly rangeStart: bigint;
  readonly rangeEnd: bigint;
  /** Addresses from rangeStart up to (excluding) this one are the static band (KEP-3070). */
  readonly offsetAddress: bigint;

  constructor(readonly cidr: string) {
    const parsed = parseCIDR(cidr);
    if (!parsed) throw new Error(`invalid service CIDR ${JSON.stringify(cidr)}`);
    this.family = parsed.ip.family;
    this.bits = parsed.ip.bytes.length * 8;
    this.prefix = parsed.prefix;
    this.network = toInt(parsed.ip.bytes);
    const hostBits = BigInt(this.bits - this.prefix);
    const last = this.network + (1n << hostBits) - 1n;
    this.rangeStart = this.network + 1n;
    this.rangeEnd = this.family === 4 ? last - 1n : last;
    if (this.rangeEnd < this.rangeStart) this.rangeEnd = this.rangeStart - 1n;
    this.offsetAddress = this.rangeStart + BigInt(rangeOffset(this.rangeEnd - this.rangeStart + 1n));
  }

  /** The range in its canonical form (`10.96.0.0/12`), as kube prints it in messages. */
  toString(): string {
    return `${this.format(this.network)}/${this.prefix}`;
  }

  /** Whether the address string belongs to this CIDR's family and prefix. */
  contains(ip: string): boolean {
    const v = this.toInt(ip);
    return v !== undefined && v >= this.network && v <= this.network + (1n << BigInt(this.bits - this.prefix)) - 1n;
  }

  /** Whether the address may be allocated (in the CIDR, not its network or broadcast address). */
  allocatable(ip: string): boolean {
    const v = this.toInt(ip);
    return v !== undefined && v >= this.rangeStart && v <= this.rangeEnd;
  }

  toInt(ip: string): bigint | undefined {
    const p = parseIP(ip);
    if (!p) return undefined;
    const bytes = this.family === 4 && p.bytes.length === 16 ? unmap(p.bytes) : p.bytes;
    if (!bytes || bytes.length * 8 !== this.bits) return undefined;
    return toInt(bytes);
  }

  format(v: bigint): string {
    const bytes = new Uint8Array(this.bits / 8);
    for (let i = bytes.length - 1; i >= 0; i--) {
      bytes[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    const ip: ParsedIP = { family: this.family, bytes };
    return formatIP(ip);
  }
}

/** min(max(16, size/16), 256) addresses at the start of the range are left for static allocation. */
function rangeOffset(size: bigint): number {
  if (size < 16n) return 0;
  const offset = size / 16n;
  if (offset < 16n) return 16;
  if (offset > 256n) return 256;
  return Number(offset);
}

function toInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function unmap(bytes: Uint8Array): Uint8Array | undefined {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return undefined;
  return bytes[10] === 0xff && bytes[11] === 0xff ? bytes.subarray(12) : undefined;
}

/** The first allocatable address of a range: what the `kubernetes` Service in `default` holds. */
export function firstServiceIP(cidr: string): string {
  const c = new ServiceCIDR(cidr);
  return c.format(c.rangeStart);
}
