/**
 * ResourceQuota enforcement over HTTP: the quota controller fills status.hard and status.used,
 * admission refuses what exceeds it with kube's Status and charges what it admits, deletes
 * give usage back, dry runs charge nothing.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from './testing/client.js';

const ns = '/api/v1/namespaces/quota';
const pod = (name: string, cpu?: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(cpu ? { resources: { requests: { cpu } } } : {}) }] },
});
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

describeBackends('resource quota enforcement', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    expect((await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status).toBe(201);
  });
  afterEach(() => t.close());

  /** The quota's status once `ok` holds (the controller works in the background). */
  async function statusWhen(name: string, ok: (status: any) => boolean): Promise<any> {
    let status: any;
    for (let i = 0; i < 100; i++) {
      status = (await t.call('GET', `${ns}/resourcequotas/${name}`)).body.status;
      if (status && ok(status)) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`quota ${name} never reached the expected status: ${JSON.stringify(status)}`);
  }
  const used = (want: Record<string, string>) => (s: any) => JSON.stringify(s.used) === JSON.stringify(want);

  test('kubectl create quota: usage appears, the second pod is refused, a delete lets a new one in, dry runs charge nothing', async () => {
    // What `kubectl create quota q --hard=pods=1,configmaps=3` sends.
    expect((await t.call('POST', `${ns}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1', configmaps: '3' } } } })).status).toBe(201);
    expect(await statusWhen('q', (s) => s.used !== undefined)).toEqual({ hard: { configmaps: '3', pods: '1' }, used: { configmaps: '0', pods: '0' } });

    expect((await t.call('POST', `${ns}/pods`, { body: pod('first') })).status).toBe(201);
    expect((await t.call('GET', `${ns}/resourcequotas/q`)).body.status.used).toEqual({ configmaps: '0', pods: '1' });
    const refused = await t.call('POST', `${ns}/pods`, { body: pod('second') });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods "second" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
      details: { name: 'second', kind: 'pods' },
    });
    expect((await t.call('GET', `${ns}/pods/second`)).status).toBe(404);

    // A refused dry run and an admitted one alike leave usage alone.
    expect((await t.call('POST', `${ns}/pods?dryRun=All`, { body: pod('dry') })).status).toBe(403);
    expect((await t.call('DELETE', `${ns}/pods/first`)).status).toBe(200);
    await statusWhen('q', used({ configmaps: '0', pods: '0' }));
    expect((await t.call('POST', `${ns}/pods?dryRun=All`, { body: pod('dry') })).status).toBe(201);
    expect((await t.call('GET', `${ns}/resourcequotas/q`)).body.status.used).toEqual({ configmaps: '0', pods: '0' });
    expect((await t.call('POST', `${ns}/pods`, { body: pod('third') })).status).toBe(201);
    expect((await t.call('GET', `${ns}/resourcequotas/q`)).body.status.used).toEqual({ configmaps: '0', pods: '1' });

    for (const name of ['a', 'b', 'c']) expect((await t.call('POST', `${ns}/configmaps`, { body: configMap(name) })).status).toBe(201);
    const fourth = await t.call('POST', `${ns}/configmaps`, { body: configMap('d') });
    expect(fourth.status).toBe(403);
    expect(fourth.body.message).toBe('configmaps "d" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=3, limited: configmaps=3');
    // Raising hard: the controller copies it to status at once, usage unchanged.
    const q = (await t.call('GET', `${ns}/resourcequotas/q`)).body;
    q.spec.hard.configmaps = '4';
    expect((await t.call('PUT', `${ns}/resourcequotas/q`, { body: q })).status).toBe(200);
    await statusWhen('q', (s) => s.hard.configmaps === '4');
    expect((await t.call('POST', `${ns}/configmaps`, { body: configMap('d') })).status).toBe(201);
    expect((await t.call('GET', `${ns}/resourcequotas/q`)).body.status.used).toEqual({ configmaps: '4', pods: '1' });
  });

  test('compute quotas: requests summed, pods without requests refused, terminal pods give theirs back', async () => {
    await t.call('POST', `${ns}/resourcequotas`, { body: { metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'count/deployments.apps': '0' } } } });
    await statusWhen('compute', (s) => s.used !== undefined);
    expect((await t.call('POST', `${ns}/pods`, { body: pod('a', '600m') })).status).toBe(201);
    const missing = await t.call('POST', `${ns}/pods`, { body: pod('b') });
    expect(missing.body.message).toBe('pods "b" is forbidden: failed quota: compute: must specify requests.cpu for: app');
    const over = await t.call('POST', `${ns}/pods`, { body: pod('b', '500m') });
    expect(over.body.message).toBe('pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } } };
    expect((await t.call('POST', '/apis/apps/v1/namespaces/quota/deployments', { body: deployment })).body.message)
      .toBe('deployments.apps "web" is forbidden: exceeded quota: compute, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0');
    // A pod that finished no longer holds its requests.
    await t.call('PATCH', `${ns}/pods/a/status`, { body: { status: { phase: 'Succeeded' } }, contentType: 'application/merge-patch+json' });
    await statusWhen('compute', used({ 'count/deployments.apps': '0', 'requests.cpu': '0' }));
    expect((await t.call('POST', `${ns}/pods`, { body: pod('b', '500m') })).status).toBe(201);
  });

  test('concurrent creates never take more than hard', async () => {
    await t.call('POST', `${ns}/resourcequotas`, { body: { metadata: { name: 'q' }, spec: { hard: { configmaps: '5' } } } });
    await statusWhen('q', (s) => s.used !== undefined);
    const codes = await Promise.all(Array.from({ length: 12 }, (_, i) => t.call('POST', `${ns}/configmaps`, { body: configMap(`cm-${i}`) }).then((r) => r.status)));
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 403)).toHaveLength(7);
    expect((await t.call('GET', `${ns}/configmaps`)).body.items).toHaveLength(5);
    expect((await t.call('GET', `${ns}/resourcequotas/q`)).body.status.used).toEqual({ configmaps: '5' });
  });
});
