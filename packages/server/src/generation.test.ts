/**
 * metadata.generation moves only when the spec changes as kube's semantic DeepEqual sees it: the
 * stored form spells out what Go writes for empty structs and lists, so a PUT of the minimal
 * manifest a client was given, with its keys in any order, is no spec change.
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'g' } } });
});
afterAll(async () => {
  await t.close();
});

const kinds = [
  {
    path: '/apis/apps/v1/namespaces/g/deployments',
    minimal: () => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } as Record<string, unknown>,
      spec: {
        template: { spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { app: 'web' } } },
        selector: { matchLabels: { app: 'web' } },
      },
    }),
  },
  {
    path: '/api/v1/namespaces/g/replicationcontrollers',
    minimal: () => ({
      apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web' } as Record<string, unknown>,
      spec: { template: { spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { app: 'web' } } }, selector: { app: 'web' } },
    }),
  },
];

test.each(kinds)('$path: a PUT of the same minimal spec leaves the generation; a real change moves it once', async ({ path, minimal }) => {
  const created = await t.call('POST', path, { body: minimal() });
  expect(created.status).toBe(201);
  expect(created.body.metadata.generation).toBe(1);
  // The stored form holds what the body left out.
  expect(created.body.spec.template.spec.containers[0].resources).toEqual({});
  expect(created.body.spec.template.metadata.creationTimestamp).toBeNull();

  const body = minimal();
  body.metadata.resourceVersion = created.body.metadata.resourceVersion;
  const same = await t.call('PUT', `${path}/web`, { body });
  expect(same.status).toBe(200);
  expect(same.body.metadata.generation).toBe(1);

  const changed = structuredClone(same.body);
  changed.spec.template.spec.containers[0].image = 'nginx:2';
  const moved = await t.call('PUT', `${path}/web`, { body: changed });
  expect(moved.status).toBe(200);
  expect(moved.body.metadata.generation).toBe(2);

  // Scaling is a spec change too.
  const scaled = structuredClone(moved.body);
  scaled.spec.replicas = 3;
  expect((await t.call('PUT', `${path}/web`, { body: scaled })).body.metadata.generation).toBe(3);
});
