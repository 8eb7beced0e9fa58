/**
 * The deletion lifecycle through the real kubectl, as against kube-apiserver 1.35 without a
 * kubelet: `kubectl delete pod` of a pod bound to a node marks it Terminating and, unless
 * --wait=false, waits for a removal only the kubelet (here: `--grace-period=0 --force`) makes;
 * `kubectl get -w` sees it MODIFIED then DELETED; `--cascade=foreground` removes ReplicaSets
 * made with ownerReferences before their Deployment (and waits for their terminating pods),
 * `--cascade=orphan` leaves them without the reference.
 */
import { spawn } from 'node:child_process';
import { eventually, kubectl, kubectlArgs, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const ns = 'graceful';
const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', ns, ...args]);
  kubectlOk(s.kubeconfig, ['create', 'namespace', ns]);
});

const podManifest = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name }, ...meta },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...extra },
});
const createPod = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => kubectlOk(s.kubeconfig, ['create', '-f', '-'], podManifest(name, extra, meta));
const exists = (what: string) => kubectl(s.kubeconfig, ['-n', ns, 'get', what]).code === 0;

/** `kubectl get -w` in the background: its lines as they arrive. */
function watchPods(): { lines: () => string[]; stop: () => Promise<void> } {
  const events = 'jsonpath={.type} {.object.metadata.name} {.object.metadata.deletionGracePeriodSeconds}{"\\n"}';
  const proc = spawn('kubectl', kubectlArgs(s.kubeconfig, ['-n', ns, 'get', 'pods', '--watch-only', '--output-watch-events', '-o', events]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    lines: () => out.split('\n').map((l) => l.trim()).filter(Boolean),
    stop: async () => {
      proc.kill();
      await exited;
    },
  };
}

test('a bound pod: delete --wait=false marks it Terminating for its grace period; waiting times out; --grace-period=0 --force removes it', async () => {
  createPod('web', { nodeName: 'node-1', terminationGracePeriodSeconds: 45 });
  const watch = watchPods();
  try {
    // The watch prints nothing before it has listed: label the pod until it reports a change.
    let probe = 0;
    expect(await eventually(() => {
      k('label', 'pod', 'web', `probe=${++probe}`, '--overwrite');
      return watch.lines().length > 0;
    }, 20_000, 300)).toBe(true);
    const started = Date.now();
    expect(k('delete', 'pod', 'web', '--wait=false')).toBe('pod "web" deleted\n');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(k('get', 'pod', 'web', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}')).toBe('45');
    const at = Date.parse(k('get', 'pod', 'web', '-o', 'jsonpath={.metadata.deletionTimestamp}'));
    expect((at - Date.now()) / 1000).toBeGreaterThan(35);
    expect(k('get', 'pod', 'web', '--no-headers').split(/\s+/)[2]).toBe('Terminating');

    // Without --wait=false kubectl waits for the removal, which never comes without a kubelet.
    const waited = kubectl(s.kubeconfig, ['-n', ns, 'delete', 'pod', 'web', '--timeout=2s']);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain('error: timed out waiting for the condition on pods/web');
    // The second delete asked for no shorter grace: nothing changed.
    expect(k('get', 'pod', 'web', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}')).toBe('45');

    // A shorter grace period moves the deletion forward.
    expect(k('delete', 'pod', 'web', '--grace-period=5', '--wait=false')).toBe('pod "web" deleted\n');
    expect(k('get', 'pod', 'web', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}')).toBe('5');

    const forced = kubectl(s.kubeconfig, ['-n', ns, 'delete', 'pod', 'web', '--grace-period=0', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe('pod "web" force deleted\n');
    expect(forced.stderr).toContain('Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated.');
    expect(exists('pod/web')).toBe(false);

    expect(await eventually(() => watch.lines().at(-1) === 'DELETED web 0', 10_000)).toBe(true);
    // Past the label probes (no deletion grace): marked Terminating, shortened, written with grace 0, removed.
    expect(watch.lines().filter((l) => l !== 'MODIFIED web')).toEqual(['MODIFIED web 45', 'MODIFIED web 5', 'MODIFIED web 0', 'DELETED web 0']);
  } finally {
    await watch.stop();
  }
});

test('a pod no node runs is deleted at once by a plain kubectl delete', () => {
  createPod('pending');
  const started = Date.now();
  expect(k('delete', 'pod', 'pending', '--timeout=20s')).toBe('pod "pending" deleted\n');
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(exists('pod/pending')).toBe(false);
});

/** What the Deployment controller would have made: the Deployment and two ReplicaSets owned by it with blockOwnerDeletion. */
function deploymentWithReplicaSets(name: string): string[] {
  k('create', 'deployment', name, '--image=nginx');
  const uid = k('get', 'deployment', name, '-o', 'jsonpath={.metadata.uid}');
  const names = [`${name}-a`, `${name}-b`];
  for (const rs of names) {
    kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify({
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: rs, labels: { app: name }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid, controller: true, blockOwnerDeletion: true }] },
      spec: { selector: { matchLabels: { app: rs } }, template: { metadata: { labels: { app: rs } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    }));
  }
  return names;
}

const replicaSets = (app: string) => k('get', 'replicasets', '-l', `app=${app}`, '-o', 'name').split('\n').filter(Boolean).sort();

test('delete deployment --cascade=foreground returns once the Deployment is gone, which happens only after its ReplicaSets', () => {
  deploymentWithReplicaSets('fg');
  expect(replicaSets('fg')).toEqual(['replicaset.apps/fg-a', 'replicaset.apps/fg-b']);
  expect(k('delete', 'deployment', 'fg', '--cascade=foreground', '--timeout=30s')).toBe('deployment.apps "fg" deleted\n');
  expect(exists('deployment/fg')).toBe(false);
  expect(replicaSets('fg')).toEqual([]);
});

test('delete deployment --cascade=orphan leaves its ReplicaSets without the owner reference', () => {
  deploymentWithReplicaSets('or');
  expect(k('delete', 'deployment', 'or', '--cascade=orphan', '--timeout=30s')).toBe('deployment.apps "or" deleted\n');
  expect(exists('deployment/or')).toBe(false);
  expect(replicaSets('or')).toEqual(['replicaset.apps/or-a', 'replicaset.apps/or-b']);
  for (const rs of ['or-a', 'or-b']) expect(k('get', 'replicaset', rs, '-o', 'jsonpath={.metadata.ownerReferences}')).toBe('');
});

test('--cascade=foreground waits for a terminating bound pod that blocks its owner; forcing the pod finishes the cascade', async () => {
  const [rs] = deploymentWithReplicaSets('chain');
  const rsUid = k('get', 'replicaset', rs, '-o', 'jsonpath={.metadata.uid}');
  createPod('chain-pod', { nodeName: 'node-1' }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: rsUid, controller: true, blockOwnerDeletion: true }] });

  expect(k('delete', 'deployment', 'chain', '--cascade=foreground', '--wait=false')).toBe('deployment.apps "chain" deleted\n');
  expect(await eventually(() => k('get', 'pod', 'chain-pod', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}') === '30', 15_000)).toBe(true);
  // The pod terminates; its ReplicaSet and the Deployment wait with the foregroundDeletion finalizer.
  expect(await eventually(() => !exists('replicaset/chain-b'), 15_000)).toBe(true);
  expect(k('get', 'replicaset', rs, '-o', 'jsonpath={.metadata.finalizers}')).toBe('["foregroundDeletion"]');
  expect(k('get', 'deployment', 'chain', '-o', 'jsonpath={.metadata.finalizers}')).toBe('["foregroundDeletion"]');

  expect(k('delete', 'pod', 'chain-pod', '--grace-period=0', '--force')).toBe('pod "chain-pod" force deleted\n');
  expect(await eventually(() => !exists('deployment/chain') && !exists(`replicaset/${rs}`), 15_000)).toBe(true);
});
