/**
 * Protobuf answers (spec 2.7, 4.3), on both backends, read by a decoder built from the
 * reference generated.proto tables rather than by the server's own codec: objects, lists,
 * watch frames, Status errors, metadata-only and Table representations, discovery, and the
 * fallback and 406 of custom resources, which have no protobuf form.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from './testing/client.js';
import { readReferenceEnvelope, readReferenceWatchFrames } from './testing/protoreference.js';
import { negotiate } from './negotiation.js';

const pb = 'application/vnd.kubernetes.protobuf';
const ns = '/api/v1/namespaces/default';

async function getBytes(t: TestServer, path: string, accept: string): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await fetch(t.base + path, { headers: { accept } });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

const seconds = (rfc3339: string) => Date.parse(rfc3339) / 1000;

describeBackends('protobuf answers', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    await t.server.bootstrap();
    const created = await t.call('POST', `${ns}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', labels: { b: '2', a: '1' } }, data: { mode: 'fast' }, binaryData: { blob: Buffer.from([0, 255]).toString('base64') } },
      headers: { 'user-agent': 'pbtest/1.0' },
    });
    expect(created.status).toBe(201);
    expect((await t.call('POST', `${ns}/configmaps`, { body: { metadata: { name: 'cfg-2' }, data: { n: '2' } } })).status).toBe(201);
  });
  afterEach(() => t.close());

  test('an object: its kind\'s message in the envelope, every field as the JSON answer has it', async () => {
    const json = (await t.call('GET', `${ns}/configmaps/cfg`)).body;
    const got = await getBytes(t, `${ns}/configmaps/cfg`, pb);
    expect(got.status).toBe(200);
    expect(got.contentType).toBe(pb);
    const env = readReferenceEnvelope(got.body);
    expect([env.apiVersion, env.kind, env.contentType]).toEqual(['v1', 'ConfigMap', '']);
    const cm = env.message('k8s.io.api.core.v1.ConfigMap');
    expect(cm.metadata.name).toBe('cfg');
    expect(cm.metadata.namespace).toBe('default');
    expect(cm.metadata.uid).toBe(json.metadata.uid);
    expect(cm.metadata.resourceVersion).toBe(json.metadata.resourceVersion);
    expect(cm.metadata.creationTimestamp.seconds).toBe(seconds(json.metadata.creationTimestamp));
    expect(cm.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(cm.data).toEqual({ mode: 'fast' });
    expect(cm.binaryData.blob).toEqual(Buffer.from([0, 255]));
    // managedFields: FieldsV1 travels as its JSON bytes, the time as a Timestamp.
    const entry = cm.metadata.managedFields[0];
    expect(entry.manager).toBe('pbtest');
    expect(JSON.parse(Buffer.from(entry.fieldsV1.Raw).toString())).toEqual(json.metadata.managedFields[0].fieldsV1);
    expect(entry.time.seconds).toBe(seconds(json.metadata.managedFields[0].time));
  });

  test('int-or-string, quantities, embedded structs and pointers set to zero', async () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m' } }, readinessProbe: { httpGet: { path: '/', port: 'http' } } }], volumes: [{ name: 'v', configMap: { name: 'cfg' } }] } };
    const d = await t.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template, strategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: '10%' } } } },
    });
    expect(d.status).toBe(201);
    const env = readReferenceEnvelope((await getBytes(t, '/apis/apps/v1/namespaces/default/deployments/web', pb)).body);
    const dep = env.message('k8s.io.api.apps.v1.Deployment');
    // replicas: 0 is a pointer set to zero; it must be on the wire, or Go reads nil (1 replica).
    expect(dep.spec.replicas).toBe(0);
    expect(dep.spec.strategy.rollingUpdate.maxSurge).toEqual({ type: 0, intVal: 2, strVal: '' });
    expect(dep.spec.strategy.rollingUpdate.maxUnavailable).toEqual({ type: 1, intVal: 0, strVal: '10%' });
    const pod = dep.spec.template.spec;
    expect(pod.containers[0].resources.limits.cpu).toEqual({ string: '500m' });
    expect(pod.containers[0].readinessProbe.handler.httpGet.port).toEqual({ type: 1, intVal: 0, strVal: 'http' });
    expect(pod.volumes[0].volumeSource.configMap.localObjectReference.name).toBe('cfg');
  });

  test('a list: the kind\'s list message with every item, and its resourceVersion', async () => {
    const json = (await t.call('GET', `${ns}/configmaps`)).body;
    const env = readReferenceEnvelope((await getBytes(t, `${ns}/configmaps`, `${pb}, application/json`)).body);
    expect([env.apiVersion, env.kind]).toEqual(['v1', 'ConfigMapList']);
    const list = env.message('k8s.io.api.core.v1.ConfigMapList');
    expect(list.metadata.resourceVersion).toBe(json.metadata.resourceVersion);
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(json.items.map((i: any) => i.metadata.name));
    expect(list.items.find((i: any) => i.metadata.name === 'cfg-2').data).toEqual({ n: '2' });
  });

  test('errors are protobuf Statuses when protobuf was negotiated', async () => {
    const got = await getBytes(t, `${ns}/configmaps/missing`, `${pb}, application/json`);
    expect(got.status).toBe(404);
    expect(got.contentType).toBe(pb);
    const env = readReferenceEnvelope(got.body);
    expect([env.apiVersion, env.kind]).toEqual(['v1', 'Status']);
    const status = env.message('k8s.io.apimachinery.pkg.apis.meta.v1.Status');
    expect(status).toMatchObject({ status: 'Failure', reason: 'NotFound', code: 404, message: 'configmaps "missing" not found', details: { name: 'missing', kind: 'configmaps' } });
  });

  test('a watch: length-prefixed WatchEvents whose raw is the object\'s envelope', async () => {
    const start = (await t.call('GET', `${ns}/configmaps`)).body.metadata.resourceVersion;
    const ctrl = new AbortController();
    const res = await fetch(`${t.base}${ns}/configmaps?watch=true&resourceVersion=${start}`, { headers: { accept: pb }, signal: ctrl.signal });
    expect(res.headers.get('content-type')).toBe(`${pb};stream=watch`);
    const reader = res.body!.getReader();
    let stream = Buffer.alloc(0);
    await t.call('POST', `${ns}/configmaps`, { body: { metadata: { name: 'watched' }, data: { v: '1' } } });
    await t.call('PATCH', `${ns}/configmaps/watched`, { body: { data: { v: '2' } }, contentType: 'application/merge-patch+json' });
    await t.call('DELETE', `${ns}/configmaps/watched`);
    let frames: ReturnType<typeof readReferenceWatchFrames> = [];
    while (frames.length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      stream = Buffer.concat([stream, Buffer.from(value)]);
      frames = readReferenceWatchFrames(stream);
    }
    ctrl.abort();
    expect(frames.map((f) => f.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const objects = frames.map((f) => f.object.message('k8s.io.api.core.v1.ConfigMap'));
    expect(frames.every((f) => f.object.kind === 'ConfigMap' && f.object.apiVersion === 'v1')).toBe(true);
    expect(objects.map((o) => o.data.v)).toEqual(['1', '2', '2']);
    expect(new Set(objects.map((o) => o.metadata.resourceVersion)).size).toBe(3);
  });

  test('the initial-events-end bookmark of a streaming list is a protobuf frame too', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${t.base}${ns}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, { headers: { accept: pb }, signal: ctrl.signal });
    const reader = res.body!.getReader();
    let stream = Buffer.alloc(0);
    let frames: ReturnType<typeof readReferenceWatchFrames> = [];
    while (!frames.some((f) => f.type === 'BOOKMARK')) {
      const { value, done } = await reader.read();
      if (done) break;
      stream = Buffer.concat([stream, Buffer.from(value)]);
      frames = readReferenceWatchFrames(stream);
    }
    ctrl.abort();
    const names = frames.filter((f) => f.type === 'ADDED').map((f) => f.object.message('k8s.io.api.core.v1.ConfigMap').metadata.name);
    expect(names).toEqual(expect.arrayContaining(['cfg', 'cfg-2']));
    const bookmark = frames.find((f) => f.type === 'BOOKMARK')!.object.message('k8s.io.api.core.v1.ConfigMap');
    expect(bookmark.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(bookmark.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  test('metadata-only lists and Tables in protobuf', async () => {
    const meta = await getBytes(t, `${ns}/configmaps`, `${pb};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`);
    expect(meta.status).toBe(200);
    const env = readReferenceEnvelope(meta.body);
    expect([env.apiVersion, env.kind]).toEqual(['meta.k8s.io/v1', 'PartialObjectMetadataList']);
    const list = env.message('k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList');
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(expect.arrayContaining(['cfg', 'cfg-2']));
    // kube's Table has no protobuf message: the spec serves it anyway, its JSON inside the envelope.
    const table = await getBytes(t, `${ns}/configmaps/cfg`, `${pb};as=Table;g=meta.k8s.io;v=v1`);
    expect(table.status).toBe(200);
    const tenv = readReferenceEnvelope(table.body);
    expect([tenv.kind, tenv.contentType]).toEqual(['Table', 'application/json']);
    const doc = JSON.parse(Buffer.from(tenv.raw).toString());
    expect(doc.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(doc.rows[0].cells[0]).toBe('cfg');
  });

  test('discovery documents and review answers in protobuf', async () => {
    const env = readReferenceEnvelope((await getBytes(t, '/api/v1', pb)).body);
    expect(env.kind).toBe('APIResourceList');
    const resources = env.message('k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList');
    const configmaps = resources.resources.find((r: any) => r.name === 'configmaps');
    expect(configmaps.verbs.items).toEqual(expect.arrayContaining(['create', 'get', 'list', 'watch']));
    expect(configmaps.shortNames).toEqual(['cm']);
    // Newer kubectl and client-go ask for aggregated discovery as protobuf first.
    const aggregated = await fetch(`${t.base}/apis`, { headers: { accept: `${pb};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json` } });
    expect(aggregated.headers.get('content-type')).toBe(`${pb};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`);
    const groups = readReferenceEnvelope(Buffer.from(await aggregated.arrayBuffer())).message('k8s.io.api.apidiscovery.v2.APIGroupDiscoveryList');
    const apps = groups.items.find((g: any) => g.metadata.name === 'apps');
    const deployments = apps.versions[0].resources.find((r: any) => r.resource === 'deployments');
    expect(deployments.responseKind).toEqual({ group: '', version: '', kind: 'Deployment' });
    expect(deployments.subresources.map((r: any) => r.subresource)).toEqual(expect.arrayContaining(['scale', 'status']));
    const review = await fetch(`${t.base}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: pb },
      body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }),
    });
    expect(review.status).toBe(201);
    const sar = readReferenceEnvelope(Buffer.from(await review.arrayBuffer())).message('k8s.io.api.authorization.v1.SelfSubjectAccessReview');
    expect(sar.spec.resourceAttributes).toMatchObject({ verb: 'get', resource: 'pods' });
    expect(typeof sar.status.allowed).toBe('boolean');
  });

  test('a YAML watch is 406 listing the stream types; an unknown type lists every type', async () => {
    const yaml = await t.call('GET', `${ns}/configmaps?watch=true`, { accept: 'application/yaml' });
    expect(yaml.status).toBe(406);
    expect(yaml.body.message).toBe(`only the following media types are accepted: application/json;stream=watch, ${pb};stream=watch`);
    const html = await t.call('GET', `${ns}/configmaps`, { accept: 'text/html' });
    expect(html.status).toBe(406);
    expect(html.body.message).toBe(`only the following media types are accepted: application/json, application/yaml, ${pb}`);
  });
});

test('custom resources have no protobuf form: a fallback is taken, protobuf alone is 406', () => {
  expect(negotiate(`${pb}, application/json`, { protobuf: false }).mediaType).toBe('application/json');
  expect(() => negotiate(pb, { protobuf: false })).toThrow('only the following media types are accepted: application/json, application/yaml');
  expect(negotiate(`${pb}, application/json`, { protobuf: true }).mediaType).toBe(pb);
  expect(negotiate(`${pb};stream=watch`, { protobuf: true, watch: true }).mediaType).toBe(pb);
});
