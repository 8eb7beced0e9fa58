import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, openWatch, type TestServer } from './testing/client.js';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: '1' } });

describeBackends('API server', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(async () => {
    await t.close();
  });

  test('routing as kube does it: wrong method for the path is 405, paths nothing serves are NotFound', async () => {
    const notAllowed = { kind: 'Status', code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', details: {} };
    expect((await t.call('POST', '/api/v1/namespaces/default/configmaps/m', { body: cm('m') })).body).toEqual(expect.objectContaining(notAllowed));
    expect((await t.call('PUT', '/api/v1/namespaces/default/configmaps', { body: cm('m') })).body).toEqual(expect.objectContaining(notAllowed));
    expect((await t.call('PATCH', '/api/v1/namespaces/default/configmaps', { body: {}, contentType: 'application/merge-patch+json' })).status).toBe(405);
    const notFound = { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} };
    expect((await t.call('GET', '/api/v1/namespaces/default/nodes')).body).toEqual(expect.objectContaining(notFound));
    expect((await t.call('GET', '/apis/apps/v2/deployments')).body).toEqual(expect.objectContaining(notFound));
    expect((await t.call('GET', '/apis/nothing.example.com/v1/things')).status).toBe(404);
    expect((await t.call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  test('the kubernetes Service holds the first address of the service range and points at the secure port', async () => {
    const svc = await t.call('GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(svc.status).toBe(200);
    expect(svc.body.spec).toMatchObject({ type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: Number(new URL(t.base).port) }] });
    expect(svc.body.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    const taken = await t.call('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'x' }, spec: { clusterIP: '10.96.0.1', ports: [{ port: 80 }] } } });
    expect(taken.status).toBe(422);
  });

  test('a create right after its namespace\'s delete is refused (403 while terminating, 404 once gone), never stored', async () => {
    await t.server.bootstrap();
    for (let i = 0; i < 5; i++) {
      const ns = `gone-${i}`;
      expect((await t.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
      expect((await t.call('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
      const late = await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('late') });
      expect([403, 404]).toContain(late.status);
    }
    // The namespace controller finishes with them before the server stops.
    for (let i = 0; i < 5; i++) {
      for (let tries = 0; tries < 100 && (await t.call('GET', `/api/v1/namespaces/gone-${i}`)).status !== 404; tries++) await new Promise((r) => setTimeout(r, 50));
    }
  });

  test('a create carrying a resourceVersion: a dry run echoes it, a real one is a bare 500', async () => {
    const dry = await t.call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('m', { resourceVersion: '12345' }) });
    expect(dry.status).toBe(201);
    expect(dry.body.metadata.resourceVersion).toBe('12345');
    const real = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('m', { resourceVersion: '12345' }) });
    expect(real.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: 'resourceVersion should not be set on objects to be created' });
  });

  test('discovery documents', async () => {
    const api = await t.call('GET', '/api');
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const v1 = await t.call('GET', '/api/v1');
    const cms = v1.body.resources.find((r: any) => r.name === 'configmaps');
    expect(cms).toMatchObject({ kind: 'ConfigMap', namespaced: true, singularName: 'configmap', shortNames: ['cm'] });
    expect(cms.verbs).toEqual(expect.arrayContaining(['create', 'get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection']));
    expect(v1.body.resources.find((r: any) => r.name === 'namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    const apis = await t.call('GET', '/apis');
    expect(apis.body.groups.map((g: any) => g.name)).toContain('coordination.k8s.io');
    const leases = await t.call('GET', '/apis/coordination.k8s.io/v1');
    expect(leases.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'coordination.k8s.io/v1' });
    expect((await t.call('GET', '/version')).body.major).toBe('1');
    expect((await t.call('GET', '/healthz')).text).toBe('ok');
  });

  test('unknown paths: plain 404 for an unknown group, Status 404 for an unknown resource', async () => {
    const g = await t.call('GET', '/apis/nope.example.com/v1/things');
    expect(g.status).toBe(404);
    expect(g.text).toBe('404 page not found\n');
    const r = await t.call('GET', '/api/v1/namespaces/default/widgets');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  });

  test('a watch refused before it starts is a plain Status answer (no chunked framing beside its Content-Length)', async () => {
    const r = await t.call('GET', '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=abc');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ kind: 'Status', code: 400 });
    expect(r.headers.get('transfer-encoding')).toBeNull();
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    const w = await fetch(`${t.base}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1`);
    expect(w.headers.get('transfer-encoding')).toBe('chunked');
    await w.text();
  });

  test('create answers 201 with server-set metadata; get returns it; a second create conflicts', async () => {
    const c = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('a') });
    expect(c.status).toBe(201);
    expect(c.body.metadata).toMatchObject({ name: 'a', namespace: 'default' });
    expect(c.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(c.body.metadata.resourceVersion)).toBeGreaterThan(0);
    const g = await t.call('GET', '/api/v1/namespaces/default/configmaps/a');
    expect(g.status).toBe(200);
    expect(g.body).toEqual(c.body);
    const again = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('a') });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "a" already exists', details: { name: 'a', kind: 'configmaps' } });
  });

  test('generateName makes a unique name', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
    const a = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body });
    const b = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body });
    expect(a.status).toBe(201);
    expect(a.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(b.body.metadata.name).not.toBe(a.body.metadata.name);
  });

  test('namespaced objects need an existing namespace, and the namespace must match the path', async () => {
    const missing = await t.call('POST', '/api/v1/namespaces/nope/configmaps', { body: cm('a') });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'namespaces "nope" not found' });
    const mismatch = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('a', { namespace: 'other' }) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
  });

  test('invalid names are 422 Invalid with a cause per field', async () => {
    const bad = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('Bad_Name') });
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    expect(bad.body.message).toMatch(/^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(bad.body.details).toMatchObject({ name: 'Bad_Name', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] });
    const long = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('x'.repeat(254)) });
    expect(long.status).toBe(422);
    expect(long.body.message).toContain('must be no more than 253 characters');
    const nsLabel = await t.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } } });
    expect(nsLabel.status).toBe(422);
    expect(nsLabel.body.message).toBe('Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
    const noName = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: { data: {} } });
    expect(noName.status).toBe(422);
    expect(noName.body.details.causes[0]).toMatchObject({ reason: 'FieldValueRequired', field: 'metadata.name' });
  });

  test('malformed bodies, wrong content types and huge bodies get the right Status and the server keeps serving', async () => {
    const bad = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata":', contentType: 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('BadRequest');
    const ct = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: 'x', contentType: 'text/plain' });
    expect(ct.status).toBe(415);
    expect(ct.body.reason).toBe('UnsupportedMediaType');
    const patchCt = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/a', { body: '{}', contentType: 'application/json' });
    expect(patchCt.status).toBe(415);
    const big = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify(cm('big', {})).replace('"1"', JSON.stringify('x'.repeat(4 * 1024 * 1024))) });
    expect(big.status).toBe(413);
    const wrongKind = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } });
    expect(wrongKind.status).toBe(400);
    const yaml = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n', contentType: 'application/yaml', accept: 'application/yaml' });
    expect(yaml.status).toBe(201);
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    expect(yaml.text).toMatch(/\n  name: yml\n/);
    // YAML 1.1, as kube's decoder reads it: a bare `y` is a boolean, not the name "y".
    const yes = await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n', contentType: 'application/yaml' });
    expect(yes.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string');
    expect((await t.call('GET', '/healthz')).status).toBe(200);
  });

  test('update: stale resourceVersion is 409; no resourceVersion is unconditional; a no-op keeps the resourceVersion', async () => {
    const c = (await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('u') })).body;
    const u1 = await t.call('PUT', '/api/v1/namespaces/default/configmaps/u', { body: { ...c, data: { a: '2' } } });
    expect(u1.status).toBe(200);
    expect(u1.body.data).toEqual({ a: '2' });
    expect(u1.body.metadata.uid).toBe(c.metadata.uid);
    expect(Number(u1.body.metadata.resourceVersion)).toBeGreaterThan(Number(c.metadata.resourceVersion));
    const stale = await t.call('PUT', '/api/v1/namespaces/default/configmaps/u', { body: { ...c, data: { a: '3' } } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again' });
    const uncond = await t.call('PUT', '/api/v1/namespaces/default/configmaps/u', { body: cm('u') });
    expect(uncond.status).toBe(200);
    expect(uncond.body.data).toEqual({ a: '1' });
    const noop = await t.call('PUT', '/api/v1/namespaces/default/configmaps/u', { body: uncond.body });
    expect(noop.body.metadata.resourceVersion).toBe(uncond.body.metadata.resourceVersion);
    const missing = await t.call('PUT', '/api/v1/namespaces/default/configmaps/zz', { body: cm('zz') });
    expect(missing.status).toBe(404);
    const nameMismatch = await t.call('PUT', '/api/v1/namespaces/default/configmaps/u', { body: cm('other') });
    expect(nameMismatch.status).toBe(400);
    expect(nameMismatch.body.message).toBe('the name of the object (other) does not match the name on the URL (u)');
  });

  test('patch: merge, JSON (with failing test op) and strategic merge', async () => {
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('p') });
    const merge = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/p', { body: { data: { b: '2' }, metadata: { labels: { x: 'y' } } }, contentType: 'application/merge-patch+json' });
    expect(merge.status).toBe(200);
    expect(merge.body.data).toEqual({ a: '1', b: '2' });
    const jp = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/p', { body: [{ op: 'replace', path: '/data/a', value: 'z' }], contentType: 'application/json-patch+json' });
    expect(jp.body.data.a).toBe('z');
    const failing = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/p', { body: [{ op: 'test', path: '/data/a', value: 'nope' }, { op: 'remove', path: '/data/a' }], contentType: 'application/json-patch+json' });
    expect(failing.status).toBe(422);
    expect((await t.call('GET', '/api/v1/namespaces/default/configmaps/p')).body.data.a).toBe('z');
    const smp = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/p', { body: { metadata: { labels: { x: null, w: 'v' } }, data: { b: null } }, contentType: 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(200);
    expect(smp.body.metadata.labels).toEqual({ w: 'v' });
    expect(smp.body.data).toEqual({ a: 'z' });
    const stale = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/p', { body: { metadata: { resourceVersion: '1' }, data: { c: '1' } }, contentType: 'application/merge-patch+json' });
    expect(stale.status).toBe(409);
    const missing = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/none', { body: {}, contentType: 'application/merge-patch+json' });
    expect(missing.status).toBe(404);
  });

  test('a uid in the body: a PUT precondition (409, checked before the resourceVersion), a PATCH changes an immutable field (422)', async () => {
    const c = (await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('uidp') })).body;
    const uid = c.metadata.uid;
    // PUT: kube's DefaultUpdatedObjectInfo.Preconditions takes the body's uid, storage checks it before the update runs.
    const put = await t.call('PUT', '/api/v1/namespaces/default/configmaps/uidp', { body: { ...c, metadata: { ...c.metadata, uid: 'abc', resourceVersion: '1' } } });
    expect(put.status).toBe(409);
    expect(put.body.message).toBe(`Operation cannot be fulfilled on configmaps "uidp": Precondition failed: UID in precondition: abc, UID in object meta: ${uid}`);
    // PATCH: no preconditions (the patcher passes no object); BeforeUpdate validates metadata.uid as immutable.
    for (const [contentType, body] of [
      ['application/merge-patch+json', { metadata: { uid: 'abc' } }],
      ['application/strategic-merge-patch+json', { metadata: { uid: 'abc' } }],
      ['application/json-patch+json', [{ op: 'replace', path: '/metadata/uid', value: 'abc' }]],
    ] as const) {
      const patched = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/uidp', { body, contentType });
      expect(patched.status).toBe(422);
      expect(patched.body).toMatchObject({ reason: 'Invalid', message: 'ConfigMap "uidp" is invalid: metadata.uid: Invalid value: "abc": field is immutable' });
      expect(patched.body.details.causes[0]).toEqual({ reason: 'FieldValueInvalid', message: 'Invalid value: "abc": field is immutable', field: 'metadata.uid' });
    }
    // A patch that drops the uid keeps the stored one (BeforeUpdate: "Use the existing UID if none is provided").
    const dropped = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/uidp', { body: { metadata: { uid: null }, data: { b: '2' } }, contentType: 'application/merge-patch+json' });
    expect(dropped.status).toBe(200);
    expect(dropped.body.metadata.uid).toBe(uid);
  });

  test('delete answers a Success Status; finalizers hold the object until removed', async () => {
    const c = (await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('d') })).body;
    const d = await t.call('DELETE', '/api/v1/namespaces/default/configmaps/d');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'd', kind: 'configmaps', uid: c.metadata.uid } });
    expect((await t.call('GET', '/api/v1/namespaces/default/configmaps/d')).status).toBe(404);
    expect((await t.call('DELETE', '/api/v1/namespaces/default/configmaps/d')).status).toBe(404);

    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('f', { finalizers: ['example.com/hold'] }) });
    const held = await t.call('DELETE', '/api/v1/namespaces/default/configmaps/f');
    expect(held.status).toBe(200);
    expect(held.body.kind).toBe('ConfigMap');
    expect(held.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await t.call('GET', '/api/v1/namespaces/default/configmaps/f')).status).toBe(200);
    const release = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/f', { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    expect(release.status).toBe(200);
    expect((await t.call('GET', '/api/v1/namespaces/default/configmaps/f')).status).toBe(404);

    const c2 = (await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('pre') })).body;
    const wrongUid = await t.call('DELETE', '/api/v1/namespaces/default/configmaps/pre', { body: { preconditions: { uid: 'nope' } } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toBe(`Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (nope) does not match the UID in record (${c2.metadata.uid}). The object might have been deleted and then recreated`);
  });

  test('list: kind, resourceVersion, paging with continue and remainingItemCount, selectors', async () => {
    for (let i = 0; i < 5; i++) {
      await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`l${i}`, { labels: { parity: i % 2 ? 'odd' : 'even' } }) });
    }
    const all = await t.call('GET', '/api/v1/namespaces/default/configmaps');
    expect(all.body.kind).toBe('ConfigMapList');
    expect(all.body.apiVersion).toBe('v1');
    expect(all.body.items.map((i: any) => i.metadata.name)).toEqual(['l0', 'l1', 'l2', 'l3', 'l4']);
    expect(all.body.items[0].kind).toBeUndefined();
    expect(all.body.metadata.continue).toBeUndefined();
    const p1 = await t.call('GET', '/api/v1/namespaces/default/configmaps?limit=2');
    expect(p1.body.items.map((i: any) => i.metadata.name)).toEqual(['l0', 'l1']);
    expect(p1.body.metadata.remainingItemCount).toBe(3);
    // A write between pages does not show up: pages are read at the first page's revision.
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('l11') });
    const p2 = await t.call('GET', `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
    expect(p2.body.items.map((i: any) => i.metadata.name)).toEqual(['l2', 'l3']);
    expect(p2.body.metadata.resourceVersion).toBe(p1.body.metadata.resourceVersion);
    const p3 = await t.call('GET', `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(p2.body.metadata.continue)}`);
    expect(p3.body.items.map((i: any) => i.metadata.name)).toEqual(['l4']);
    expect(p3.body.metadata.continue).toBeUndefined();
    const odd = await t.call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=parity%3Dodd&limit=1');
    expect(odd.body.items.map((i: any) => i.metadata.name)).toEqual(['l1']);
    expect(odd.body.metadata.remainingItemCount).toBeUndefined();
    expect(odd.body.metadata.continue).toBeTruthy();
    const byName = await t.call('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dl3');
    expect(byName.body.items.map((i: any) => i.metadata.name)).toEqual(['l3']);
    const badField = await t.call('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo%3Dx');
    expect(badField.status).toBe(400);
    // ConfigMaps have kube's default field label conversion, with its message.
    expect(badField.body.message).toBe('"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const allNs = await t.call('GET', '/api/v1/configmaps');
    expect(allNs.body.items.length).toBe(6);
  });

  test('list option errors are answered as kube does', async () => {
    const noRv = await t.call('GET', '/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact');
    expect(noRv.status).toBe(422);
    expect(noRv.body.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    const bogus = await t.call('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=1&resourceVersionMatch=Bogus');
    expect(bogus.status).toBe(422);
    expect(bogus.body.message).toContain('Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""');
    const cont = await t.call('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=5&continue=abc');
    expect(cont.status).toBe(400);
    // The token is decoded first (kube's storage.ValidateListOptions): "abc" is base64 of no JSON.
    expect(cont.body.message).toBe("invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value");
  });

  test('Table representation for kubectl', async () => {
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('tbl') });
    const tbl = await t.call('GET', '/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(tbl.body.kind).toBe('Table');
    expect(tbl.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(tbl.body.rows[0].cells.slice(0, 2)).toEqual(['tbl', 1]);
    expect(tbl.body.rows[0].object.kind).toBe('PartialObjectMetadata');
    const na = await t.call('GET', '/api/v1/namespaces/default/configmaps', { accept: 'application/vnd.example.unknown' });
    expect(na.status).toBe(406);
  });

  test('watch: ADDED, MODIFIED, DELETED in order; selectors turn leaving into DELETED', async () => {
    const c = (await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('w0') })).body;
    const all = openWatch(t.base, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${c.metadata.resourceVersion}`);
    const sel = openWatch(t.base, '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=app%3Dweb');
    await new Promise((r) => setTimeout(r, 200));
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('w1', { labels: { app: 'web' } }) });
    await t.call('PATCH', '/api/v1/namespaces/default/configmaps/w1', { body: { data: { b: '1' } }, contentType: 'application/merge-patch+json' });
    await t.call('PATCH', '/api/v1/namespaces/default/configmaps/w1', { body: { metadata: { labels: { app: 'db' } } }, contentType: 'application/merge-patch+json' });
    await t.call('DELETE', '/api/v1/namespaces/default/configmaps/w1');
    const evs = await all.waitFor(4);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(evs.every((e) => e.object.metadata.name === 'w1')).toBe(true);
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    const sevs = await sel.waitFor(3);
    expect(sevs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(sevs[2].object.metadata.labels).toEqual({ app: 'web' });
    await all.close();
    await sel.close();
    // Without a resourceVersion the watch starts with the current state.
    const fresh = openWatch(t.base, '/api/v1/namespaces/default/configmaps?watch=1');
    const init = await fresh.waitFor(1);
    expect(init[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w0' } } });
    await fresh.close();
  });

  test('namespace deletion: Terminating, contents removed, then the namespace is gone', async () => {
    const ns = await t.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } });
    expect(ns.status).toBe(201);
    expect(ns.body.status).toEqual({ phase: 'Active' });
    expect(ns.body.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });
    await t.call('POST', '/api/v1/namespaces/team/configmaps', { body: cm('inside') });
    const del = await t.call('DELETE', '/api/v1/namespaces/team');
    expect(del.status).toBe(200);
    expect(del.body.kind).toBe('Namespace');
    expect(del.body.status.phase).toBe('Terminating');
    const deadline = Date.now() + 10000;
    while ((await t.call('GET', '/api/v1/namespaces/team')).status !== 404) {
      if (Date.now() > deadline) throw new Error('namespace not removed');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await t.call('GET', '/api/v1/namespaces/team/configmaps/inside')).status).toBe(404);
    // A namespace whose content is held by a finalizer stays Terminating, and takes no new content.
    await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'held' } } });
    await t.call('POST', '/api/v1/namespaces/held/configmaps', { body: cm('pinned', { finalizers: ['example.com/hold'] }) });
    await t.call('DELETE', '/api/v1/namespaces/held');
    const refused = await t.call('POST', '/api/v1/namespaces/held/configmaps', { body: cm('late') });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ reason: 'Forbidden', message: 'configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated' });
    await t.call('PATCH', '/api/v1/namespaces/held/configmaps/pinned', { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    const gone = Date.now() + 10000;
    while ((await t.call('GET', '/api/v1/namespaces/held')).status !== 404) {
      if (Date.now() > gone) throw new Error('namespace held not removed after its content was released');
      await new Promise((r) => setTimeout(r, 100));
    }
    const immortal = await t.call('DELETE', '/api/v1/namespaces/default');
    expect(immortal.status).toBe(403);
    expect(immortal.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  test('deletecollection removes what the selector matches and answers the deleted list', async () => {
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dc1', { labels: { batch: 'x' } }) });
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dc2', { labels: { batch: 'x' } }) });
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('keep') });
    const r = await t.call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dx');
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('ConfigMapList');
    expect(r.body.items.map((i: any) => i.metadata.name).sort()).toEqual(['dc1', 'dc2']);
    const left = await t.call('GET', '/api/v1/namespaces/default/configmaps');
    expect(left.body.items.map((i: any) => i.metadata.name)).toEqual(['keep']);
    expect((await t.call('GET', '/livez')).text).toBe('ok');
    expect((await t.call('GET', '/readyz')).text).toBe('ok');
  });

  test('responses over 128 KiB are gzip-compressed for clients that accept it', async () => {
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { a: 'x'.repeat(200 * 1024) } } });
    await t.call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('small') });
    const http = await import('node:http');
    const raw = (path: string, enc?: string) => new Promise<{ headers: Record<string, unknown>; length: number }>((resolve, reject) => {
      http.get(t.base + path, { headers: enc ? { 'accept-encoding': enc } : {} }, (res) => {
        let length = 0;
        res.on('data', (d: Buffer) => (length += d.length));
        res.on('end', () => resolve({ headers: res.headers, length }));
      }).on('error', reject);
    });
    const zipped = await raw('/api/v1/namespaces/default/configmaps/big', 'gzip');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.length).toBeLessThan(20 * 1024);
    expect((await raw('/api/v1/namespaces/default/configmaps/big')).headers['content-encoding']).toBeUndefined();
    expect((await raw('/api/v1/namespaces/default/configmaps/small', 'gzip')).headers['content-encoding']).toBeUndefined();
    // fetch decompresses transparently: the body is intact.
    expect((await t.call('GET', '/api/v1/namespaces/default/configmaps/big')).body.data.a.length).toBe(200 * 1024);
  });

  test('unsupported verbs are 405', async () => {
    const r = await t.call('DELETE', '/api/v1/namespaces');
    expect(r.status).toBe(405);
    expect(r.body.reason).toBe('MethodNotAllowed');
  });
});
