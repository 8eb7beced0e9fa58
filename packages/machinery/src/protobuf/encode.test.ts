import protobuf from 'protobufjs';
import { decodeProtobuf } from './codec.js';
import { encodeProtobuf, encodeWatchFrame } from './encode.js';
import { protoRoot } from './schema.js';

/** The message inside an envelope, as protobufjs reads it (an encoder that shares nothing with ours). */
function decodeWith(typeName: string, body: Buffer): any {
  const root = protoRoot();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(4)) as any;
  const type = root.lookupType(typeName);
  return type.toObject(type.decode(unknown.raw), { longs: Number, bytes: Buffer as any, defaults: false });
}

test('Go\'s self-marshalling types take their proto form: times, micro-times, int-or-string, quantities, raw JSON', () => {
  const event = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    metadata: { name: 'e', namespace: 'd', creationTimestamp: '2026-11-25T01:07:18Z' },
    eventTime: '2026-11-25T01:07:18.123456Z', reportingController: 'c', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal',
  };
  const e = decodeWith('k8s.io.api.events.v1.Event', encodeProtobuf(event));
  expect(e.eventTime).toEqual({ seconds: Date.parse('2026-11-25T01:07:18Z') / 1000, nanos: 123456000 });
  expect(e.metadata.creationTimestamp).toEqual({ seconds: Date.parse('2026-11-25T01:07:18Z') / 1000, nanos: 0 });
  const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { a: [1, 'x'] } }, revision: 3 };
  const r = decodeWith('k8s.io.api.apps.v1.ControllerRevision', encodeProtobuf(rev));
  expect(JSON.parse(r.data.raw.toString())).toEqual({ spec: { a: [1, 'x'] } });
  expect(r.revision).toBe(3);
});

test('a negative int32 survives (ten-byte varint), and maps are written in Go\'s key order', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { b: '2', a: '1', '10': 'x', '9': 'y' } }, spec: { priority: -5, containers: [] } };
  const body = encodeProtobuf(pod);
  expect(decodeWith('k8s.io.api.core.v1.Pod', body).spec.priority).toBe(-5);
  // Entries are field 11 of ObjectMeta; the keys in the order they were written.
  const meta = protoRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const raw = protoRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(4)) as any;
  const r = protobuf.Reader.create(raw.raw);
  r.uint32();
  const metaBytes = r.bytes();
  const keys: string[] = [];
  const mr = protobuf.Reader.create(metaBytes);
  while (mr.pos < mr.len) {
    const t = mr.uint32();
    if (t >>> 3 !== 11) { mr.skipType(t & 7); continue; }
    const entry = protobuf.Reader.create(mr.bytes());
    entry.uint32();
    keys.push(entry.string());
  }
  expect(keys).toEqual(['10', '9', 'a', 'b']);
  expect(meta).toBeDefined();
});

test('the CRD schema\'s unions and the named string lists round-trip through our decoder', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'as.b' },
    spec: {
      group: 'b', scope: 'Namespaced', names: { plural: 'as', kind: 'A' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: {
          type: 'object', 'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            spec: { type: 'object', default: { a: 1 }, additionalProperties: { type: 'string' }, properties: { e: { enum: ['a', 1, null] }, t: { type: 'array', items: { type: 'integer' } } } },
            closed: { type: 'object', additionalProperties: false },
            deps: { type: 'object', dependencies: { x: ['y', 'z'], w: { required: ['v'] } } },
          },
        } },
      }],
    },
  };
  const back = decodeProtobuf(encodeProtobuf(crd), { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' }).object;
  expect(back).toEqual(crd);
  const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec: { user: 'u', extra: { scopes: ['a', 'b'] }, resourceAttributes: { verb: 'get' } }, status: { allowed: true } };
  expect(decodeProtobuf(encodeProtobuf(sar), { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' }).object).toEqual(sar);
});

test('a kind without a message travels as JSON in the envelope; a watch frame is length-prefixed', () => {
  const table = { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {}, columnDefinitions: [], rows: [] };
  const body = encodeProtobuf(table);
  const unknown = protoRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(4)) as any;
  expect(unknown.contentType).toBe('application/json');
  expect(JSON.parse(Buffer.from(unknown.raw).toString())).toEqual(table);
  const frame = encodeWatchFrame('ADDED', body);
  expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
  const event = protoRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(frame.subarray(4)) as any;
  expect(event.type).toBe('ADDED');
  expect(Buffer.from(event.object.raw)).toEqual(body);
});
