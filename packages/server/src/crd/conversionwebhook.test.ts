/**
 * CRD conversion webhooks on both backends, called over HTTPS on a real webhook server with a test
 * CA: a v1 written is stored as v2 (the storage version) through the webhook and read back in
 * either version, lists and patches convert, and a webhook's failure or malformed answer is
 * kube's 500 "conversion webhook for … failed".
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, until, type TestServer } from '../testing/client.js';
import { startWebhookServer, testCertificates, type TestWebhookServer } from '../testing/webhookserver.js';

const group = 'conversion.example.com';
const tls = testCertificates([]);


/** v1 spells a backend as host and port, v2 as one endpoint string. */
function convert(obj: any, desired: string): any {
  const out = { ...obj, apiVersion: desired, spec: { ...obj.spec } };
  if (desired.endsWith('/v2') && obj.apiVersion.endsWith('/v1')) {
    out.spec = { endpoint: `${obj.spec.host}:${obj.spec.port}` };
  } else if (desired.endsWith('/v1') && obj.apiVersion.endsWith('/v2')) {
    const [host, port] = String(obj.spec.endpoint).split(':');
    out.spec = { host, port: Number(port) };
  }
  out.metadata = { ...obj.metadata, labels: { ...(obj.metadata.labels ?? {}), converted: 'true' } };
  return out;
}

describeBackends('CRD conversion webhooks', (ctx) => {
  let t: TestServer;
  let hooks: TestWebhookServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    hooks = await startWebhookServer(tls);
    hooks.handle('/convert', (review) => ({
      apiVersion: review.apiVersion, kind: 'ConversionReview',
      response: { uid: review.request.uid, result: { status: 'Success' }, convertedObjects: review.request.objects.map((o: any) => convert(o, review.request.desiredAPIVersion)) },
    }));
    const schema = (spec: Record<string, unknown>) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });
    const crd = {
      metadata: { name: `backends.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'backends', kind: 'Backend' },
        versions: [
          { name: 'v1', served: true, storage: false, schema: schema({ host: { type: 'string' }, port: { type: 'integer' } }) },
          { name: 'v2', served: true, storage: true, schema: schema({ endpoint: { type: 'string' } }) },
        ],
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: hooks.url('/convert'), caBundle: tls.caBundle } } },
      },
    };
    const res = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    expect(res.status).toBe(201);
    await until(async () => ((await t.call('GET', `/apis/${group}/v1/namespaces/default/backends`)).status === 200 ? true : undefined));
  });
  afterEach(async () => {
    await t.close();
    await hooks.close();
  });

  const v1 = `/apis/${group}/v1/namespaces/default/backends`;
  const v2 = `/apis/${group}/v2/namespaces/default/backends`;

  test('a watch of the other version gets every event converted by the webhook, in order', async () => {
    const w = openWatch(t.base, `${v1}?watch=true&resourceVersion=0`);
    for (const [name, endpoint] of [['a', 'a.local:1'], ['b', 'b.local:2']]) {
      expect((await t.call('POST', v2, { body: { apiVersion: `${group}/v2`, kind: 'Backend', metadata: { name }, spec: { endpoint } } })).status).toBe(201);
    }
    expect((await t.call('PATCH', `${v2}/a`, { body: { spec: { endpoint: 'a.local:3' } }, contentType: 'application/merge-patch+json' })).status).toBe(200);
    await w.waitFor(3);
    await w.close();
    // Written through the storage version, never read as v1 before: only the webhook knows v1's shape.
    expect(w.events.map((e: any) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec, e.object.metadata.labels?.converted])).toEqual([
      ['ADDED', `${group}/v1`, 'a', { host: 'a.local', port: 1 }, 'true'],
      ['ADDED', `${group}/v1`, 'b', { host: 'b.local', port: 2 }, 'true'],
      ['MODIFIED', `${group}/v1`, 'a', { host: 'a.local', port: 3 }, 'true'],
    ]);
  });

  test('write v1, read v2 and v1: the webhook converts both ways, keeping metadata but its labels', async () => {
    const created = await t.call('POST', v1, { body: { apiVersion: `${group}/v1`, kind: 'Backend', metadata: { name: 'db' }, spec: { host: 'db.local', port: 5432 } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: `${group}/v1`, spec: { host: 'db.local', port: 5432 } });
    const toStorage = hooks.received.get('/convert')![0];
    expect(toStorage).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: `${group}/v2` } });
    expect(toStorage.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(toStorage.request.objects).toHaveLength(1);
    expect(toStorage.request.objects[0]).toMatchObject({ apiVersion: `${group}/v1`, spec: { host: 'db.local', port: 5432 } });

    const stored = await t.call('GET', `${v2}/db`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ apiVersion: `${group}/v2`, kind: 'Backend', spec: { endpoint: 'db.local:5432' } });
    expect(stored.body.metadata.labels).toEqual({ converted: 'true' });
    expect(stored.body.metadata.uid).toBe(created.body.metadata.uid);

    const written = await t.call('POST', v2, { body: { apiVersion: `${group}/v2`, kind: 'Backend', metadata: { name: 'cache' }, spec: { endpoint: 'redis:6379' } } });
    expect(written.status).toBe(201);
    const read = await t.call('GET', `${v1}/cache`);
    expect(read.body).toMatchObject({ apiVersion: `${group}/v1`, spec: { host: 'redis', port: 6379 } });

    const list = await t.call('GET', v1);
    expect(list.body.items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec])).toEqual([
      [`${group}/v1`, 'cache', { host: 'redis', port: 6379 }],
      [`${group}/v1`, 'db', { host: 'db.local', port: 5432 }],
    ]);

    const patched = await t.call('PATCH', `${v1}/cache`, { body: { spec: { port: 6380 } }, contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.body.spec).toEqual({ host: 'redis', port: 6380 });
    expect((await t.call('GET', `${v2}/cache`)).body.spec).toEqual({ endpoint: 'redis:6380' });
  });

  test('a webhook that fails, or answers another review, is kube\'s 500 "conversion webhook for … failed"', async () => {
    expect((await t.call('POST', v2, { body: { apiVersion: `${group}/v2`, kind: 'Backend', metadata: { name: 'a' }, spec: { endpoint: 'x:1' } } })).status).toBe(201);
    hooks.handle('/convert', (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'cannot convert today' } } }));
    const failed = await t.call('GET', `${v1}/a`);
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ reason: 'InternalError', message: `Internal error occurred: conversion webhook for ${group}/v2, Kind=Backend failed: cannot convert today` });

    hooks.handle('/convert', (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: 'another', result: { status: 'Success' }, convertedObjects: [] } }));
    const wrongUID = await t.call('POST', v1, { body: { apiVersion: `${group}/v1`, kind: 'Backend', metadata: { name: 'b' }, spec: { host: 'h', port: 1 } } });
    expect(wrongUID.status).toBe(500);
    expect(wrongUID.body.message).toMatch(new RegExp(`^Internal error occurred: conversion webhook for ${group.replace(/\./g, '\\.')}/v1, Kind=Backend failed: expected response\\.uid="[0-9a-f-]{36}", got "another"$`));
    expect((await t.call('GET', `${v2}/b`)).status).toBe(404);

    hooks.handle('/convert', (review) => ({
      apiVersion: review.apiVersion, kind: 'ConversionReview',
      response: { uid: review.request.uid, result: { status: 'Success' }, convertedObjects: review.request.objects.map((o: any) => ({ ...convert(o, review.request.desiredAPIVersion), metadata: { ...o.metadata, name: 'renamed' } })) },
    }));
    const renamed = await t.call('GET', `${v1}/a`);
    expect(renamed.status).toBe(500);
    expect(renamed.body.message).toBe(`Internal error occurred: conversion webhook for ${group}/v2, Kind=Backend returned invalid object: must have the same name: a != renamed`);
  });
});
