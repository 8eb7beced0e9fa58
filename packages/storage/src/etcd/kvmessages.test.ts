import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { decodeRangeResponse, decodeTxnResponse, encodeCompaction, encodeRange, encodeTxn } from './kvmessages.js';
import { ProtoReader, type ProtoWriter } from './wire.js';

// etcd's own .proto files, as the etcd3 package ships them: the hand-written encoding must
// agree with them field by field.
const protoDir = join(dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto');
const root = protobuf.loadSync(join(protoDir, 'rpc.proto'));
const type = (name: string) => root.lookupType(`etcdserverpb.${name}`);
const toObject = (name: string, w: ProtoWriter) => {
  const frame = w.frame();
  expect(frame[0]).toBe(0);
  expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
  return type(name).toObject(type(name).decode(frame.subarray(5)), { longs: String, bytes: String, enums: String, defaults: false, oneofs: true });
};
const reader = (name: string, obj: object) => {
  const bytes = Buffer.from(type(name).encode(type(name).fromObject(obj)).finish());
  return new ProtoReader(bytes, 0, bytes.length);
};
const b64 = (s: string) => Buffer.from(s).toString('base64');

// A real cluster id is a random uint64, above 2^53: it must be skipped without harm.
const header = { clusterId: '14841639068965178418', memberId: '10276657743932975437', revision: '9007199254740991', raftTerm: '7' };

test('a create transaction is etcd TxnRequest: compare create_revision = 0 (present in the oneof), put, range on failure', () => {
  const key = Buffer.from('/registry/configmaps/ns/a');
  const value = Buffer.from('x'.repeat(1500));
  const obj = toObject('TxnRequest', encodeTxn({
    compare: [{ key, target: 'create', revision: 0 }],
    success: [{ put: { key, value } }],
    failure: [{ range: { key } }],
  }));
  expect(obj).toEqual({
    compare: [{ target: 'Create', key: b64('/registry/configmaps/ns/a'), createRevision: '0', targetUnion: 'createRevision' }],
    success: [{ requestPut: { key: b64('/registry/configmaps/ns/a'), value: value.toString('base64') }, request: 'requestPut' }],
    failure: [{ requestRange: { key: b64('/registry/configmaps/ns/a') }, request: 'requestRange' }],
  });
});

test('update and delete transactions compare mod_revision and ask for the previous value', () => {
  const key = Buffer.from('k');
  expect(toObject('TxnRequest', encodeTxn({
    compare: [{ key, target: 'mod', revision: 2 ** 40 + 3 }],
    success: [{ put: { key, value: Buffer.from('v'), prevKv: true } }],
    failure: [],
  }))).toEqual({
    compare: [{ target: 'Mod', key: b64('k'), modRevision: String(2 ** 40 + 3), targetUnion: 'modRevision' }],
    success: [{ requestPut: { key: b64('k'), value: b64('v'), prevKv: true }, request: 'requestPut' }],
  });
  expect(toObject('TxnRequest', encodeTxn({ compare: [], success: [{ deleteRange: { key, prevKv: true } }], failure: [] }))).toEqual({
    success: [{ requestDeleteRange: { key: b64('k'), prevKv: true }, request: 'requestDeleteRange' }],
  });
});

test('RangeRequest and CompactionRequest carry every field set, and only those', () => {
  expect(toObject('RangeRequest', encodeRange({ key: Buffer.from('a'), rangeEnd: Buffer.from('b'), limit: 500, revision: 123456789012, countOnly: true }))).toEqual({
    key: b64('a'), rangeEnd: b64('b'), limit: '500', revision: '123456789012', countOnly: true,
  });
  expect(toObject('RangeRequest', encodeRange({ key: Buffer.from('a') }))).toEqual({ key: b64('a') });
  // An empty range end (etcd's "every key from key on") is sent, not dropped.
  expect(toObject('RangeRequest', encodeRange({ key: Buffer.from([0]), rangeEnd: Buffer.alloc(0) }))).toEqual({ key: 'AA==', rangeEnd: '' });
  expect(toObject('CompactionRequest', encodeCompaction(77, true))).toEqual({ revision: '77', physical: true });
});

test('RangeResponse decodes header revision, kvs, more and count, skipping what it does not use', () => {
  const kv = (k: string, c: number, m: number) => ({ key: b64(k), value: b64(`value of ${k}`), createRevision: String(c), modRevision: String(m), version: '3', lease: '5' });
  const res = decodeRangeResponse(reader('RangeResponse', { header, kvs: [kv('a', 2, 9), kv('b', 4, 2 ** 45)], more: true, count: '1234' }));
  expect(res.revision).toBe(Number.MAX_SAFE_INTEGER);
  expect(res.more).toBe(true);
  expect(res.count).toBe(1234);
  expect(res.kvs.map((k) => [k.key.toString(), k.value.toString(), k.createRevision, k.modRevision, k.version])).toEqual([
    ['a', 'value of a', 2, 9, 3],
    ['b', 'value of b', 4, 2 ** 45, 3],
  ]);
  expect(decodeRangeResponse(reader('RangeResponse', { header: { revision: '5' }, count: '0' }))).toEqual({ revision: 5, kvs: [], more: false, count: 0 });
});

test('TxnResponse decodes success, put prev_kv, delete prev_kvs and the failure branch range', () => {
  const prev = { key: b64('k'), value: b64('old'), createRevision: '3', modRevision: '8', version: '2' };
  const put = decodeTxnResponse(reader('TxnResponse', { header, succeeded: true, responses: [{ responsePut: { header, prevKv: prev } }] }));
  expect(put.succeeded).toBe(true);
  expect(put.revision).toBe(Number.MAX_SAFE_INTEGER);
  expect(put.responses[0].kvs.map((k) => [k.value.toString(), k.createRevision, k.modRevision])).toEqual([['old', 3, 8]]);

  const del = decodeTxnResponse(reader('TxnResponse', { header, succeeded: true, responses: [{ responseDeleteRange: { header, deleted: '1', prevKvs: [prev] } }] }));
  expect(del.responses[0].kvs.map((k) => k.key.toString())).toEqual(['k']);

  const failed = decodeTxnResponse(reader('TxnResponse', { header: { revision: '12' }, responses: [{ responseRange: { header, kvs: [prev], count: '1' } }] }));
  expect(failed).toMatchObject({ revision: 12, succeeded: false });
  expect(failed.responses[0].kvs[0].modRevision).toBe(8);

  // A put without prev_kv asked answers no kvs.
  expect(decodeTxnResponse(reader('TxnResponse', { header, succeeded: true, responses: [{ responsePut: { header } }] })).responses).toEqual([{ kvs: [] }]);
});

test('truncated messages are errors, not wrong answers', () => {
  const bytes = Buffer.from(type('RangeResponse').encode(type('RangeResponse').fromObject({ header, kvs: [{ key: b64('a'), value: b64('v') }] })).finish());
  expect(() => decodeRangeResponse(new ProtoReader(bytes, 0, bytes.length - 1))).toThrow(/truncated/);
});
