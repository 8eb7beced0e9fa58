/**
 * Through the real stores: a default role edited on one start gets its rules back on the next
 * (kube's rbac/bootstrap-roles reconciliation); events.k8s.io lists select on `regarding.*`
 * (the served version's field labels, over core events in storage).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer } from './testing/client.js';

test('a default ClusterRole cut down between starts is reconciled on the next start; one marked autoupdate "false" is not', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const roles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
  const first = await startTestServer({ storage });
  const cut = [{ verbs: ['get'], nonResourceURLs: ['/custom'] }];
  expect((await first.call('PATCH', `${roles}/system:discovery`, { body: { rules: cut }, contentType: 'application/merge-patch+json' })).status).toBe(200);
  expect((await first.call('PATCH', `${roles}/system:basic-user`, {
    body: { metadata: { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: cut }, contentType: 'application/merge-patch+json',
  })).status).toBe(200);
  await first.close();

  const second = await startTestServer({ storage });
  try {
    const discovery = (await second.call('GET', `${roles}/system:discovery`)).body;
    expect(discovery.rules[0]).toEqual(cut[0]);
    expect(discovery.rules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/apis'] });
    expect((await second.call('GET', `${roles}/system:basic-user`)).body.rules).toEqual(cut);
  } finally {
    await second.close();
    await storage.close();
  }
});

test('events.k8s.io/v1 lists take regarding.* field selectors; core/v1 takes involvedObject.*', async () => {
  const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  try {
    for (const pod of ['a', 'b']) {
      const r = await t.call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
        body: { metadata: { name: `e-${pod}` }, eventTime: '2026-01-02T03:04:05.000000Z', reportingController: 'x.io/c', reportingInstance: 'i', action: 'Run', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', namespace: 'default', name: pod } },
      });
      expect(r.status).toBe(201);
    }
    const names = (r: { body: { items: Array<{ metadata: { name: string } }> } }) => r.body.items.map((i) => i.metadata.name);
    expect(names(await t.call('GET', '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Db'))).toEqual(['e-b']);
    expect(names(await t.call('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Da'))).toEqual(['e-a']);
    expect((await t.call('GET', '/api/v1/namespaces/default/events?fieldSelector=regarding.name%3Da')).status).toBe(400);
  } finally {
    await t.close();
  }
});
