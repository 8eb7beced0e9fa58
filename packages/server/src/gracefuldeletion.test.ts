/**
 * Graceful pod deletion over HTTP, on both backends, as kube 1.35's generic Store and pod
 * strategy do it (BeforeDelete, CheckGracefulDelete, updateForGracefulDeletionAndFinalizers):
 * a pod bound to a node is kept with deletionTimestamp = now + grace until deleted again with
 * grace 0, a second DELETE may only shorten the grace, unbound and finished pods go at once
 * (written with deletionTimestamp first, so watchers see MODIFIED then DELETED), preconditions,
 * DeleteOptions validation and dry runs answer as kube's.
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, type TestServer } from './testing/client.js';

const ns = 'grace';
const pods = `/api/v1/namespaces/${ns}/pods`;
const container = { name: 'app', image: 'nginx' };

describeBackends('graceful deletion', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
  });
  afterEach(() => t.close());

  async function pod(name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Promise<any> {
    const res = await t.call('POST', pods, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [container], ...spec } } });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
    return res.body;
  }
  const bound = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => pod(name, { nodeName: 'node-1', ...spec }, meta);
  const get = async (name: string) => t.call('GET', `${pods}/${name}`);
  /** Seconds from now to an RFC 3339 time (second precision, so within a second either way). */
  const secondsUntil = (ts: string) => (Date.parse(ts) - Date.now()) / 1000;

  test('a bound pod is kept terminating for its grace period; a second DELETE only shortens it; grace 0 removes it', async () => {
    const created = await bound('web');
    const watch = openWatch(t.base, `${pods}?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const res = await t.call('DELETE', `${pods}/web`);
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('Pod');
      expect(res.body.metadata.deletionGracePeriodSeconds).toBe(30);
      expect(secondsUntil(res.body.metadata.deletionTimestamp)).toBeGreaterThan(28);
      expect(secondsUntil(res.body.metadata.deletionTimestamp)).toBeLessThanOrEqual(30);
      // The first deletion request moves the generation on.
      expect(res.body.metadata.generation).toBe(created.metadata.generation + 1);
      const kept = (await get('web')).body;
      expect(kept.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
      expect(kept.metadata.deletionTimestamp).toBe(res.body.metadata.deletionTimestamp);
      const [modified] = await watch.waitFor(1);
      expect(modified.type).toBe('MODIFIED');
      expect(modified.object.metadata.deletionGracePeriodSeconds).toBe(30);

      // Again without a grace period, or with a longer one: pending, nothing written.
      for (const query of ['', '?gracePeriodSeconds=30', '?gracePeriodSeconds=60']) {
        const again = await t.call('DELETE', `${pods}/web${query}`);
        expect(again.status).toBe(200);
        expect(again.body.metadata.resourceVersion).toBe(kept.metadata.resourceVersion);
        expect(again.body.metadata.deletionGracePeriodSeconds).toBe(30);
      }
      // A shorter one moves deletionTimestamp back by the difference.
      const shorter = await t.call('DELETE', `${pods}/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 10 } });
      expect(shorter.status).toBe(200);
      expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(10);
      expect(Date.parse(kept.metadata.deletionTimestamp) - Date.parse(shorter.body.metadata.deletionTimestamp)).toBe(20_000);
      expect(shorter.body.metadata.generation).toBe(created.metadata.generation + 1);
      expect((await get('web')).body.metadata.deletionGracePeriodSeconds).toBe(10);

      // What the kubelet does once the containers stopped: grace 0 removes it.
      const force = await t.call('DELETE', `${pods}/web?gracePeriodSeconds=0`);
      expect(force.status).toBe(200);
      expect(force.body.kind).toBe('Pod');
      expect(force.body.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(secondsUntil(force.body.metadata.deletionTimestamp)).toBeLessThanOrEqual(0.01);
      expect((await get('web')).status).toBe(404);
      const events = await watch.waitFor(4);
      expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
      expect(events[2].object.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(events[3].object.metadata.deletionGracePeriodSeconds).toBe(0);
      // The answer is the removed object at the deletion's revision, as the DELETED event has it.
      expect(force.body.metadata.resourceVersion).toBe(events[3].object.metadata.resourceVersion);
    } finally {
      await watch.close();
    }
  });

  test('pods no kubelet runs (unbound) or that finished go at once, seen MODIFIED with deletionTimestamp then DELETED', async () => {
    const unbound = await pod('pending');
    const watch = openWatch(t.base, `${pods}?watch=1&resourceVersion=${unbound.metadata.resourceVersion}`);
    try {
      const res = await t.call('DELETE', `${pods}/pending?gracePeriodSeconds=45`);
      expect(res.status).toBe(200);
      expect(res.body.metadata.deletionGracePeriodSeconds).toBe(0);
      expect((await get('pending')).status).toBe(404);
      const events = await watch.waitFor(2);
      expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
      expect(events[0].object.metadata.deletionTimestamp).toEqual(expect.any(String));
      expect(events[0].object.metadata.deletionGracePeriodSeconds).toBe(0);
    } finally {
      await watch.close();
    }

    const done = await bound('done');
    const status = await t.call('PUT', `${pods}/done/status`, { body: { ...done, status: { ...done.status, phase: 'Succeeded' } } });
    expect(status.status).toBe(200);
    const finished = await t.call('DELETE', `${pods}/done`);
    expect(finished.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await get('done')).status).toBe(404);
  });

  test('the grace period: the pod\'s terminationGracePeriodSeconds, the request\'s, negative as one second', async () => {
    await bound('short', { terminationGracePeriodSeconds: 5 });
    expect((await t.call('DELETE', `${pods}/short`)).body.metadata.deletionGracePeriodSeconds).toBe(5);
    await bound('asked');
    expect((await t.call('DELETE', `${pods}/asked?gracePeriodSeconds=7`)).body.metadata.deletionGracePeriodSeconds).toBe(7);
    await bound('negative');
    const negative = await t.call('DELETE', `${pods}/negative`, { body: { gracePeriodSeconds: -5 } });
    expect(negative.status).toBe(200);
    expect(negative.body.metadata.deletionGracePeriodSeconds).toBe(1);
    // Shortening a deletion whose time has passed keeps one second (someone still makes the final delete).
    const late = await t.call('DELETE', `${pods}/negative?gracePeriodSeconds=-1`);
    expect(late.body.metadata.deletionGracePeriodSeconds).toBe(1);
  });

  test('preconditions and DeleteOptions answer with kube\'s messages', async () => {
    const p = await bound('guarded');
    const uid = await t.call('DELETE', `${pods}/guarded`, { body: { preconditions: { uid: 'not-the-uid' } } });
    expect(uid.status).toBe(409);
    expect(uid.body).toMatchObject({ reason: 'Conflict', details: { name: 'guarded', kind: 'Pod' } });
    expect(uid.body.message).toBe(`Operation cannot be fulfilled on Pod "guarded": the UID in the precondition (not-the-uid) does not match the UID in record (${p.metadata.uid}). The object might have been deleted and then recreated`);
    const rv = await t.call('DELETE', `${pods}/guarded`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toBe(`Operation cannot be fulfilled on Pod "guarded": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${p.metadata.resourceVersion}). The object might have been modified`);
    // Matching preconditions with grace 0: the write and the removal both happen.
    const ok = await t.call('DELETE', `${pods}/guarded`, { body: { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion } } });
    expect(ok.status).toBe(200);
    expect((await get('guarded')).status).toBe(404);

    await bound('opts');
    const both = await t.call('DELETE', `${pods}/opts?orphanDependents=true&propagationPolicy=Background`);
    expect(both.status).toBe(422);
    expect(both.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set');
    const policy = await t.call('DELETE', `${pods}/opts?propagationPolicy=Later`);
    expect(policy.status).toBe(422);
    expect(policy.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"');
    const dry = await t.call('DELETE', `${pods}/opts?dryRun=Some`);
    expect(dry.status).toBe(422);
    expect(dry.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    expect((await get('opts')).body.metadata.deletionTimestamp).toBeUndefined();
  });

  test('dryRun=All answers what a graceful or a forced delete would do and writes nothing', async () => {
    const p = await bound('dry');
    const graceful = await t.call('DELETE', `${pods}/dry?dryRun=All`);
    expect(graceful.status).toBe(200);
    expect(graceful.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(graceful.body.metadata.deletionTimestamp).toEqual(expect.any(String));
    const forced = await t.call('DELETE', `${pods}/dry?dryRun=All&gracePeriodSeconds=0`);
    expect(forced.status).toBe(200);
    expect(forced.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const after = (await get('dry')).body;
    expect(after.metadata.resourceVersion).toBe(p.metadata.resourceVersion);
    expect(after.metadata.deletionTimestamp).toBeUndefined();

    // On a terminating pod, a dry-run shortening leaves it as it was.
    const real = (await t.call('DELETE', `${pods}/dry`)).body;
    const dryShort = await t.call('DELETE', `${pods}/dry?dryRun=All&gracePeriodSeconds=3`);
    expect(dryShort.body.metadata.deletionGracePeriodSeconds).toBe(3);
    expect((await get('dry')).body.metadata).toMatchObject({ resourceVersion: real.metadata.resourceVersion, deletionGracePeriodSeconds: 30 });
  });

  test('finalizers and grace together: removing the finalizers during the grace period does not remove the pod; after grace 0 it does', async () => {
    await bound('held', {}, { finalizers: ['example.com/hold'] });
    const first = await t.call('DELETE', `${pods}/held`);
    expect(first.body.metadata).toMatchObject({ deletionGracePeriodSeconds: 30, finalizers: ['example.com/hold'] });
    let current = (await get('held')).body;
    const released = await t.call('PUT', `${pods}/held`, { body: { ...current, metadata: { ...current.metadata, finalizers: [] } } });
    expect(released.status).toBe(200);
    // Still in its grace period: whoever terminates it makes the final delete.
    current = (await get('held')).body;
    expect(current.metadata.finalizers).toBeUndefined();
    expect(current.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await t.call('DELETE', `${pods}/held?gracePeriodSeconds=0`)).status).toBe(200);
    expect((await get('held')).status).toBe(404);

    // Grace 0 with a finalizer: kept at grace 0 until the finalizer goes, then removed by that update.
    await bound('held2', {}, { finalizers: ['example.com/hold'] });
    const forced = await t.call('DELETE', `${pods}/held2?gracePeriodSeconds=0`);
    expect(forced.status).toBe(200);
    expect(forced.body.metadata).toMatchObject({ deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    current = (await get('held2')).body;
    expect(current.metadata.deletionGracePeriodSeconds).toBe(0);
    const patch = await t.call('PATCH', `${pods}/held2`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    expect(patch.status).toBe(200);
    expect((await get('held2')).status).toBe(404);
  });

  test('a terminating pod: new finalizers and changed deletion fields are refused, status writes go on, it stays', async () => {
    await bound('term', {}, { finalizers: ['example.com/a'] });
    await t.call('DELETE', `${pods}/term`);
    const current = (await get('term')).body;
    const added = await t.call('PUT', `${pods}/term`, { body: { ...current, metadata: { ...current.metadata, finalizers: ['example.com/a', 'example.com/b'] } } });
    expect(added.status).toBe(422);
    expect(added.body.message).toBe('Pod "term" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}');
    const grace = await t.call('PUT', `${pods}/term`, { body: { ...current, metadata: { ...current.metadata, deletionGracePeriodSeconds: 5 } } });
    expect(grace.status).toBe(422);
    expect(grace.body.message).toBe('Pod "term" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable');
    // Leaving both out keeps them; a different deletionTimestamp is not an update's to set.
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, ...rest } = current.metadata;
    const omitted = await t.call('PUT', `${pods}/term`, { body: { ...current, metadata: { ...rest, labels: { x: 'y' } } } });
    expect(omitted.status).toBe(200);
    expect(omitted.body.metadata).toMatchObject({ deletionTimestamp: current.metadata.deletionTimestamp, deletionGracePeriodSeconds: 30, labels: { x: 'y' } });
    const moved = await t.call('PUT', `${pods}/term`, { body: { ...omitted.body, metadata: { ...omitted.body.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } } });
    expect(moved.status).toBe(200);
    expect(moved.body.metadata.deletionTimestamp).toBe(current.metadata.deletionTimestamp);
    // The kubelet's status writes.
    const status = await t.call('PUT', `${pods}/term/status`, { body: { ...moved.body, status: { ...moved.body.status, phase: 'Running' } } });
    expect(status.status).toBe(200);
    expect(status.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await get('term')).body.status.phase).toBe('Running');

    // A live pod cannot be given a deletionTimestamp or a grace period by an update.
    const live = await bound('live');
    const stamped = await t.call('PUT', `${pods}/live`, { body: { ...live, metadata: { ...live.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } } });
    expect(stamped.status).toBe(422);
    expect(stamped.body.message).toBe('Pod "live" is invalid: metadata.deletionTimestamp: Invalid value: "2030-01-01T00:00:00Z": field is immutable');
    // A status write that sends one has it dropped (the pod status strategy), as kube does.
    const statusStamped = await t.call('PUT', `${pods}/live/status`, { body: { ...live, metadata: { ...live.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } } });
    expect(statusStamped.status).toBe(200);
    expect(statusStamped.body.metadata.deletionTimestamp).toBeUndefined();
  });

  test('orphanDependents=false on an object that is kept is answered 202; Foreground on a pod keeps both grace and finalizer', async () => {
    await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cm', finalizers: ['example.com/hold'] } } });
    const kept = await t.call('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm?orphanDependents=false`);
    expect(kept.status).toBe(202);
    expect(kept.body.metadata.finalizers).toEqual(['example.com/hold']);
    await pod('plain');
    // Removed at once: 200 even with orphanDependents=false.
    expect((await t.call('DELETE', `${pods}/plain?orphanDependents=false`)).status).toBe(200);

    await bound('fg');
    const fg = await t.call('DELETE', `${pods}/fg?propagationPolicy=Foreground`);
    expect(fg.status).toBe(200);
    expect(fg.body.metadata).toMatchObject({ finalizers: ['foregroundDeletion'], deletionGracePeriodSeconds: 30 });
  });

  test('deletecollection: bound pods terminate, unbound go, the answer is the list as listed', async () => {
    await bound('c-bound', {}, { labels: { set: 'c' } });
    await pod('c-unbound', {}, { labels: { set: 'c' } });
    await pod('c-other');
    const res = await t.call('DELETE', `${pods}?labelSelector=set%3Dc`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('PodList');
    expect(res.body.metadata.resourceVersion).toEqual(expect.any(String));
    expect(res.body.items.map((p: any) => p.metadata.name).sort()).toEqual(['c-bound', 'c-unbound']);
    for (const item of res.body.items) {
      expect(item.kind).toBeUndefined();
      expect(item.metadata.deletionTimestamp).toBeUndefined();
    }
    expect((await get('c-bound')).body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await get('c-unbound')).status).toBe(404);
    expect((await get('c-other')).status).toBe(200);
    // gracePeriodSeconds applies to each.
    expect((await t.call('DELETE', `${pods}?labelSelector=set%3Dc&gracePeriodSeconds=0`)).status).toBe(200);
    expect((await get('c-bound')).status).toBe(404);
  });

  test('eviction deletes with the eviction\'s DeleteOptions grace period', async () => {
    await bound('evicted');
    const res = await t.call('POST', `${pods}/evicted/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted' }, deleteOptions: { gracePeriodSeconds: 12 } } });
    expect(res.status).toBe(201);
    expect((await get('evicted')).body.metadata.deletionGracePeriodSeconds).toBe(12);
  });
});
