/**
 * API Priority and Fairness's bootstrap configuration, through the real stores: the objects
 * kube-apiserver 1.35 creates at start, their Dangling condition, and the ensurer's rules on the
 * next start (missing ones come back, a changed mandatory spec is restored, a changed suggested
 * one is kept).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer } from './testing/client.js';

const fs = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const pl = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';

test('the mandatory and suggested FlowSchemas and PriorityLevelConfigurations, and what the next start restores', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const first = await startTestServer({ storage });
  try {
    const schemas = (await first.call('GET', fs)).body.items;
    expect(schemas.map((s: any) => [s.metadata.name, s.spec.priorityLevelConfiguration.name, s.spec.matchingPrecedence, s.spec.distinguisherMethod?.type ?? null])).toEqual([
      ['catch-all', 'catch-all', 10000, 'ByUser'],
      ['exempt', 'exempt', 1, null],
      ['global-default', 'global-default', 9900, 'ByUser'],
      ['kube-controller-manager', 'workload-high', 800, 'ByNamespace'],
      ['kube-scheduler', 'workload-high', 800, 'ByNamespace'],
      ['kube-system-service-accounts', 'workload-high', 900, 'ByNamespace'],
      ['probes', 'exempt', 2, null],
      ['service-accounts', 'workload-low', 9000, 'ByUser'],
      ['system-leader-election', 'leader-election', 100, 'ByUser'],
      ['system-node-high', 'node-high', 400, 'ByUser'],
      ['system-nodes', 'system', 500, 'ByUser'],
    ]);
    for (const s of schemas) {
      expect(s.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
      expect(s.status.conditions).toEqual([{
        type: 'Dangling', status: 'False', reason: 'Found', lastTransitionTime: expect.stringMatching(/Z$/),
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${s.spec.priorityLevelConfiguration.name}" and it exists`,
      }]);
    }
    const probes = schemas.find((s: any) => s.metadata.name === 'probes');
    expect(probes.spec.rules).toEqual([{
      subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
    }]);

    const levels = (await first.call('GET', pl)).body.items;
    expect(levels.map((l: any) => [l.metadata.name, l.spec.type, l.spec.limited?.nominalConcurrencyShares ?? l.spec.exempt?.nominalConcurrencyShares, l.spec.limited?.lendablePercent ?? l.spec.exempt?.lendablePercent, l.spec.limited?.limitResponse.queuing ?? null])).toEqual([
      ['catch-all', 'Limited', 5, 0, null],
      ['exempt', 'Exempt', 0, 0, null],
      ['global-default', 'Limited', 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }],
      ['leader-election', 'Limited', 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }],
      ['node-high', 'Limited', 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }],
      ['system', 'Limited', 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }],
      ['workload-high', 'Limited', 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }],
      ['workload-low', 'Limited', 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }],
    ]);
    expect((await first.call('GET', `${pl}/catch-all`)).body.spec.limited.limitResponse).toEqual({ type: 'Reject' });

    // An administrator's changes: a mandatory and a suggested spec edited, a suggested object deleted.
    const catchAll = (await first.call('GET', `${fs}/catch-all`)).body;
    catchAll.spec.matchingPrecedence = 9999;
    expect((await first.call('PUT', `${fs}/catch-all`, { body: catchAll })).status).toBe(200);
    const global = (await first.call('GET', `${fs}/global-default`)).body;
    global.spec.matchingPrecedence = 9800;
    expect((await first.call('PUT', `${fs}/global-default`, { body: global })).status).toBe(200);
    expect((await first.call('DELETE', `${fs}/probes`)).status).toBe(200);
  } finally {
    await first.close();
  }
  const second = await startTestServer({ storage });
  try {
    expect((await second.call('GET', `${fs}/catch-all`)).body.spec.matchingPrecedence).toBe(10000);
    expect((await second.call('GET', `${fs}/global-default`)).body.spec.matchingPrecedence).toBe(9800);
    expect((await second.call('GET', `${fs}/probes`)).status).toBe(200);
  } finally {
    await second.close();
    await storage.close();
  }
});
