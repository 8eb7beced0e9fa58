/**
 * etcd's Watch service messages (api/etcdserverpb/rpc.proto, api/mvccpb/kv.proto Event), the
 * fields Windlass sends and reads. Field numbers are etcd's.
 */
import { decodeHeaderRevision, decodeKeyValue, type RawKeyValue } from './kvmessages.js';
import { type ProtoReader, ProtoWriter } from './wire.js';

export interface WatchCreate {
  key: Buffer;
  rangeEnd?: Buffer;
  startRevision?: number;
  progressNotify?: boolean;
  prevKv?: boolean;
}

export interface WatchEvent {
  type: 'PUT' | 'DELETE';
  kv: RawKeyValue;
  prevKv?: RawKeyValue;
}

export interface WatchResponse {
  revision: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WatchEvent[];
}

export function encodeWatchCreate(c: WatchCreate): ProtoWriter {
  return new ProtoWriter().message(
    1,
    new ProtoWriter()
      .bytes(1, c.key)
      .bytes(2, c.rangeEnd)
      .varint(3, c.startRevision ?? 0)
      .bool(4, c.progressNotify)
      .bool(6, c.prevKv),
  );
}

/** WatchRequest with an (empty) progress_request. */
export function encodeProgressRequest(): ProtoWriter {
  return new ProtoWriter().message(3, new ProtoWriter());
}

function decodeEvent(r: ProtoReader): WatchEvent {
  const ev: WatchEvent = { type: 'PUT', kv: undefined as unknown as RawKeyValue };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 0) ev.type = r.varint() === 1 ? 'DELETE' : 'PUT';
    else if (field === 2 && wireType === 2) ev.kv = decodeKeyValue(r.message());
    else if (field === 3 && wireType === 2) ev.prevKv = decodeKeyValue(r.message());
    else r.skip(wireType);
  }
  if (!ev.kv) throw new Error('etcd sent a watch event without a key-value');
  return ev;
}

export function decodeWatchResponse(r: ProtoReader): WatchResponse {
  const res: WatchResponse = { revision: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] };
  while (r.more()) {
    const { field, wireType } = r.next();
    if (field === 1 && wireType === 2) res.revision = decodeHeaderRevision(r.message());
    else if (field === 3 && wireType === 0) res.created = r.varint() !== 0;
    else if (field === 4 && wireType === 0) res.canceled = r.varint() !== 0;
    else if (field === 5 && wireType === 0) res.compactRevision = r.varint();
    else if (field === 6 && wireType === 2) res.cancelReason = r.bytes().toString('utf8');
    else if (field === 11 && wireType === 2) res.events.push(decodeEvent(r.message()));
    else r.skip(wireType);
  }
  return res;
}
