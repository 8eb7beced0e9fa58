/**
 * The hooks a kind definition plugs into the generic Store: scheme defaulting, kube's two
 * admission phases, the status and scale subresources, and a version served by conversion
 * from the storage version — on test kinds, so that a wrong Store fails whatever the
 * built-in kinds' strategies do.
 */
import { describeBackends } from '@windlass/storage/testing';
import { fieldErr, newForbidden } from '@windlass/machinery';
import { builtinResources } from './registry/index.js';
import type { AdmissionAttributes, KubeObject, ResourceDefinition } from './registry/types.js';
import { startTestServer, openWatch, type TestServer } from './testing/client.js';

type Widget = KubeObject & { spec?: { size?: number; count?: number; color?: string }; status?: { ready?: number } };

const seen: Array<{ phase: string; operation: string; subresource: string; user: string; size?: number }> = [];

const base = {
  group: 'example.com', kind: 'Widget', listKind: 'WidgetList', resource: 'widgets', singularName: 'widget', namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  table: { columns: [], cells: () => [] },
  subresources: [
    { name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  ],
};

const v2: ResourceDefinition = {
  ...base, version: 'v2', generation: true,
  strategy: {
    nameValidator: () => [],
    defaults: (obj) => {
      const w = obj as Widget;
      w.spec ??= {};
      w.spec.color ??= 'blue';
    },
    prepareForCreate: (obj) => {
      (obj as Widget).status = { ready: 0 };
    },
    validate: (obj) => ((obj as Widget).spec?.size ?? 0) > 10 ? [fieldErr.invalid('spec.size', (obj as Widget).spec?.size, 'must be at most 10')] : [],
    validateUpdate: (obj) => ((obj as Widget).spec?.size ?? 0) > 10 ? [fieldErr.invalid('spec.size', (obj as Widget).spec?.size, 'must be at most 10')] : [],
  },
  scale: {
    specReplicas: (obj) => (obj as Widget).spec?.size ?? 0,
    statusReplicas: (obj) => (obj as Widget).status?.ready ?? 0,
    selector: () => 'app=widget',
    setSpecReplicas: (obj, n) => {
      ((obj as Widget).spec ??= {}).size = n;
    },
  },
  admission: [{
    name: 'Recorder',
    mutate: (a: AdmissionAttributes) => {
      seen.push({ phase: 'mutate', operation: a.operation, subresource: a.subresource, user: a.user.name, size: (a.obj as Widget).spec?.size });
      // A mutating plugin runs before validation: what it sets is validated.
      if ((a.obj as Widget).spec?.size === 7) (a.obj as Widget).spec!.size = 70;
    },
    validate: (a: AdmissionAttributes) => {
      seen.push({ phase: 'validate', operation: a.operation, subresource: a.subresource, user: a.user.name });
      if (a.obj.metadata.labels?.deny === 'true') throw newForbidden({ group: 'example.com', resource: 'widgets' }, a.obj.metadata.name ?? '', 'denied by test');
    },
  }],
};

/** v1 calls the size `count`; v2 (the storage version) `size`. */
const v1: ResourceDefinition = {
  ...base, version: 'v1',
  strategy: {
    nameValidator: () => [],
    defaults: (obj) => {
      const w = obj as Widget;
      w.spec ??= {};
      w.spec.count ??= 1;
    },
  },
  conversion: {
    storageVersion: 'v2',
    toStorage: (obj) => {
      const { count, ...rest } = (obj as Widget).spec ?? {};
      return { ...obj, apiVersion: 'example.com/v2', spec: { ...rest, size: count } };
    },
    fromStorage: (obj) => {
      const { size, ...rest } = (obj as Widget).spec ?? {};
      return { ...obj, apiVersion: 'example.com/v1', spec: { ...rest, count: size } };
    },
  },
};

const ns = '/apis/example.com/v2/namespaces/default/widgets';
const nsV1 = '/apis/example.com/v1/namespaces/default/widgets';

describeBackends('kind hooks', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    seen.length = 0;
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry', resources: [...builtinResources, v2, v1] });
    await t.server.bootstrap();
  });
  afterEach(() => t.close());

  test('create: defaults, then mutating admission, then validation (of what admission set), then validating admission', async () => {
    const ok = await t.call('POST', ns, { body: { metadata: { name: 'a' }, spec: { size: 2 }, status: { ready: 5 } } });
    expect(ok.status).toBe(201);
    // Defaults applied; status is the server's (reset, then set by prepareForCreate); generation 1.
    expect(ok.body).toMatchObject({ spec: { size: 2, color: 'blue' }, status: { ready: 0 }, metadata: { generation: 1 } });
    expect(seen.map((s) => `${s.phase} ${s.operation}`)).toEqual(['mutate CREATE', 'validate CREATE']);
    const mutated = await t.call('POST', ns, { body: { metadata: { name: 'b' }, spec: { size: 7 } } });
    expect(mutated.status).toBe(422);
    expect(mutated.body.message).toBe('Widget.example.com "b" is invalid: spec.size: Invalid value: 70: must be at most 10');
    const denied = await t.call('POST', ns, { body: { metadata: { name: 'c', labels: { deny: 'true' } }, spec: { size: 1 } } });
    expect(denied.status).toBe(403);
    expect((await t.call('GET', `${ns}/c`)).status).toBe(404);
  });

  test('status: a main-resource write keeps the stored status; a status write keeps spec, changes status; only spec changes bump generation', async () => {
    await t.call('POST', ns, { body: { metadata: { name: 'a' }, spec: { size: 2 } } });
    const st = await t.call('PATCH', `${ns}/a/status`, { body: { spec: { size: 9 }, status: { ready: 2 } }, contentType: 'application/merge-patch+json' });
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({ spec: { size: 2 }, status: { ready: 2 }, metadata: { generation: 1 } });
    expect(seen.filter((s) => s.operation === 'UPDATE').map((s) => s.subresource)).toEqual(['status', 'status']);
    const main = await t.call('PATCH', `${ns}/a`, { body: { spec: { size: 3 }, status: { ready: 9 } }, contentType: 'application/merge-patch+json' });
    expect(main.body).toMatchObject({ spec: { size: 3 }, status: { ready: 2 }, metadata: { generation: 2 } });
    const got = await t.call('GET', `${ns}/a/status`);
    expect(got.body).toMatchObject({ kind: 'Widget', spec: { size: 3 }, status: { ready: 2 } });
    expect((await t.call('POST', `${ns}/a/status`, { body: {} })).status).toBe(405);
  });

  test('scale: reads and writes the replicas through the kind, with kube\'s errors', async () => {
    await t.call('POST', ns, { body: { metadata: { name: 'a' }, spec: { size: 2 } } });
    const got = await t.call('GET', `${ns}/a/scale`);
    expect(got.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=widget' } });
    const put = await t.call('PUT', `${ns}/a/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'a' }, spec: { replicas: 4 } } });
    expect(put.body.spec.replicas).toBe(4);
    expect((await t.call('GET', `${ns}/a`)).body).toMatchObject({ spec: { size: 4 }, metadata: { generation: 2 } });
    const patched = await t.call('PATCH', `${ns}/a/scale`, { body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.spec.replicas).toBe(5);
    const negative = await t.call('PUT', `${ns}/a/scale`, { body: { metadata: { name: 'a' }, spec: { replicas: -1 } } });
    expect(negative.status).toBe(422);
    expect(negative.body.message).toBe('Scale.autoscaling "a" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const tooBig = await t.call('PUT', `${ns}/a/scale`, { body: { metadata: { name: 'a' }, spec: { replicas: 11 } } });
    expect(tooBig.status).toBe(422); // the kind's own validation applies to a scale write
    const stale = await t.call('PUT', `${ns}/a/scale`, { body: { metadata: { name: 'a', resourceVersion: '1' }, spec: { replicas: 1 } } });
    expect(stale.status).toBe(409);
    // The Scale's uid is a storage precondition (kube's scaleUpdatedObjectInfo.Preconditions), checked before its resourceVersion.
    const uid = got.body.metadata.uid;
    const otherUid = await t.call('PUT', `${ns}/a/scale`, { body: { metadata: { name: 'a', uid: 'abc', resourceVersion: '1' }, spec: { replicas: 1 } } });
    expect(otherUid.status).toBe(409);
    expect(otherUid.body.message).toBe(`Operation cannot be fulfilled on widgets.example.com "a": Precondition failed: UID in precondition: abc, UID in object meta: ${uid}`);
    const sameUid = await t.call('PUT', `${ns}/a/scale`, { body: { metadata: { name: 'a', uid }, spec: { replicas: 3 } } });
    expect(sameUid.status).toBe(200);
    expect(sameUid.body.spec.replicas).toBe(3);
    const missing = await t.call('GET', `${ns}/nope/scale`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('widgets/scale.example.com "nope" not found');
  });

  test('a version served by conversion: written, read, listed, patched and watched in its own form, stored in the storage version', async () => {
    const w = openWatch(t.base, `${nsV1}?watch=1`);
    const created = await t.call('POST', nsV1, { body: { metadata: { name: 'a' }, spec: { count: 3 } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'example.com/v1', spec: { count: 3 } });
    expect(created.body.spec.size).toBeUndefined();
    // Stored in v2's form; a v1 body gets v1's defaults only, as kube defaults on decoding.
    expect((await t.call('GET', `${ns}/a`)).body).toMatchObject({ apiVersion: 'example.com/v2', spec: { size: 3 } });
    expect((await t.call('GET', `${ns}/a`)).body.spec.color).toBeUndefined();
    const defaulted = await t.call('POST', nsV1, { body: { metadata: { name: 'b' } } });
    expect(defaulted.body.spec.count).toBe(1); // v1's defaults apply to v1 bodies
    const list = await t.call('GET', nsV1);
    expect(list.body.items.map((i: Widget) => i.spec?.count)).toEqual([3, 1]);
    const patched = await t.call('PATCH', `${nsV1}/a`, { body: { spec: { count: 5 } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.spec).toMatchObject({ count: 5 });
    const invalid = await t.call('PATCH', `${nsV1}/a`, { body: { spec: { count: 50 } }, contentType: 'application/merge-patch+json' });
    expect(invalid.status).toBe(422); // the storage version's validation
    const events = await w.waitFor(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'MODIFIED']);
    expect(events[2].object).toMatchObject({ apiVersion: 'example.com/v1', spec: { count: 5 } });
    await w.close();
  });
});
