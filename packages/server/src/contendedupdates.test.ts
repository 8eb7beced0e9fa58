/**
 * Writers contending on one object: updates conditional on the same resourceVersion, sent
 * together. Exactly one wins; every other answers kube's 409, and those arriving while the
 * winner's write is in flight get it without sending their own compare-and-swap to the store
 * (registry/inflightwrites.ts). A write in flight that fails lets the next one through.
 * The store is real; its updates are only held back so the others arrive while one is in flight.
 */
import { describeBackends } from '@windlass/storage/testing';
import type { Storage } from '@windlass/storage';
import { InFlightWrites } from './registry/inflightwrites.js';
import { startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';

/**
 * The real store, with its conditional updates counted and held back `delayMs` before they
 * are sent, so that the other contenders arrive while the first is in flight.
 */
function countingUpdates(storage: Storage, delayMs: number) {
  const counts = { update: 0 };
  const proxy = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'update') {
        return async (...args: Parameters<Storage['update']>) => {
          counts.update++;
          await new Promise((r) => setTimeout(r, delayMs));
          return target.update(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { storage: proxy, counts };
}

describe('InFlightWrites', () => {
  test('an update conditional on the revision an update in flight expects is superseded once that one is written', async () => {
    const t = new InFlightWrites();
    let settle!: (v: unknown) => void;
    const write = new Promise((r) => { settle = r; });
    expect(t.track('/k', 7, write)).toBe(write);
    const same = t.superseded('/k', 7);
    expect(t.superseded('/k', 6)).toBe(false);
    expect(t.superseded('/other', 7)).toBe(false);
    settle({ modRevision: 8 });
    expect(await same).toBe(true);
    // Answered: nothing is in flight any more.
    expect(t.superseded('/k', 7)).toBe(false);
  });

  test('a failed write in flight supersedes nothing', async () => {
    const t = new InFlightWrites();
    let fail!: (e: unknown) => void;
    const write = new Promise((_, rej) => { fail = rej; });
    void t.track('/k', 3, write).catch(() => undefined);
    const waiting = t.superseded('/k', 3);
    fail(new Error('conflict'));
    expect(await waiting).toBe(false);
  });
});

describeBackends('updates contending on one object', (ctx) => {
  let server: TestServer;
  let counts: { update: number };
  beforeEach(async () => {
    const c = countingUpdates(ctx.storage, 300);
    counts = c.counts;
    server = await startTestServer({ storage: c.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(async () => {
    await server.close();
  });

  test('one of 16 updates from the same resourceVersion wins; the rest are 409 without reaching the store', async () => {
    const created = (await server.call('POST', cms, { body: { metadata: { name: 'hot' }, data: { n: '0' } } })).body;
    for (let round = 1; round <= 5; round++) {
      const current = (await server.call('GET', `${cms}/hot`)).body;
      const before = counts.update;
      const answers = await Promise.all(Array.from({ length: 16 }, (_, w) =>
        server.call('PUT', `${cms}/hot`, { body: { ...current, data: { n: String(round), writer: String(w) } } })));
      // Only the first sent its compare-and-swap: the others waited for it and knew they lost.
      expect(counts.update - before).toBe(1);
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(409);
        expect(a.body.reason).toBe('Conflict');
        expect(a.body.message).toBe('Operation cannot be fulfilled on configmaps "hot": the object has been modified; please apply your changes to the latest version and try again');
      }
      const after = (await server.call('GET', `${cms}/hot`)).body;
      expect(after.data).toEqual(won[0].body.data);
      expect(after.metadata.resourceVersion).toBe(won[0].body.metadata.resourceVersion);
      expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(current.metadata.resourceVersion));
    }
    expect(created.metadata.name).toBe('hot');
  });
});
