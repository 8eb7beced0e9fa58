/**
 * The protobuf messages of cached objects, encoded once per object and revision and shared by
 * every protobuf list, GET and watch event that sends them, as the JSON bytes are. Unlike the
 * JSON bytes they are kept only up to a byte budget, least recently used first out: protobuf
 * clients (kube-controller-manager, client-go's typed clients) list and watch much of the
 * cluster, and a second copy of every object would double the cache.
 *
 * Measured (bench/RESULTS.md, "Sixth session: protobuf encoding"): a protobuf list of 10k
 * ConfigMaps took 550-1,100 ms encoding every item from the JSON form, against 120-200 ms for
 * the JSON list.
 */
import { encodeMessage } from '@windlass/machinery';
import type { CachedObject } from './cachedobject.js';

export class ProtobufMessages {
  private readonly entries = new Map<CachedObject, Buffer>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  /** The object's message, or undefined when its kind has none. */
  get(obj: CachedObject): Buffer | undefined {
    let b = this.entries.get(obj);
    if (b) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(obj);
      this.entries.set(obj, b);
      return b;
    }
    b = encodeMessage(obj.object);
    if (!b) return undefined;
    this.entries.set(obj, b);
    this.bytes += b.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
    return b;
  }

  get size(): number {
    return this.bytes;
  }
}

/** One per process: 64 MiB holds a protobuf copy of some 30k typical objects. */
export const protobufMessages = new ProtobufMessages(64 * 1024 * 1024);
