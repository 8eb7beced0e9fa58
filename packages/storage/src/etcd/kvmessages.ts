/**
 * etcd's KV service messages (api/etcdserverpb/rpc.proto, api/mvccpb/kv.proto), and the
 * version in Maintenance.Status: the fields Windlass sends and reads. Field numbers are etcd's.
 */
import { ProtoReader, ProtoWriter } from './wire.js';

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

/** A compare of the key's create or mod revision for equality (all Windlass needs). */
export interface Compare {
  key: Buffer;
  target: 'create' | 'mod';
  revision: number;
}

export type RequestOp =
  | { put: { key: Buffer; value: Buffer; prevKv?: boolean } }
  | { deleteRange: { key: Buffer; prevKv?: boolean } }
  | { range: RangeRequest };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface RawKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
}

export interface RangeResponse {
  revision: number;
  kvs: RawKeyValue[];
  more: boolean;
  count: number;
}

/** One operation's answer: a range's kvs, a put's prev_kv, a delete's prev_kvs. */
export interface ResponseOp {
  kvs: RawKeyValue[];
}

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

export function encodeRange(r: RangeRequest): ProtoWriter {
  return new ProtoWriter()
    .bytes(1, r.key)
    .bytes(2, r.rangeEnd)
    .varint(3, r.limit ?? 0)
    .varint(4, r.revision ?? 0)
    .bool(9, r.countOnly);
}

function encodeCompare(c: Compare): ProtoWriter {
  // result EQUAL is 0 (omitted); target CREATE = 1, MOD = 2; the oneof member is always written.
  return c.target === 'create'
    ? new ProtoWriter().varint(2, 1).bytes(3, c.key).varint(5, c.revision, true)
    : new ProtoWriter().varint(2, 2).bytes(3, c.key).varint(6, c.revision, true);
}

function encodeOp(op: RequestOp): ProtoWriter {
  const w = new ProtoWriter();
  if ('put' in op) return w.message(2, new ProtoWriter().bytes(1, op.put.key).bytes(2, op.put.value).bool(4, op.put.prevKv));
  if ('deleteRange' in op) return w.message(3, new ProtoWriter().bytes(1, op.deleteRange.key).bool(3, op.deleteRange.prevKv));
  return w.message(1, encodeRange(op.range));
}

export function encodeTxn(t: TxnRequest): ProtoWriter {
  const w = new ProtoWriter();
  for (const c of t.compare) w.message(1, encodeCompare(c));
  for (const op of t.success) w.message(2, encodeOp(op));
  for (const op of t.failure) w.message(3, encodeOp(op));
  return w;
}

export function encodeCompaction(revision: number, physical: boolean): ProtoWriter {
  return new ProtoWriter().varint(1, revision).bool(2, physical);
}

export function decodeHeaderRevision(r: ProtoReader): number {
  let revision = 0;
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 3 && wireType === 0) revision = r.varint();
    else r.skip(wireType);
  }
  return revision;
}

export function decodeKeyValue(r: ProtoReader): RawKeyValue {
  const kv: RawKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0 };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 2) kv.key = r.bytes();
    else if (field === 2 && wireType === 0) kv.createRevision = r.varint();
    else if (field === 3 && wireType === 0) kv.modRevision = r.varint();
    else if (field === 4 && wireType === 0) kv.version = r.varint();
    else if (field === 5 && wireType === 2) kv.value = r.bytes();
    else r.skip(wireType);
  }
  return kv;
}

const EMPTY = Buffer.alloc(0);

export function decodeRangeResponse(r: ProtoReader): RangeResponse {
  const res: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 2) res.revision = decodeHeaderRevision(r.message());
    else if (field === 2 && wireType === 2) res.kvs.push(decodeKeyValue(r.message()));
    else if (field === 3 && wireType === 0) res.more = r.varint() !== 0;
    else if (field === 4 && wireType === 0) res.count = r.varint();
    else r.skip(wireType);
  }
  return res;
}

/** PutResponse's prev_kv (2) and DeleteRangeResponse's prev_kvs (3), as a list. */
function decodeKvsField(r: ProtoReader, kvField: number): ResponseOp {
  const out: ResponseOp = { kvs: [] };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === kvField && wireType === 2) out.kvs.push(decodeKeyValue(r.message()));
    else r.skip(wireType);
  }
  return out;
}

function decodeResponseOp(r: ProtoReader): ResponseOp {
  let out: ResponseOp = { kvs: [] };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (wireType !== 2) r.skip(wireType);
    else if (field === 1) out = { kvs: decodeRangeResponse(r.message()).kvs };
    else if (field === 2) out = decodeKvsField(r.message(), 2);
    else if (field === 3) out = decodeKvsField(r.message(), 3);
    else r.skip(wireType);
  }
  return out;
}

export function decodeTxnResponse(r: ProtoReader): TxnResponse {
  const res: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 2) res.revision = decodeHeaderRevision(r.message());
    else if (field === 2 && wireType === 0) res.succeeded = r.varint() !== 0;
    else if (field === 3 && wireType === 2) res.responses.push(decodeResponseOp(r.message()));
    else r.skip(wireType);
  }
  return res;
}

export function decodeHeaderOnly(r: ProtoReader): { revision: number } {
  let revision = 0;
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 2) revision = decodeHeaderRevision(r.message());
    else r.skip(wireType);
  }
  return { revision };
}

/** Maintenance.Status's StatusResponse: the member's version (field 2). */
export function decodeStatusVersion(r: ProtoReader): string {
  let version = '';
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 2 && wireType === 2) version = r.bytes().toString('utf8');
    else r.skip(wireType);
  }
  return version;
}
