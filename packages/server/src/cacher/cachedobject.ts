/**
 * An object as the watch cache holds it: decoded once (for selectors and tables) and
 * serialized once, lazily, into bytes shared by every list and watcher that sends it.
 * The JSON puts kind and apiVersion first so a list item (which kube sends without them)
 * is the same bytes minus that header: one serialization serves both.
 */
import type { KubeObject } from '../registry/types.js';
import { serializationStats } from './stats.js';

export class CachedObject {
  private bodyBytes?: Buffer;
  private events = new Map<string, Buffer>();

  /** `object` is shared: never mutate it. */
  constructor(readonly key: string, readonly revision: number, readonly object: KubeObject) {}

  /** The object's JSON after its leading `{"kind":…,"apiVersion":…,` header, starting with `{`. */
  private body(): Buffer {
    if (!this.bodyBytes) {
      const { kind: _k, apiVersion: _a, ...rest } = this.object;
      this.bodyBytes = Buffer.from(JSON.stringify(rest));
      serializationStats.objects++;
    }
    return this.bodyBytes;
  }

  /** Bytes of the object as a list item: without kind and apiVersion. */
  itemBytes(): Buffer {
    return this.body();
  }

  /** Bytes of the whole object. */
  objectBytes(): Buffer {
    const body = this.body();
    const header = `{"kind":${JSON.stringify(this.object.kind)},"apiVersion":${JSON.stringify(this.object.apiVersion)}`;
    return body.length > 2 ? Buffer.concat([Buffer.from(header + ','), body.subarray(1)]) : Buffer.from(header + '}');
  }

  /** One watch event line, `{"type":…,"object":…}\n`, computed once per type and shared by all watchers. */
  eventBytes(type: string): Buffer {
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
