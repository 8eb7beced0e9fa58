import type { KeyValue } from '../types.js';
import type { RawKeyValue } from './kvmessages.js';

export function toKeyValue(kv: RawKeyValue): KeyValue {
  return { key: kv.key.toString(), value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

export function bytes(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}
