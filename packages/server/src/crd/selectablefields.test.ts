/**
 * CRD selectableFields (GA in 1.32) as field selectors, on both backends: list and watch select
 * on the declared paths (strings, integers, booleans as Go prints them; '' when absent), a
 * field no version declares is kube's 400, and a field only another version declares is that
 * version's alone, though both share one cache.
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, type TestServer } from '../testing/client.js';

const group = 'shapes.example.com';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `shapes.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'shapes', kind: 'Shape' },
    versions: [
      {
        name: 'v1', served: true, storage: true,
        selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.sides' }, { jsonPath: '.spec.filled' }],
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, sides: { type: 'integer' }, filled: { type: 'boolean' }, owner: { type: 'string' } } } } } },
      },
      {
        name: 'v2', served: true, storage: false,
        selectableFields: [{ jsonPath: '.spec.owner' }],
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, sides: { type: 'integer' }, filled: { type: 'boolean' }, owner: { type: 'string' } } } } } },
      },
    ],
  },
};
const v1 = `/apis/${group}/v1/namespaces/default/shapes`;
const v2 = `/apis/${group}/v2/namespaces/default/shapes`;

describeBackends('CRD selectableFields', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    await t.server.bootstrap();
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    for (let i = 0; i < 200 && (await t.call('GET', v1)).status !== 200; i++) await new Promise((r) => setTimeout(r, 25));
  });
  afterEach(() => t.close());

  const shape = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name }, spec });
  const names = async (path: string, selector: string) => {
    const r = await t.call('GET', `${path}?fieldSelector=${encodeURIComponent(selector)}`);
    expect(r.status).toBe(200);
    return r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
  };

  test('lists and watches select on the declared fields', async () => {
    for (const s of [shape('red-square', { color: 'red', sides: 4, filled: true, owner: 'ann' }), shape('blue-triangle', { color: 'blue', sides: 3, filled: false }), shape('plain', {})]) {
      expect((await t.call('POST', v1, { body: s })).status).toBe(201);
    }
    expect(await names(v1, 'spec.color=red')).toEqual(['red-square']);
    expect(await names(v1, 'spec.sides=3')).toEqual(['blue-triangle']);
    expect(await names(v1, 'spec.filled=true')).toEqual(['red-square']);
    expect(await names(v1, 'spec.color!=red,metadata.name!=plain')).toEqual(['blue-triangle']);
    // An absent field selects as the empty value.
    expect(await names(v1, 'spec.color=')).toEqual(['plain']);
    // v2 declares only spec.owner: its own field works through the shared cache, v1's do not.
    expect(await names(v2, 'spec.owner=ann')).toEqual(['red-square']);
    const notV2 = await t.call('GET', `${v2}?fieldSelector=spec.color%3Dred`);
    expect(notV2.status).toBe(400);
    expect(notV2.body.message).toBe('field label not supported: spec.color');
    const undeclared = await t.call('GET', `${v1}?fieldSelector=spec.owner%3Dann`);
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.message).toBe('field label not supported: spec.owner');

    const w = openWatch(t.base, `${v1}?watch=true&fieldSelector=spec.color%3Dgreen&resourceVersion=0`);
    expect((await t.call('POST', v1, { body: shape('green-circle', { color: 'green', sides: 0 }) })).status).toBe(201);
    expect((await t.call('POST', v1, { body: shape('other', { color: 'purple' }) })).status).toBe(201);
    // Repainting it leaves the selection: the watch reports it deleted, as kube's cacher does.
    expect((await t.call('PATCH', `${v1}/green-circle`, { body: { spec: { color: 'black' } }, contentType: 'application/merge-patch+json' })).status).toBe(200);
    await w.waitFor(2);
    await w.close();
    expect(w.events.map((e: { type: string; object: { metadata: { name: string } } }) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'green-circle'], ['DELETED', 'green-circle']]);
  });
});
