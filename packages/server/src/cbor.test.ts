/**
 * CBOR serving with CBORServingAndStorage on, on both backends. Every CBOR answer is decoded
 * with cbor-x (not with our decoder) and compared with the JSON answer to the same request;
 * the CBOR requests are encoded with cbor-x too. kube's forms are checked on the way: the
 * self-described prefix, strings (keys included) as byte strings, keys in bytewise order,
 * []byte fields as tag 22 around the bytes.
 */
import { Decoder, Encoder, Tag } from 'cbor-x';
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, type TestServer } from './testing/client.js';

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
const encoder = new Encoder({ useRecords: false, mapsAsObjects: true });

/**
 * cbor-x's decoding in the JSON form, checking kube's encoding rules: every string a byte
 * string (cbor-x gives those as Buffers, text strings as JS strings), map keys sorted
 * shorter first then bytewise, []byte as Tag 22.
 */
function jsonForm(v: unknown, path = ''): unknown {
  if (typeof v === 'string') throw new Error(`a text string at ${path}: ${v}`);
  if (v instanceof Tag) {
    if (v.tag !== 22 || !(v.value instanceof Uint8Array)) throw new Error(`tag ${v.tag} at ${path}`);
    return Buffer.from(v.value).toString('base64');
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) return v.map((x, i) => jsonForm(x, `${path}[${i}]`));
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    let previous: Buffer | undefined;
    for (const [k, x] of v) {
      if (!(k instanceof Uint8Array)) throw new Error(`a key that is not a byte string at ${path}: ${String(k)}`);
      const key = Buffer.from(k);
      if (previous && (previous.length > key.length || (previous.length === key.length && Buffer.compare(previous, key) >= 0))) {
        throw new Error(`keys out of order at ${path}: ${previous} before ${key}`);
      }
      previous = key;
      out[key.toString('utf8')] = jsonForm(x, `${path}.${key}`);
    }
    return out;
  }
  return v;
}

async function getBoth(t: TestServer, path: string, accept = '') {
  const headers = (type: string) => ({ accept: accept ? accept.replaceAll('TYPE', type) : type });
  const [c, j] = await Promise.all([fetch(t.base + path, { headers: headers('application/cbor') }), fetch(t.base + path, { headers: headers('application/json') })]);
  const bytes = Buffer.from(await c.arrayBuffer());
  return { status: c.status, jsonStatus: j.status, contentType: c.headers.get('content-type'), bytes, cbor: jsonForm(decoder.decode(bytes)) as any, json: (await j.json()) as any };
}

/** A Table's Age is computed as each answer is written: the CBOR and JSON answers may straddle a second. */
function withoutAge(body: any): any {
  const age = body?.kind === 'Table' ? body.columnDefinitions.findIndex((c: any) => c.name === 'Age') : -1;
  if (age >= 0) for (const row of body.rows) row.cells[age] = '<age>';
  return body;
}

const cms = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';
const cborHeaders = { 'content-type': 'application/cbor', accept: 'application/json' };

describeBackends('CBOR serving (CBORServingAndStorage on)', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry', cbor: true });
  });
  afterEach(async () => {
    await t.close();
  });

  test('objects, lists, Tables, metadata and Status errors answer in CBOR as they do in JSON', async () => {
    expect((await t.call('POST', cms, { body: { metadata: { name: 'one', labels: { a: 'b' } }, data: { k: 'v', 'long.key-name_0123456789abcdef': 'é ü 水' }, binaryData: { bin: 'AAH/' } } })).status).toBe(201);
    expect((await t.call('POST', secrets, { body: { metadata: { name: 's' }, data: { key: Buffer.from([0, 1, 2, 255]).toString('base64') } } })).status).toBe(201);

    const cases: [string, string?][] = [
      [`${cms}/one`],
      [cms],
      [`${secrets}/s`],
      [secrets],
      [`${cms}/one`, 'TYPE;as=Table;g=meta.k8s.io;v=v1'],
      [`${secrets}?includeObject=Object`, 'TYPE;as=Table;g=meta.k8s.io;v=v1'],
      [`${cms}/one`, 'TYPE;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'],
      [cms, 'TYPE;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'],
      [`${cms}/missing`],
      ['/api/v1/namespaces/default'],
    ];
    for (const [path, accept] of cases) {
      const r = await getBoth(t, path, accept);
      expect({ path, status: r.status }).toEqual({ path, status: r.jsonStatus });
      expect(r.contentType).toBe('application/cbor');
      expect(r.bytes.subarray(0, 3).toString('hex')).toBe('d9d9f7');
      expect(withoutAge(r.cbor)).toEqual(withoutAge(r.json));
    }
    // kube's Go types: Secret.data and ConfigMap.binaryData are []byte, written as tag 22 and the bytes.
    const secret = decoder.decode((await getBoth(t, `${secrets}/s`)).bytes) as Map<Uint8Array, any>;
    const data = [...secret].find(([k]) => Buffer.from(k).toString() === 'data')![1] as Map<Uint8Array, Tag>;
    const value = [...data.values()][0];
    expect(value).toBeInstanceOf(Tag);
    expect(value.tag).toBe(22);
    expect(Buffer.from(value.value as Uint8Array)).toEqual(Buffer.from([0, 1, 2, 255]));
    const missing = await getBoth(t, `${cms}/missing`);
    expect(missing.cbor).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' });
  });

  test('a watch accepting application/cbor streams application/cbor-seq, one WatchEvent item per event, equal to the JSON events', async () => {
    const path = `${cms}?watch=true&timeoutSeconds=3`;
    const json = openWatch(t.base, path, { accept: 'application/json' });
    const res = await fetch(t.base + path, { headers: { accept: 'application/cbor' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/cbor-seq');
    const body = res.arrayBuffer();
    const created = await t.call('POST', cms, { body: { metadata: { name: 'w' }, data: { a: '1' } } });
    expect((await t.call('PUT', `${cms}/w`, { body: { ...created.body, data: { a: '2' } } })).status).toBe(200);
    expect((await t.call('DELETE', `${cms}/w`)).status).toBe(200);
    const bytes = Buffer.from(await body);
    const ours = (e: { object: { metadata: { name: string } } }) => e.object.metadata.name === 'w';
    // Both watches end at their timeout; the JSON one started first.
    while (!json.ended) await new Promise((r) => setTimeout(r, 50));
    const jsonEvents = json.events.filter(ours);
    await json.close();
    // A CBOR sequence: items back to back, each a self-described {type, object} whose object is itself self-described.
    expect(bytes.subarray(0, 3).toString('hex')).toBe('d9d9f7');
    const items = decoder.decodeMultiple(bytes) as unknown[];
    const events = items.map((e) => jsonForm(e) as { type: string; object: { metadata: { name: string } } }).filter(ours);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events).toEqual(jsonEvents);
    // The WatchEvent's object is a RawExtension holding a whole CBOR item: it starts with the prefix too.
    expect(bytes.indexOf(Buffer.from('466f626a656374d9d9f7', 'hex'))).toBeGreaterThan(0);
  });

  test('create, update and server-side apply take CBOR bodies', async () => {
    // cbor-x writes text strings and a Buffer as a byte string: kube reads either as a string.
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { x: Buffer.from('y') } }, data: { k: 'v' } };
    const created = await fetch(t.base + cms, { method: 'POST', headers: cborHeaders, body: encoder.encode(cm) });
    expect(created.status).toBe(201);
    const obj = (await created.json()) as any;
    expect(obj.metadata.labels).toEqual({ x: 'y' });
    expect(obj.data).toEqual({ k: 'v' });
    // A []byte field given as tag 22 around the bytes, as kube's clients encode it.
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bin' }, data: { key: new Tag(Buffer.from([0xde, 0xad]), 22) } };
    const s = await fetch(t.base + secrets, { method: 'POST', headers: cborHeaders, body: encoder.encode(secret) });
    expect(s.status).toBe(201);
    expect(((await s.json()) as any).data).toEqual({ key: '3q0=' });

    const updated = await fetch(`${t.base}${cms}/c`, { method: 'PUT', headers: cborHeaders, body: encoder.encode({ ...obj, data: { k: 'w' } }) });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as any).data).toEqual({ k: 'w' });

    const applyHeaders = { 'content-type': 'application/apply-patch+cbor', accept: 'application/cbor' };
    const apply = (data: Record<string, string>) =>
      fetch(`${t.base}${cms}/applied?fieldManager=m`, { method: 'PATCH', headers: applyHeaders, body: encoder.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data }) });
    const first = await apply({ a: '1', b: '2' });
    expect(first.status).toBe(201);
    expect(first.headers.get('content-type')).toBe('application/cbor');
    const firstObj = jsonForm(decoder.decode(Buffer.from(await first.arrayBuffer()))) as any;
    expect(firstObj.data).toEqual({ a: '1', b: '2' });
    expect(firstObj.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'm', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } })]);
    // Applying again without b removes the field the manager no longer applies.
    const second = await apply({ a: '3' });
    expect(second.status).toBe(200);
    expect((jsonForm(decoder.decode(Buffer.from(await second.arrayBuffer()))) as any).data).toEqual({ a: '3' });
  });

  test('CBOR bodies kube cannot decode are refused with its messages', async () => {
    const post = async (body: Buffer, path = cms) => {
      const r = await fetch(t.base + path, { method: 'POST', headers: cborHeaders, body });
      return { status: r.status, message: ((await r.json()) as any).message };
    };
    // {'kind': 'a', 'xyz': 1, 'kind': 'b'}: the serializer cannot read the kind.
    const dupTop = Buffer.from('a3446b696e6441614378797a01446b696e644162', 'hex');
    expect(await post(dupTop)).toEqual({
      status: 400,
      message: `the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: cbor: found duplicate map key "kind" at map element index 2 (${dupTop.subarray(0, 30).toString('hex')})`,
    });
    // {'apiVersion': 'v1', 'kind': 'ConfigMap', 'data': {'a': '1', 'a': '2'}}: the object cannot be decoded.
    const dupDeep = encoder.encode({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1', b: '2' } });
    const at = dupDeep.indexOf(Buffer.from('6162', 'hex')); // "b" as cbor-x writes it (text string)
    dupDeep[at + 1] = 0x61;
    expect(await post(dupDeep)).toEqual({ status: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: found duplicate map key "a" at map element index 1' });
    // {'kind': 'ConfigMap', 'data': undefined}: undefined is not a value kube accepts.
    expect(await post(Buffer.from('a2446b696e6449436f6e6669674d61704464617461f7', 'hex'))).toEqual({
      status: 400,
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: data item of cbor type primitives is not accepted by protocol: simple value 23 is not recognized',
    });
    // An apply body that is not a map.
    const r = await fetch(`${t.base}${cms}/x?fieldManager=m`, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+cbor' }, body: encoder.encode([1]) });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).message).toBe('error decoding YAML: cbor: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  test('406 and 415 answers list application/cbor last, and watches application/cbor-seq', async () => {
    const notAcceptable = await t.call('GET', cms, { accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.body.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
    const watch = await t.call('GET', `${cms}?watch=true`, { accept: 'application/yaml' });
    expect(watch.status).toBe(406);
    expect(watch.body.message).toBe('only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch, application/cbor-seq');
    const unsupported = await t.call('POST', cms, { body: 'x', contentType: 'text/plain' });
    expect(unsupported.status).toBe(415);
    expect(unsupported.body.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
  });

  test('custom resources answer and accept CBOR', async () => {
    const group = 'cbor.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, ratio: { type: 'number' }, name: { type: 'string' } } } } } },
        }],
      },
    };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const gadgets = `/apis/${group}/v1/namespaces/default/gadgets`;
    const deadline = Date.now() + 10_000;
    while ((await t.call('GET', gadgets)).status !== 200) {
      if (Date.now() > deadline) throw new Error('the CRD was not served');
      await new Promise((r) => setTimeout(r, 50));
    }
    const created = await fetch(t.base + gadgets, {
      method: 'POST', headers: cborHeaders,
      body: encoder.encode({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 3, ratio: 0.5, name: 'x' } }),
    });
    expect(created.status).toBe(201);
    for (const path of [`${gadgets}/g`, gadgets, `${gadgets}/g?x=1`]) {
      const r = await getBoth(t, path, path.endsWith('x=1') ? 'TYPE;as=Table;g=meta.k8s.io;v=v1' : '');
      expect(r.status).toBe(200);
      expect(withoutAge(r.cbor)).toEqual(withoutAge(r.json));
    }
    // The CRD itself: JSONSchemaProps' maximum is a Go float64, a float in kube's CBOR even when whole.
    const crdBytes = (await getBoth(t, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`)).bytes;
    expect(crdBytes.indexOf(Buffer.from('476d6178696d756df94900', 'hex'))).toBeGreaterThan(0); // 'maximum': 10.0
    // The custom resource's integers stay integers (unstructured in kube).
    const g = (await getBoth(t, `${gadgets}/g`)).bytes;
    expect(g.indexOf(Buffer.from('4473697a6503', 'hex'))).toBeGreaterThan(0); // 'size': 3
  });
});
