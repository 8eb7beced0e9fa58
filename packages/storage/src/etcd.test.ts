import { createStorage } from './create.js';
import { EtcdStorage } from './etcd.js';
import { supportsProgressRequests } from './etcd/version.js';
import { describeBackends } from './testing/backends.js';
import { startEtcd } from './testing/etcd.js';
import { freePort } from './testing/ports.js';
import { WatchRecorder } from './testing/recorder.js';
import { isStorageError } from './types.js';

/** Behaviour specific to the etcd backend; the shared contract is in contract.test.ts. */

test('progress requests are trusted only from etcd 3.4.31 / 3.5.13 on (etcd issue 15220)', () => {
  expect(supportsProgressRequests('3.4.23')).toBe(false);
  expect(supportsProgressRequests('3.4.30')).toBe(false);
  expect(supportsProgressRequests('3.4.31')).toBe(true);
  expect(supportsProgressRequests('3.5.12')).toBe(false);
  expect(supportsProgressRequests('3.5.13')).toBe(true);
  expect(supportsProgressRequests('3.6.0')).toBe(true);
  expect(supportsProgressRequests('3.3.27')).toBe(false);
  expect(supportsProgressRequests('v3.5.17')).toBe(true);
  expect(supportsProgressRequests('unknown')).toBe(false);
});

test('createStorage fails with Unavailable when nothing listens at the endpoint', async () => {
  const port = await freePort();
  const err = await createStorage({ backend: 'etcd', endpoints: [`http://127.0.0.1:${port}`] }).catch((e: unknown) => e);
  expect(isStorageError(err, 'Unavailable')).toBe(true);
  expect((err as Error).message).toContain(`cannot reach etcd at http://127.0.0.1:${port}`);
});

describeBackends(
  'etcd backend',
  (ctx) => {
    test('learns the server version and whether its progress answers can be trusted', () => {
      const s = ctx.storage as EtcdStorage;
      expect(s.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
      expect(s.supportsProgressRequests).toBe(supportsProgressRequests(s.serverVersion));
    });

    test('compactedRevision finds a compaction made through another client', async () => {
      const s = ctx.storage;
      const other = await ctx.open();
      const kv = await s.create(`${ctx.prefix}a`, Buffer.from('1'));
      await s.update(`${ctx.prefix}a`, Buffer.from('2'), kv.modRevision);
      await other.compact(kv.modRevision);
      expect(await s.compactedRevision()).toBe(kv.modRevision);
    });
  },
  { backends: ['etcd'] },
);

test('a watch ends with Unavailable when etcd goes away', async () => {
  const server = await startEtcd();
  const s = await EtcdStorage.connect({ endpoints: server.endpoints });
  try {
    const rec = new WatchRecorder();
    await s.watch('/registry/', 0, rec);
    await server.stop();
    const err = await rec.untilError();
    expect(isStorageError(err, 'Unavailable')).toBe(true);
  } finally {
    await s.close();
    await server.stop();
  }
});
