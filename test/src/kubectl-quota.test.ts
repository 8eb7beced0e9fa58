/**
 * ResourceQuota enforcement as kubectl users see it on the real binary: `kubectl create quota`,
 * usage in `describe`, kube's refusal for what exceeds it, usage given back on delete, and a
 * server-side dry run that charges nothing.
 */
import { eventually, kubectl, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', 'team', ...args]);
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'team']);
});

const used = () => JSON.parse(k('get', 'quota', 'q', '-o', 'jsonpath={.status.used}') || '{}');

test('create quota, a second pod refused, a delete lets a new one in, a configmap limit, a dry run that charges nothing', async () => {
  expect(k('create', 'quota', 'q', '--hard=pods=1,configmaps=3')).toContain('resourcequota/q created');
  expect(await eventually(() => JSON.stringify(used()) === '{"configmaps":"0","pods":"0"}', 10000)).toBe(true);

  expect(k('run', 'first', '--image=nginx', '--restart=Never')).toContain('pod/first created');
  expect(used()).toEqual({ configmaps: '0', pods: '1' });
  const second = kubectl(s.kubeconfig, ['-n', 'team', 'run', 'second', '--image=nginx', '--restart=Never']);
  expect(second.code).not.toBe(0);
  expect(second.stderr.trim()).toBe('Error from server (Forbidden): pods "second" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
  expect(k('describe', 'quota', 'q')).toMatch(/Resource\s+Used\s+Hard\n-+\s+-+\s+-+\nconfigmaps\s+0\s+3\npods\s+1\s+1/);

  k('delete', 'pod', 'first', '--wait=false');
  expect(await eventually(() => used().pods === '0', 10000)).toBe(true);
  expect(k('run', 'third', '--image=nginx', '--restart=Never')).toContain('pod/third created');

  for (const name of ['a', 'b', 'c']) expect(k('create', 'configmap', name)).toContain(`configmap/${name} created`);
  const fourth = kubectl(s.kubeconfig, ['-n', 'team', 'create', 'configmap', 'd']);
  expect(fourth.stderr.trim()).toBe('error: failed to create configmap: configmaps "d" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=3, limited: configmaps=3');

  k('delete', 'configmap', 'a');
  expect(await eventually(() => used().configmaps === '2', 10000)).toBe(true);
  expect(k('create', 'configmap', 'd', '--dry-run=server')).toContain('configmap/d created (server dry run)');
  expect(used()).toEqual({ configmaps: '2', pods: '1' });
  expect(k('create', 'configmap', 'd')).toContain('configmap/d created');
  expect(used()).toEqual({ configmaps: '3', pods: '1' });
});
