/**
 * kubectl's `--cascade` against the in-process garbage collector, on the real binary:
 * foreground waits until the Deployment's ReplicaSet and pods are gone and then the Deployment,
 * orphan leaves the ReplicaSet without its owner reference, background (the default) removes
 * the owner at once and its dependents after it.
 */
import { eventually, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', 'cascade', ...args]);
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'cascade']);
});

/** What the Deployment and ReplicaSet controllers would have made: a ReplicaSet and two pods, each owned with blockOwnerDeletion. */
function tree(name: string): void {
  k('create', 'deployment', name, '--image=nginx');
  const ref = (kind: string, owner: string, uid: string) => ({ apiVersion: 'apps/v1', kind, name: owner, uid, controller: true, blockOwnerDeletion: true });
  const deployUid = k('get', 'deployment', name, '-o', 'jsonpath={.metadata.uid}');
  const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } };
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `${name}-1`, labels: { app: name }, ownerReferences: [ref('Deployment', name, deployUid)] }, spec: { selector: { matchLabels: { app: name } }, template } };
  kubectlOk(s.kubeconfig, ['-n', 'cascade', 'create', '-f', '-'], JSON.stringify(rs));
  const rsUid = k('get', 'replicaset', `${name}-1`, '-o', 'jsonpath={.metadata.uid}');
  for (const suffix of ['a', 'b']) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-1-${suffix}`, labels: { app: name }, ownerReferences: [ref('ReplicaSet', `${name}-1`, rsUid)] }, spec: template.spec };
    kubectlOk(s.kubeconfig, ['-n', 'cascade', 'create', '-f', '-'], JSON.stringify(pod));
  }
}

const names = (what: string, selector: string) => k('get', what, '-l', selector, '-o', 'name').split('\n').filter(Boolean).sort();

test('delete --cascade=foreground waits for the dependents, then the owner is gone', () => {
  tree('fg');
  expect(names('replicasets,pods', 'app=fg')).toEqual(['pod/fg-1-a', 'pod/fg-1-b', 'replicaset.apps/fg-1']);
  expect(k('delete', '--cascade=foreground', 'deployment', 'fg', '--timeout=30s')).toMatch(/^deployment.apps "fg" deleted/);
  // kubectl returned once the Deployment was gone, which the collector allows only after its dependents.
  expect(names('deployments,replicasets,pods', 'app=fg')).toEqual([]);
});

test('delete --cascade=orphan keeps the ReplicaSet without its owner reference; the default cascade removes dependents', async () => {
  tree('or');
  expect(k('delete', '--cascade=orphan', 'deployment', 'or', '--timeout=30s')).toMatch(/^deployment.apps "or" deleted/);
  expect(names('replicasets', 'app=or')).toEqual(['replicaset.apps/or-1']);
  expect(k('get', 'replicaset', 'or-1', '-o', 'jsonpath={.metadata.ownerReferences}')).toBe('');

  expect(k('delete', 'replicaset', 'or-1')).toMatch(/^replicaset.apps "or-1" deleted/);
  expect(await eventually(() => names('pods', 'app=or').length === 0, 15000)).toBe(true);
});
