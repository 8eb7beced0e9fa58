import type { IKeyValue } from 'etcd3';
import type { KeyValue } from '../types.js';

export function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

export function bytes(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}
