import protobuf from 'protobufjs';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer } from './testing/client.js';

/** Encodes a ConfigMap the way client-go does: magic, runtime.Unknown{typeMeta, raw}. */
function encodeConfigMap(name: string, data: Record<string, string>, binary: Record<string, Buffer>): Buffer {
  const root = protobuf.Root.fromJSON({
    nested: {
      Time: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
      ObjectMeta: { fields: { name: { type: 'string', id: 1 }, generateName: { type: 'string', id: 2 }, namespace: { type: 'string', id: 3 }, creationTimestamp: { type: 'Time', id: 8 }, labels: { keyType: 'string', type: 'string', id: 11 } } },
      ConfigMap: { fields: { metadata: { type: 'ObjectMeta', id: 1 }, data: { keyType: 'string', type: 'string', id: 2 }, binaryData: { keyType: 'string', type: 'bytes', id: 3 } } },
      TypeMeta: { fields: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } } },
      Unknown: { fields: { typeMeta: { type: 'TypeMeta', id: 1 }, raw: { type: 'bytes', id: 2 }, contentEncoding: { type: 'string', id: 3 }, contentType: { type: 'string', id: 4 } } },
    },
  } as protobuf.INamespace);
  // Go writes empty optional strings and a zero Time; the server must treat them as unset.
  const raw = root.lookupType('ConfigMap').encode({ metadata: { name, generateName: '', namespace: '', creationTimestamp: {}, labels: { app: 'x' } }, data, binaryData: binary }).finish();
  const unknown = root.lookupType('Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(unknown)]);
}

test('a protobuf create body is decoded like its JSON form', async () => {
  const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  try {
    const body = encodeConfigMap('pb', { k: 'v' }, { bin: Buffer.from([1, 2, 3]) });
    const res = await fetch(`${t.base}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' }, body });
    expect(res.status).toBe(201);
    const obj = await res.json() as any;
    expect(obj.metadata.name).toBe('pb');
    expect(obj.metadata.generateName).toBeUndefined();
    // Fields not on the wire stay unset (protobufjs would report defaults such as immutable: false).
    expect('immutable' in obj).toBe(false);
    expect(obj.metadata.labels).toEqual({ app: 'x' });
    expect(obj.data).toEqual({ k: 'v' });
    expect(obj.binaryData).toEqual({ bin: Buffer.from([1, 2, 3]).toString('base64') });
    const junk = await fetch(`${t.base}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: 'not protobuf' });
    expect(junk.status).toBe(400);
  } finally {
    await t.close();
  }
});

test('a protobuf map of messages (a ResourceQuota\'s hard: map<string, Quantity>) decodes its values as the messages they are', async () => {
  const root = protobuf.Root.fromJSON({
    nested: {
      ObjectMeta: { fields: { name: { type: 'string', id: 1 } } },
      Quantity: { fields: { string: { type: 'string', id: 1 } } },
      ResourceQuotaSpec: { fields: { hard: { keyType: 'string', type: 'Quantity', id: 1 } } },
      ResourceQuota: { fields: { metadata: { type: 'ObjectMeta', id: 1 }, spec: { type: 'ResourceQuotaSpec', id: 2 } } },
      TypeMeta: { fields: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } } },
      Unknown: { fields: { typeMeta: { type: 'TypeMeta', id: 1 }, raw: { type: 'bytes', id: 2 } } },
    },
  } as protobuf.INamespace);
  const raw = root.lookupType('ResourceQuota').encode({ metadata: { name: 'small' }, spec: { hard: { pods: { string: '10' }, 'requests.cpu': { string: '2000m' } } } }).finish();
  const unknown = root.lookupType('Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'ResourceQuota' }, raw }).finish();
  const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  try {
    await t.server.bootstrap();
    const res = await fetch(`${t.base}/api/v1/namespaces/default/resourcequotas`, {
      method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' },
      body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(unknown)]),
    });
    expect(res.status).toBe(201);
    const obj = await res.json() as any;
    expect(Object.keys(obj.spec.hard).sort()).toEqual(['pods', 'requests.cpu']);
    expect(obj.spec.hard.pods).toBe('10');
  } finally {
    await t.close();
  }
});
