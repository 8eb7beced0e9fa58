/** A protobufjs Root built once from the generated field tables of Kubernetes' protos. */
import protobuf from 'protobufjs';
import { protoMessages } from '../generated/proto-messages.js';

let root: protobuf.Root | undefined;

export function protoRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  for (const [pkg, messages] of Object.entries(protoMessages)) {
    const ns = r.define(pkg);
    for (const [name, fields] of Object.entries(messages)) {
      const type = new protobuf.Type(name);
      for (const [fname, id, ftype, rule, key, value] of fields) {
        // Absolute names in the tables start with a dot; protobufjs resolves them from the root.
        if (ftype === 'map') type.add(new protobuf.MapField(fname, id, key!, normalizeType(value!)));
        else type.add(new protobuf.Field(fname, id, normalizeType(ftype), rule === 'r' ? 'repeated' : 'optional'));
      }
      ns.add(type);
    }
  }
  r.resolveAll();
  root = r;
  return r;
}

function normalizeType(t: string): string {
  return t.startsWith('.') ? t.slice(1) : t;
}
