/**
 * A store client that re-sends a create whose answer it lost sees the second attempt fail
 * against the first one's result; the API's client must still get its create's success (a
 * create's bytes carry a fresh uid, so they identify it). An update has no such mark: two
 * writers that compute the same bytes from the same state are two writes, and compare-and-swap
 * must let only one of them through on that state.
 */
import { describeBackends } from '@windlass/storage/testing';
import type { Storage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';

/** The real store; each create is applied, then sent again, and the second answer is the one returned. */
function resending(storage: Storage): Storage {
  return new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'create') return async (key: string, value: Buffer) => { await target.create(key, value); return target.create(key, value); };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describeBackends('writes re-sent by the store client', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: resending(ctx.storage), registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(async () => {
    await t.close();
  });

  test('a create applied by the first attempt answers success with the stored revision', async () => {
    const created = await t.call('POST', cms, { body: { metadata: { name: 'a' }, data: { v: '1' } } });
    expect(created.status).toBe(201);
    const stored = await ctx.storage.get(`${ctx.prefix}registry/configmaps/default/a`);
    expect(created.body.metadata.resourceVersion).toBe(String(stored!.modRevision));
    // Someone else's object under the same name is still a 409.
    const again = await t.call('POST', cms, { body: { metadata: { name: 'a' }, data: { v: '3' } } });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('AlreadyExists');
  });

  test('updates that compute the same bytes from the same state are two writes: each is applied on the other\'s result', async () => {
    await t.call('POST', cms, { body: { metadata: { name: 'n' }, data: { n: '0' } } });
    const store = t.server.storeFor('', 'v1', 'configmaps')!;
    // A counter: every update reads n and writes n+1, so ten concurrent ones must end at 10.
    const bump = () => store.guaranteedUpdate('default', 'n', (cm) => ({ ...cm, data: { n: String(Number((cm as any).data.n) + 1) } }), { dryRun: false });
    await Promise.all(Array.from({ length: 10 }, bump));
    expect((await t.call('GET', `${cms}/n`)).body.data.n).toBe('10');
  });
});
