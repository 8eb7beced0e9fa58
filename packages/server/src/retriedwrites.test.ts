/**
 * A store client that re-sends a write whose answer it lost (etcd3 retries after a broken
 * connection) sees the second attempt fail against the first one's result. The client of the
 * API must still get its write's success, not a 409 for a write that was applied.
 */
import { describeBackends } from '@windlass/storage/testing';
import type { Storage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';

/** The real store; each write is applied, then sent again, and the second answer is the one returned. */
function resending(storage: Storage): Storage {
  return new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'create') return async (key: string, value: Buffer) => { await target.create(key, value); return target.create(key, value); };
      if (prop === 'update') return async (key: string, value: Buffer, rev: number) => { await target.update(key, value, rev); return target.update(key, value, rev); };
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

  test('a create and an update applied by the first attempt answer success with the stored revision', async () => {
    const created = await t.call('POST', cms, { body: { metadata: { name: 'a' }, data: { v: '1' } } });
    expect(created.status).toBe(201);
    const stored = await ctx.storage.get(`${ctx.prefix}registry/configmaps/default/a`);
    expect(created.body.metadata.resourceVersion).toBe(String(stored!.modRevision));
    const updated = await t.call('PUT', `${cms}/a`, { body: { ...created.body, data: { v: '2' } } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ v: '2' });
    const after = await ctx.storage.get(`${ctx.prefix}registry/configmaps/default/a`);
    expect(updated.body.metadata.resourceVersion).toBe(String(after!.modRevision));
    // Someone else's object under the same name is still a 409.
    const again = await t.call('POST', cms, { body: { metadata: { name: 'a' }, data: { v: '3' } } });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('AlreadyExists');
  });
});
