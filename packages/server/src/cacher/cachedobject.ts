/**
 * An object as the watch cache holds it: its JSON, encoded once and shared by every GET,
 * list and watch that sends it, plus the labels and fields selectors look at (kube's
 * cacher keeps the same per element). The decoded object is not kept: a cache of many
 * objects then costs little more than their bytes, and the few readers that need the
 * object itself (tables, metadata-only, YAML) decode a private copy.
 *
 * The bytes are the stored form with `"resourceVersion":"<rev>"` spliced in as the first
 * field of metadata, so neither ingesting an event nor answering a write encodes again.
 */
import { encodeKindFirst, decodeStored } from '../registry/codec.js';
import type { KubeObject } from '../registry/types.js';
import { serializationStats } from './stats.js';

/** What label and field selectors match on (kube's AttrFunc result). */
export interface ObjectAttrs {
  labels: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string | undefined>>;
}

export type AttrsFunc = ((obj: KubeObject) => ObjectAttrs) & {
  /** Applied to every object decoded from the store before its attributes are read (ResourceDefinition.schemaDefaults). */
  readonly readDefaults?: (obj: KubeObject) => boolean;
};

const noLabels: Readonly<Record<string, string>> = Object.freeze({});

/** Labels and the fields every kind supports, metadata.name and metadata.namespace. */
export const defaultAttrs: AttrsFunc = (obj) => ({
  labels: obj.metadata.labels ?? noLabels,
  fields: { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' },
});

const openBrace = Buffer.from('{');

/**
 * A buffer of its own for bytes the cache keeps: small Buffers normally come from Node's
 * shared 8 KiB pool, and one long-lived slice pins the whole pool chunk, whatever
 * short-lived allocations filled the rest (measured: ~2.4 KB extra per cached object).
 */
function ownBuffer(parts: Buffer[]): Buffer {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const p of parts) at += p.copy(out, at);
  return out;
}

export class CachedObject {
  /** Event lines by type, kept only while one event is fanned out (see holdEventLines). */
  private lines?: Map<string, Buffer>;

  private constructor(
    readonly key: string,
    readonly revision: number,
    /** The whole object's JSON, `{"kind":…,"apiVersion":…,…}`. */
    private readonly bytes: Buffer,
    /** Where the fields after kind and apiVersion start (a list item is `{` + the rest). */
    private readonly restStart: number,
    readonly attrs: ObjectAttrs,
    /** Where the spliced resourceVersion field sits, to recover the stored bytes; -1 when encoded whole. */
    private readonly rvStart: number,
    private readonly rvLength: number,
    /** The stored bytes, kept only when the object is not them (defaulted on read). */
    private readonly stored?: Buffer,
  ) {
    serializationStats.objects++;
  }

  /**
   * From the stored form (the object's JSON without metadata.resourceVersion) at `revision`.
   * `decoded`, when the caller has it, is that same object, spared a second decoding; it is
   * the cache's from then on (the caller does not change it again).
   */
  static fromStored(key: string, revision: number, stored: Buffer, attrsOf: AttrsFunc, decoded?: KubeObject): CachedObject {
    const obj = decoded ?? decodeStored(stored);
    // What the store holds lacks a default its schema has (one added since, or a status default
    // the create dropped): the object is read defaulted, as kube's storage codec reads it, and a
    // write starting from it still compares against what the store holds. (A caller's `decoded`
    // is handed over, as the attributes below keep parts of it anyway: defaulting it in place
    // spares a copy.)
    if (attrsOf.readDefaults?.(obj)) return CachedObject.encoded(key, revision, obj, attrsOf(obj), stored);
    const attrs = attrsOf(obj);
    const at = metadataStart(stored, obj);
    if (at < 0) return CachedObject.encoded(key, revision, obj, attrs);
    const rv = `"resourceVersion":${JSON.stringify(String(revision))}${stored[at] === 0x7d /* } */ ? '' : ','}`;
    const field = Buffer.from(rv);
    const bytes = ownBuffer([stored.subarray(0, at), field, stored.subarray(at)]);
    return new CachedObject(key, revision, bytes, layoutOf(obj).headerLength, attrs, at, field.length);
  }

  /** An object that is not stored as such (a dry run, data in another layout): encoded whole. */
  static fromObject(key: string, revision: number, obj: KubeObject, attrsOf: AttrsFunc): CachedObject {
    return CachedObject.encoded(key, revision, obj, attrsOf(obj));
  }

  private static encoded(key: string, revision: number, obj: KubeObject, attrs: ObjectAttrs, stored?: Buffer): CachedObject {
    if (revision > 0) obj.metadata.resourceVersion = String(revision);
    const { bytes, restStart } = encodeKindFirst(obj);
    return new CachedObject(key, revision, ownBuffer([bytes]), restStart, attrs, -1, 0, stored && ownBuffer([stored]));
  }

  /** A private decoded copy of the object: callers may change it. */
  get object(): KubeObject {
    return JSON.parse(this.bytes.toString('utf8')) as KubeObject;
  }

  /** Bytes of the whole object, shared by every GET, list and watch that sends it. */
  objectBytes(): Buffer {
    return this.bytes;
  }

  /** The stored form: what the store holds for this revision (a write compares against it). */
  storedBytes(): Buffer {
    if (this.stored) return this.stored;
    if (this.rvStart < 0) {
      const obj = this.object;
      delete obj.metadata.resourceVersion;
      return encodeKindFirst(obj).bytes;
    }
    return Buffer.concat([this.bytes.subarray(0, this.rvStart), this.bytes.subarray(this.rvStart + this.rvLength)]);
  }

  /** Appends the object as a list item (without kind and apiVersion, as kube's typed lists) to `parts`, without copying. */
  pushItem(parts: Buffer[]): void {
    parts.push(openBrace, this.bytes.subarray(this.restStart));
  }

  /**
   * One watch event line, `{"type":…,"object":…}\n`. While the Cacher fans an event out it
   * is built once per type and shared by every watcher; it is not kept afterwards, so the
   * cache does not hold a second copy of each object's bytes.
   */
  eventBytes(type: string): Buffer {
    // Inline rather than through sharedEvent: this runs once per watcher per event.
    let b = this.lines?.get(type);
    if (!b) {
      b = Buffer.concat([eventPrefix(type), this.bytes, eventSuffix]);
      this.lines?.set(type, b);
      serializationStats.events++;
    }
    return b;
  }

  /** An event in another encoding (`key` names type and encoding), shared the same way as eventBytes. */
  sharedEvent(key: string, build: () => Buffer): Buffer {
    let b = this.lines?.get(key);
    if (!b) {
      b = build();
      this.lines?.set(key, b);
      serializationStats.events++;
    }
    return b;
  }

  /** Keep event lines until dropEventLines: the Cacher is about to hand this object to every watcher. */
  holdEventLines(): void {
    this.lines ??= new Map();
  }

  dropEventLines(): void {
    this.lines = undefined;
  }

  /** The same object reported at another revision (a DELETED event carries the deletion's revision). */
  atRevision(revision: number): CachedObject {
    if (revision === this.revision) return this;
    return CachedObject.encoded(this.key, revision, this.object, this.attrs);
  }
}

const eventPrefixes = new Map<string, Buffer>();
const eventSuffix = Buffer.from('}\n');

function eventPrefix(type: string): Buffer {
  let p = eventPrefixes.get(type);
  if (!p) eventPrefixes.set(type, (p = Buffer.from(`{"type":${JSON.stringify(type)},"object":`)));
  return p;
}

/** Per kind and apiVersion: `{"kind":K,"apiVersion":A,"metadata":{` as bytes, and where its metadata part starts. */
const layouts = new Map<string, { prefix: Buffer; headerLength: number }>();

function layoutOf(obj: KubeObject): { prefix: Buffer; headerLength: number } {
  const kind = obj.kind ?? '', apiVersion = obj.apiVersion ?? '';
  const id = `${apiVersion}/${kind}`;
  let l = layouts.get(id);
  if (!l) {
    const header = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},`;
    l = { prefix: Buffer.from(`${header}"metadata":{`), headerLength: Buffer.byteLength(header) };
    layouts.set(id, l);
  }
  return l;
}

/**
 * The offset just inside `"metadata":{` when `stored` is laid out as encodeKindFirst writes
 * it (kind, apiVersion, metadata first) and holds no resourceVersion; else -1.
 */
function metadataStart(stored: Buffer, obj: KubeObject): number {
  if (obj.metadata?.resourceVersion !== undefined) return -1;
  const { prefix } = layoutOf(obj);
  if (stored.length <= prefix.length || stored.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0) return -1;
  return prefix.length;
}
