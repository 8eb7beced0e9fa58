import { describeBackends, WatchRecorder } from '@windlass/storage/testing';
import type { Authenticator, UserInfo } from './apiserver.js';
import { compactKey } from './controllers/compactor.js';
import { openWatch, startTestServer, type TestServer } from './testing/client.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
const configmaps = '/api/v1/namespaces/default/configmaps';

/** Records the revisions the server's compaction hook is called with. */
function hookCalls(t: TestServer): number[] {
  const calls: number[] = [];
  const original = t.server.compacted.bind(t.server);
  t.server.compacted = (revision: number) => {
    calls.push(revision);
    original(revision);
  };
  return calls;
}

async function create(t: TestServer, name: string): Promise<number> {
  const r = await t.call('POST', configmaps, { body: cm(name) });
  expect(r.status).toBe(201);
  return Number(r.body.metadata.resourceVersion);
}

/** The 410s a client gets once `revision` is compacted away. */
async function expectGone(t: TestServer, revision: number): Promise<void> {
  const list = await t.call('GET', `${configmaps}?resourceVersion=${revision}&resourceVersionMatch=Exact`);
  expect(list.status).toBe(410);
  expect(list.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
  const w = openWatch(t.base, `${configmaps}?watch=1&resourceVersion=${revision}`);
  try {
    const [ev] = await w.waitFor(1);
    expect(ev.type).toBe('ERROR');
    expect(ev.object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(ev.object.message);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(revision);
    expect(Number(m![2])).toBeGreaterThan(revision);
  } finally {
    await w.close();
  }
}

/** Polls until `probe` holds; the timeout only bounds a failing test. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const users: Record<string, UserInfo> = {
  'Bearer admin-token': { name: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] },
  'Bearer alice-token': { name: 'alice', uid: 'alice-uid', groups: ['developers', 'system:authenticated'] },
};
const authenticator: Authenticator = { authenticate: (header) => (header ? users[header] ?? null : null) };

describeBackends('compaction through the API server', (ctx) => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  test('the periodic compactor compacts up to the previous turn; older reads then answer 410', async () => {
    const key = compactKey(`${ctx.prefix}registry`);
    const turns = new WatchRecorder();
    const watch = await ctx.storage.watch(key, (await ctx.storage.currentRevision()) + 1, turns);
    try {
      t = await startTestServer({ storage: ctx.storage, registryPrefix: `${ctx.prefix}registry`, compactionIntervalMs: 20 });
      const hook = hookCalls(t);
      const old = await create(t, 'old');
      await create(t, 'newer');
      // Wait for a turn that compacts past `old` (turns write the key, so revisions keep rising).
      await turns.until('a compaction past the first configmap', () => turns.received.some((e) => Number(e.value.toString()) > old + 1));
      const past = turns.received.find((e) => Number(e.value.toString()) > old + 1)!;
      const target = Number(past.value.toString());
      const i = turns.received.indexOf(past);
      // Each turn's target is the store revision at the previous turn: the key's revision then.
      expect(target).toBe(turns.received[i - 1].revision);
      expect(turns.received[0].value.toString()).toBe('0');
      await until(`the store compacted to ${target}`, async () => (await ctx.storage.compactedRevision()) >= target);
      // Never more than the last interval: compacted at most up to the key's latest target.
      const c = await ctx.storage.compactedRevision();
      const latest = await ctx.storage.get(key);
      expect(c).toBeLessThanOrEqual(Number(latest!.value.toString()));
      expect(Number(latest!.value.toString())).toBeLessThan(latest!.modRevision);
      expect(hook).toContain(target);
      await expectGone(t, old);
    } finally {
      watch.close();
    }
  });

  describe('POST /windlass/v1/compact', () => {
    const start = async (auth?: Authenticator) => {
      t = await startTestServer({ storage: ctx.storage, registryPrefix: `${ctx.prefix}registry`, compactionIntervalMs: 0, authenticator: auth });
      return t;
    };

    test('compacts up to the revision, calls the hook and answers a Success Status naming it', async () => {
      const t = await start();
      const hook = hookCalls(t);
      const old = await create(t, 'a');
      const target = await create(t, 'b');
      await create(t, 'c');
      const r = await t.call('POST', '/windlass/v1/compact', { body: { revision: target } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: String(target) }, status: 'Success', message: `compacted up to revision ${target}`, code: 200 });
      expect(await ctx.storage.compactedRevision()).toBe(target);
      expect(hook).toEqual([target]);
      await expectGone(t, old);
      // The compacted revision itself is still readable.
      const exact = await t.call('GET', `${configmaps}?resourceVersion=${target}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(200);
      expect(exact.body.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b']);
    });

    test('at or below the compacted revision: 409 Conflict naming the compacted revision', async () => {
      const t = await start();
      const first = await create(t, 'a');
      const target = await create(t, 'b');
      expect((await t.call('POST', '/windlass/v1/compact', { body: { revision: target } })).status).toBe(200);
      for (const revision of [target, first]) {
        const r = await t.call('POST', '/windlass/v1/compact', { body: { revision } });
        expect(r.status).toBe(409);
        expect(r.body).toEqual({
          kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: String(target) }, status: 'Failure', reason: 'Conflict', code: 409,
          message: `revision ${revision} is already compacted: the store is compacted up to revision ${target}`,
        });
      }
      expect(await ctx.storage.compactedRevision()).toBe(target);
    });

    test('a missing, malformed or future revision is 400 BadRequest and compacts nothing', async () => {
      const t = await start();
      await create(t, 'a');
      // Tests on etcd share one server, and a compaction is etcd-wide: compare with the state before.
      const before = await ctx.storage.compactedRevision();
      const current = await ctx.storage.currentRevision();
      const cases: [unknown, string][] = [
        [{ revision: current + 10 }, `revision ${current + 10} is in the future: the current revision is ${current}`],
        [{ revision: 0 }, 'revision must be a positive integer, got 0'],
        [{ revision: -3 }, 'revision must be a positive integer, got -3'],
        [{ revision: 1.5 }, 'revision must be a positive integer, got 1.5'],
        [{ revision: String(current) }, `revision must be a positive integer, got "${current}"`],
        [{}, 'revision is required: the request body must be a JSON object such as {"revision": 42}'],
        [[current], 'the request body must be a JSON object such as {"revision": 42}'],
        ['{"revision":', 'the request body must be a JSON object such as {"revision": 42}'],
      ];
      for (const [body, message] of cases) {
        const r = await t.call('POST', '/windlass/v1/compact', { body });
        expect({ body, status: r.status, reply: r.body }).toEqual({ body, status: 400, reply: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message } });
      }
      const empty = await t.call('POST', '/windlass/v1/compact');
      expect(empty.status).toBe(400);
      expect(await ctx.storage.compactedRevision()).toBe(before);
    });

    test('only those the authorizer allows may compact: others get 403 Forbidden, anonymous callers too, bad tokens 401', async () => {
      const t = await start(authenticator);
      const created = await t.call('POST', configmaps, { body: cm('a'), headers: { authorization: 'Bearer admin-token' } });
      const target = Number(created.body.metadata.resourceVersion);
      const before = await ctx.storage.compactedRevision();
      expect(before).toBeLessThan(target);

      const alice = await t.call('POST', '/windlass/v1/compact', { body: { revision: target }, headers: { authorization: 'Bearer alice-token' } });
      expect(alice.status).toBe(403);
      expect(alice.body).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: {},
        message: 'forbidden: User "alice" cannot post path "/windlass/v1/compact"',
      });
      const nobody = await t.call('POST', '/windlass/v1/compact', { body: { revision: target } });
      expect(nobody.status).toBe(403);
      expect(nobody.body.message).toBe('forbidden: User "system:anonymous" cannot post path "/windlass/v1/compact"');
      const stranger = await t.call('POST', '/windlass/v1/compact', { body: { revision: target }, headers: { authorization: 'Bearer nobody-token' } });
      expect(stranger.status).toBe(401);
      expect(stranger.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      expect(await ctx.storage.compactedRevision()).toBe(before);

      const admin = await t.call('POST', '/windlass/v1/compact', { body: { revision: target }, headers: { authorization: 'Bearer admin-token' } });
      expect(admin.status).toBe(200);
      expect(admin.body.status).toBe('Success');
      expect(await ctx.storage.compactedRevision()).toBe(target);
    });

    test('other methods are 405', async () => {
      const t = await start();
      const r = await t.call('GET', '/windlass/v1/compact');
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    });
  });
});
