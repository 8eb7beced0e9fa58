/**
 * Through the real stores: what kube-apiserver creates at start besides namespaces and RBAC,
 * and how it treats them on the next start (missing ones come back, edited ones stay).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer } from './testing/client.js';

const pcs = '/apis/scheduling.k8s.io/v1/priorityclasses';
const cidrs = '/apis/networking.k8s.io/v1/servicecidrs';

test('system priority classes and the default ServiceCIDR exist after start; deleted ones (by deletecollection) are created again on the next start', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const first = await startTestServer({ storage });
  try {
    const list = (await first.call('GET', pcs)).body;
    expect(list.items.map((pc: any) => [pc.metadata.name, pc.value, pc.globalDefault ?? false, pc.preemptionPolicy, pc.description])).toEqual([
      ['system-cluster-critical', 2000000000, false, 'PreemptLowerPriority', 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
      ['system-node-critical', 2000001000, false, 'PreemptLowerPriority', 'Used for system critical pods that must not be moved from their current node.'],
    ]);
    const cidr = (await first.call('GET', `${cidrs}/kubernetes`)).body;
    expect(cidr.spec).toEqual({ cidrs: ['10.96.0.0/12'] });
    expect(cidr.status.conditions).toEqual([{ type: 'Ready', status: 'True', lastTransitionTime: expect.stringMatching(/Z$/), reason: '', message: 'Kubernetes default Service CIDR is ready' }]);
    // kube's priorityclass REST.Delete refuses them one by one; deletecollection goes through.
    const refused = await first.call('DELETE', `${pcs}/system-node-critical`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
    expect((await first.call('DELETE', pcs)).status).toBe(200);
    expect((await first.call('GET', pcs)).body.items).toEqual([]);
  } finally {
    await first.close();
  }
  const second = await startTestServer({ storage });
  try {
    expect((await second.call('GET', pcs)).body.items.map((pc: any) => pc.metadata.name)).toEqual(['system-cluster-critical', 'system-node-critical']);
  } finally {
    await second.close();
    await storage.close();
  }
});

test('the default ServiceCIDR follows --service-cluster-ip-range', async () => {
  const storage = new EmbeddedStorage({ path: ':memory:' });
  const t = await startTestServer({ storage, services: { clusterIPRange: '10.0.0.0/16', nodePortRange: { base: 30000, size: 2768 } } });
  try {
    expect((await t.call('GET', `${cidrs}/kubernetes`)).body.spec.cidrs).toEqual(['10.0.0.0/16']);
  } finally {
    await t.close();
    await storage.close();
  }
});
