import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { decodeWatchResponse, encodeProgressRequest, encodeWatchCreate } from './watchmessages.js';
import { ProtoReader } from './wire.js';

// Checked against etcd's own .proto files, as the etcd3 package ships them.
const protoDir = join(dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto');
const root = protobuf.loadSync(join(protoDir, 'rpc.proto'));
const WatchRequest = root.lookupType('etcdserverpb.WatchRequest');
const WatchResponse = root.lookupType('etcdserverpb.WatchResponse');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const opts = { longs: String, bytes: String, enums: String, defaults: false, oneofs: true };

test('a watch create request carries key, range end, start revision, progress_notify and prev_kv', () => {
  const frame = encodeWatchCreate({ key: Buffer.from('/registry/'), rangeEnd: Buffer.from('/registry0'), startRevision: 2 ** 40, progressNotify: true, prevKv: true }).frame();
  expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
  expect(WatchRequest.toObject(WatchRequest.decode(frame.subarray(5)), opts)).toEqual({
    createRequest: { key: b64('/registry/'), rangeEnd: b64('/registry0'), startRevision: String(2 ** 40), progressNotify: true, prevKv: true },
    requestUnion: 'createRequest',
  });
  // From "now": no start revision sent.
  expect(WatchRequest.toObject(WatchRequest.decode(encodeWatchCreate({ key: Buffer.from('a') }).frame().subarray(5)), opts)).toEqual({
    createRequest: { key: b64('a') },
    requestUnion: 'createRequest',
  });
});

test('a progress request is an empty progress_request, present in the oneof', () => {
  expect(WatchRequest.toObject(WatchRequest.decode(encodeProgressRequest().frame().subarray(5)), opts)).toEqual({ progressRequest: {}, requestUnion: 'progressRequest' });
});

const decode = (obj: object) => {
  const bytes = Buffer.from(WatchResponse.encode(WatchResponse.fromObject(obj)).finish());
  return decodeWatchResponse(new ProtoReader(bytes, 0, bytes.length));
};

test('watch responses: events with type, kv and prev_kv; progress; creation; compaction; cancel', () => {
  const header = { clusterId: '14841639068965178418', revision: '42' };
  const kv = (k: string, mod: number) => ({ key: b64(k), value: b64(`v-${k}`), createRevision: '3', modRevision: String(mod), version: '1' });
  // watch_id -1 (a stream-wide progress answer) is a 10-byte varint: skipped without harm.
  const res = decode({ header, watchId: '-1', events: [{ kv: kv('a', 41), prevKv: kv('a', 40) }, { type: 'Delete', kv: { key: b64('b'), modRevision: '42' } }] });
  expect(res.revision).toBe(42);
  expect(res.events.map((e) => [e.type, e.kv.key.toString(), e.kv.value.toString(), e.kv.modRevision, e.prevKv?.modRevision])).toEqual([
    ['PUT', 'a', 'v-a', 41, 40],
    ['DELETE', 'b', '', 42, undefined],
  ]);
  expect(decode({ header, created: true })).toMatchObject({ created: true, events: [], revision: 42 });
  expect(decode({ header, watchId: '-1' })).toMatchObject({ created: false, canceled: false, events: [], revision: 42 });
  expect(decode({ header, compactRevision: '17', canceled: true })).toMatchObject({ compactRevision: 17, canceled: true });
  expect(decode({ header, canceled: true, cancelReason: 'etcdserver: permission denied' })).toMatchObject({ canceled: true, cancelReason: 'etcdserver: permission denied' });
});
