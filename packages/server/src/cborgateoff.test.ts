/**
 * CBOR with CBORServingAndStorage off (kube 1.35's default): refused as kube-apiserver refuses
 * it, with the media types it serves. In a file of its own: the gate is process-wide, as kube's.
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';
const served = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
// {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'c'}} as kube's encoder writes it
const cborConfigMap = Buffer.from('d9d9f7a3446b696e6449436f6e6669674d6170486d65746164617461a1446e616d6541634a61706956657273696f6e427631', 'hex');

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
});
afterAll(async () => {
  await t.close();
});

test('application/cbor answers are 406, listing the served media types', async () => {
  for (const path of [cms, `${cms}?watch=true`, '/api/v1/namespaces/default']) {
    const r = await t.call('GET', path, { accept: 'application/cbor' });
    expect({ path, status: r.status, type: r.headers.get('content-type'), message: r.body.message }).toEqual({
      path, status: 406, type: 'application/json', message: `only the following media types are accepted: ${served}`,
    });
  }
});

test('application/cbor bodies are 415, listing the accepted media types', async () => {
  const created = await fetch(t.base + cms, { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: cborConfigMap });
  expect(created.status).toBe(415);
  expect(((await created.json()) as any).message).toBe(`the body of the request was in an unknown format - accepted media types include: ${served}`);
  // The same body is accepted once in JSON: the refusal is the media type's.
  expect((await t.call('POST', cms, { body: { metadata: { name: 'c' } } })).status).toBe(201);
  const updated = await fetch(`${t.base}${cms}/c`, { method: 'PUT', headers: { 'content-type': 'application/cbor' }, body: cborConfigMap });
  expect(updated.status).toBe(415);
});

test('application/apply-patch+cbor is not a patch type of the PATCH routes', async () => {
  const r = await fetch(`${t.base}${cms}/c?fieldManager=m`, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+cbor' }, body: cborConfigMap });
  expect(r.status).toBe(415);
  expect(((await r.json()) as any).message).toBe('415: Unsupported Media Type');
});
