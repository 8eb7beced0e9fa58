/**
 * An object as the watch cache holds it: decoded once (for selectors and tables) and
 * serialized once, lazily, into bytes shared by every list and watcher that sends it.
 * The JSON puts kind and apiVersion first so a list item (which kube sends without them)
 * is a view of the same bytes past that header: one serialization serves both.
 */
import type { KubeObject } from '../registry/types.js';
import { encodeKindFirst } from '../registry/codec.js';
import { serializationStats } from './stats.js';

const openBrace = Buffer.from('{');

export class CachedObject {
  /** The whole object's JSON, `{"kind":…,"apiVersion":…,…}`, built once on first use. */
  private bytes?: Buffer;
  /** Where the fields after kind and apiVersion start in `bytes` (list items are `{` + the rest). */
  private restStart = 0;
  private events?: Map<string, Buffer>;

  /** `object` is shared: never mutate it. */
  constructor(readonly key: string, readonly revision: number, readonly object: KubeObject) {}

  /** Bytes of the whole object, shared by every GET, list and watch that sends it. */
  objectBytes(): Buffer {
    if (!this.bytes) {
      ({ bytes: this.bytes, restStart: this.restStart } = encodeKindFirst(this.object));
      serializationStats.objects++;
    }
    return this.bytes;
  }

  /** Appends the object as a list item (without kind and apiVersion, as kube's typed lists) to `parts`, without copying. */
  pushItem(parts: Buffer[]): void {
    const bytes = this.objectBytes();
    parts.push(openBrace, bytes.subarray(this.restStart));
  }

  /** One watch event line, `{"type":…,"object":…}\n`, computed once per type and shared by all watchers. */
  eventBytes(type: string): Buffer {
    this.events ??= new Map();
    let b = this.events.get(type);
    if (!b) {
      b = Buffer.concat([Buffer.from(`{"type":"${type}","object":`), this.objectBytes(), Buffer.from('}\n')]);
      this.events.set(type, b);
      serializationStats.events++;
    }
    return b;
  }

  /** The same object reported at another revision (a DELETED event carries the deletion's revision). */
  atRevision(revision: number): CachedObject {
    if (revision === this.revision) return this;
    return new CachedObject(this.key, revision, { ...this.object, metadata: { ...this.object.metadata, resourceVersion: String(revision) } });
  }
}
