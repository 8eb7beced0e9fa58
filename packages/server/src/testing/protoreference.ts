/**
 * A protobuf decoder for tests, built by protobufjs straight from the reference field table
 * (`../shared/reference/protobuf-fields.json`, Kubernetes' generated.proto files), so what the
 * server encodes is read by code that shares nothing with the server's codec.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

interface FieldFacts { name: string; number: number; type: string; label: string; key?: string; value?: string }
type Reference = Record<string, { package: string; messages: Record<string, { fields: FieldFacts[] }> }>;

const here = dirname(fileURLToPath(import.meta.url));
let root: protobuf.Root | undefined;

export function referenceRoot(): protobuf.Root {
  if (root) return root;
  // dist/testing → the repository's parent, where ../shared sits beside the clone.
  const path = join(here, '..', '..', '..', '..', '..', 'shared', 'reference', 'protobuf-fields.json');
  const files = JSON.parse(readFileSync(path, 'utf8')) as Reference;
  const r = new protobuf.Root();
  for (const { package: pkg, messages } of Object.values(files)) {
    const ns = r.define(pkg);
    for (const [name, { fields }] of Object.entries(messages)) {
      if (ns.get(name)) continue;
      const type = new protobuf.Type(name);
      for (const f of fields) {
        const t = (s: string) => (s.startsWith('.') ? s.slice(1) : s);
        if (f.type === 'map') type.add(new protobuf.MapField(f.name, f.number, f.key!, t(f.value!)));
        else type.add(new protobuf.Field(f.name, f.number, t(f.type), f.label === 'repeated' ? 'repeated' : 'optional'));
      }
      ns.add(type);
    }
  }
  r.resolveAll();
  root = r;
  return r;
}

export interface DecodedEnvelope {
  apiVersion: string;
  kind: string;
  contentType: string;
  raw: Uint8Array;
  /** The object's message, by protobufjs, with longs as numbers and bytes as Buffers. */
  message(typeName: string): any;
}

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Reads `k8s\0` + runtime.Unknown. */
export function readReferenceEnvelope(body: Uint8Array): DecodedEnvelope {
  const b = Buffer.from(body);
  if (!b.subarray(0, 4).equals(magic)) throw new Error(`no protobuf magic: ${b.subarray(0, 8).toString('hex')}`);
  const unknownType = referenceRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const unknown = unknownType.toObject(unknownType.decode(b.subarray(4)), { defaults: true }) as any;
  return {
    apiVersion: unknown.typeMeta?.apiVersion ?? '',
    kind: unknown.typeMeta?.kind ?? '',
    contentType: unknown.contentType ?? '',
    raw: unknown.raw,
    message(typeName: string) {
      const t = referenceRoot().lookupType(typeName);
      return t.toObject(t.decode(unknown.raw), { longs: Number, bytes: Buffer as any });
    },
  };
}

/** The frames of a protobuf watch stream: 4-byte big-endian length, then a WatchEvent. */
export function readReferenceWatchFrames(stream: Buffer): Array<{ type: string; object: DecodedEnvelope }> {
  const eventType = referenceRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
  const out: Array<{ type: string; object: DecodedEnvelope }> = [];
  let at = 0;
  while (at + 4 <= stream.length) {
    const length = stream.readUInt32BE(at);
    if (at + 4 + length > stream.length) break;
    const event = eventType.toObject(eventType.decode(stream.subarray(at + 4, at + 4 + length))) as any;
    out.push({ type: event.type, object: readReferenceEnvelope(event.object.raw) });
    at += 4 + length;
  }
  return out;
}
