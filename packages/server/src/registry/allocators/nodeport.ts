/**
 * NodePort allocation as kube does it (pkg/registry/core/service/portallocator over the
 * storage-backed bitmap of allocator/storage): one RangeAllocation record at
 * `<prefix>/ranges/servicenodeports` whose `data` is the bitmap of the ports in use (as
 * Go's big.Int bytes: bit i is port base+i). Every change is a compare-and-swap of that
 * record, so replicas sharing the store never hand out the same port.
 */
import { isStorageError, type KeyValue } from '@windlass/storage';
import type { StoreContext } from '../types.js';

export class PortAllocationError extends Error {}

export const errPortAllocated = () => new PortAllocationError('provided port is already allocated');
export const errPortFull = () => new PortAllocationError('range is full');
export const errPortNotInRange = (validPorts: string) => new PortAllocationError(`provided port is not in the valid range. The range of valid ports is ${validPorts}`);

const maxCASAttempts = 64;

/** The ports a bitmap holds, decoded from big.Int bytes (big-endian, no leading zero bytes). */
export function decodeBitmap(data: Buffer, size: number): Uint8Array {
  const bits = new Uint8Array(size);
  for (let j = 0; j < data.length; j++) {
    const byte = data[data.length - 1 - j];
    for (let b = 0; b < 8; b++) {
      const i = j * 8 + b;
      if (i < size && byte & (1 << b)) bits[i] = 1;
    }
  }
  return bits;
}

export function encodeBitmap(bits: Uint8Array): Buffer {
  let high = -1;
  for (let i = bits.length - 1; i >= 0; i--) if (bits[i]) { high = i; break; }
  const out = Buffer.alloc(Math.floor((high + 1 + 7) / 8));
  for (let i = 0; i <= high; i++) if (bits[i]) out[out.length - 1 - Math.floor(i / 8)] |= 1 << (i % 8);
  return out;
}

/** min(max(16, size/32), 128) ports at the start of the range are left for static allocation (KEP-3668). */
function rangeOffset(size: number): number {
  if (size <= 16) return 0;
  const offset = Math.floor(size / 32);
  return Math.min(128, Math.max(16, offset));
}

export class NodePortAllocator {
  readonly base: number;
  readonly size: number;
  readonly key: string;
  /** `30000-32767`, as kube prints the range. */
  readonly rangeString: string;
  private readonly offset: number;

  constructor(private readonly ctx: StoreContext) {
    this.base = ctx.services.nodePortRange.base;
    this.size = ctx.services.nodePortRange.size;
    this.key = `${ctx.registryPrefix}/ranges/servicenodeports`;
    this.rangeString = `${this.base}-${this.base + this.size - 1}`;
    this.offset = rangeOffset(this.size);
  }

  inRange(port: number): boolean {
    return port >= this.base && port < this.base + this.size;
  }

  private decode(kv: KeyValue | null): Uint8Array {
    if (!kv) return new Uint8Array(this.size);
    const rec = JSON.parse(kv.value.toString('utf8')) as { range?: string; data?: string };
    const bits = new Uint8Array(this.size);
    const [lo, hi] = String(rec.range ?? '').split('-').map(Number);
    if (!(lo >= 0) || !(hi >= lo)) return bits;
    // A record written for another --service-node-port-range keeps the ports still in range.
    const old = decodeBitmap(Buffer.from(rec.data ?? '', 'base64'), hi - lo + 1);
    old.forEach((v, i) => {
      const port = lo + i;
      if (v && this.inRange(port)) bits[port - this.base] = 1;
    });
    return bits;
  }

  private encode(bits: Uint8Array): Buffer {
    const rec = { kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: null }, range: this.rangeString, data: encodeBitmap(bits).toString('base64') };
    return Buffer.from(JSON.stringify(rec));
  }

  /** The ports in use now. */
  async snapshot(): Promise<Uint8Array> {
    return this.decode(await this.ctx.storage.get(this.key));
  }

  /** Applies `change` to the current bitmap with compare-and-swap, retrying on conflicts; `change` returns false to write nothing. */
  private async update<T>(change: (bits: Uint8Array) => { write: boolean; result: T }): Promise<T> {
    const storage = this.ctx.storage;
    let kv = await storage.get(this.key);
    for (let attempt = 0; attempt < maxCASAttempts; attempt++) {
      const bits = this.decode(kv);
      const { write, result } = change(bits);
      if (!write) return result;
      const value = this.encode(bits);
      try {
        if (kv) await storage.update(this.key, value, kv.modRevision);
        else await storage.create(this.key, value);
        return result;
      } catch (err) {
        if (isStorageError(err, 'Conflict') || isStorageError(err, 'NotFound')) kv = isStorageError(err, 'Conflict') ? (err.details.current ?? null) : null;
        else if (isStorageError(err, 'KeyExists')) kv = err.details.current ?? (await storage.get(this.key));
        else throw err;
      }
    }
    throw new Error('node port allocation: too many concurrent changes to the port range');
  }

  async allocate(port: number): Promise<void> {
    if (!this.inRange(port)) throw errPortNotInRange(this.rangeString);
    await this.update((bits) => {
      if (bits[port - this.base]) throw errPortAllocated();
      bits[port - this.base] = 1;
      return { write: true, result: undefined };
    });
  }

  /** A free port, random within the upper band first, then the static band. */
  async allocateNext(): Promise<number> {
    return this.update((bits) => {
      for (const [from, to] of [[this.offset, this.size], [0, this.offset]]) {
        const n = to - from;
        if (n <= 0) continue;
        const start = Math.floor(Math.random() * n);
        for (let i = 0; i < n; i++) {
          const idx = from + ((start + i) % n);
          if (!bits[idx]) {
            bits[idx] = 1;
            return { write: true, result: this.base + idx };
          }
        }
      }
      throw errPortFull();
    });
  }

  async release(ports: number[]): Promise<void> {
    const mine = ports.filter((p) => this.inRange(p));
    if (mine.length === 0) return;
    await this.update((bits) => {
      let write = false;
      for (const p of mine) {
        if (bits[p - this.base]) {
          bits[p - this.base] = 0;
          write = true;
        }
      }
      return { write, result: undefined };
    });
  }
}

/**
 * One Service write's node-port changes (portallocator.PortAllocationOperation): ports
 * allocated now (released again by revert), releases deferred until commit. A dry run
 * checks requested ports against the stored bitmap and invents placeholders for the rest.
 */
export class PortAllocationOperation {
  private allocated: number[] = [];
  private toRelease: number[] = [];
  private snapshot?: Uint8Array;

  constructor(readonly allocator: NodePortAllocator, readonly dryRun: boolean) {}

  async allocate(port: number): Promise<void> {
    if (this.dryRun) {
      if (!this.allocator.inRange(port)) throw errPortNotInRange(this.allocator.rangeString);
      this.snapshot ??= await this.allocator.snapshot();
      if (this.snapshot[port - this.allocator.base] || this.allocated.includes(port)) throw errPortAllocated();
      this.allocated.push(port);
      return;
    }
    await this.allocator.allocate(port);
    this.allocated.push(port);
  }

  async allocateNext(): Promise<number> {
    if (this.dryRun) {
      // As kube: a dummy value above the highest port this operation has seen.
      const last = this.allocated.length === 0 ? 32768 : Math.max(...this.allocated);
      this.allocated.push(last + 1);
      return last + 1;
    }
    const port = await this.allocator.allocateNext();
    this.allocated.push(port);
    return port;
  }

  releaseDeferred(port: number): void {
    this.toRelease.push(port);
  }

  /** The write succeeded: free what it gave up. */
  async commit(): Promise<void> {
    if (!this.dryRun) await this.allocator.release(this.toRelease);
    this.allocated = [];
    this.toRelease = [];
  }

  /** The write failed: free what it took. */
  async revert(): Promise<void> {
    if (!this.dryRun) await this.allocator.release(this.allocated);
    this.allocated = [];
    this.toRelease = [];
  }
}
