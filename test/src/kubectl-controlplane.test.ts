/**
 * What kube-apiserver keeps about itself, as kubectl shows it: the `kubernetes` Endpoints and
 * EndpointSlice listing each replica's --advertise-address and secure port, the automanaged
 * APIServices (Local, Available) for every built-in group version and for CRDs, and the
 * identity Lease in kube-system. A local `windlass start` (loopback) lists no endpoints and says
 * nothing about it; replicas on one etcd are all listed, and one stopped with SIGTERM leaves.
 */
import { hostname } from 'node:os';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { eventually, kubectl, kubectlOk, removeDir, servingCertFlags, startWindlass, tempDir, type RunningServer } from './harness.js';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';

const getJSON = (s: RunningServer, args: string[]) => JSON.parse(kubectlOk(s.kubeconfig, [...args, '-o', 'json']));
const endpointIPs = (s: RunningServer) => {
  const r = kubectl(s.kubeconfig, ['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout).subsets?.[0]?.addresses ?? []).map((a: any) => a.ip) : [];
};

describe('one server advertising an address', () => {
  let s: RunningServer;
  beforeAll(async () => { s = await startWindlass(['--advertise-address', '10.20.30.40']); }, 60000);
  afterAll(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });

  test('kubectl get endpoints kubernetes lists the advertise address and the secure port', async () => {
    expect(await eventually(() => endpointIPs(s).length === 1)).toBe(true);
    const r = kubectl(s.kubeconfig, ['get', 'endpoints', 'kubernetes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^kubernetes\\s+10\\.20\\.30\\.40:${s.port}\\s+`, 'm'));
    // kube's deprecation warning for v1 Endpoints, nothing else.
    expect(r.stderr.trim()).toBe('Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice');
    const ep = getJSON(s, ['get', 'endpoints', 'kubernetes', '-n', 'default']);
    expect(ep.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(ep.subsets).toEqual([{ addresses: [{ ip: '10.20.30.40' }], ports: [{ name: 'https', port: s.port, protocol: 'TCP' }] }]);
    const slices = kubectlOk(s.kubeconfig, ['get', 'endpointslices', '-n', 'default', '-l', 'kubernetes.io/service-name=kubernetes']);
    expect(slices).toMatch(new RegExp(`^kubernetes\\s+IPv4\\s+${s.port}\\s+10\\.20\\.30\\.40\\s+`, 'm'));
    // The Service pods reach it through.
    expect(kubectlOk(s.kubeconfig, ['get', 'service', 'kubernetes', '-n', 'default'])).toMatch(/^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+/m);
  });

  test('kubectl get apiservices shows every built-in group version Local and Available', () => {
    const out = kubectlOk(s.kubeconfig, ['get', 'apiservices']);
    const rows = out.trim().split('\n').slice(1).map((l) => l.split(/\s+/));
    expect(out.split('\n')[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(rows.map((r) => r[0])).toEqual(expect.arrayContaining(['v1.', 'v1.apps', 'v2.autoscaling', 'v1.autoscaling', 'v1.rbac.authorization.k8s.io', 'v1.resource.k8s.io']));
    expect(rows).toHaveLength(21);
    for (const r of rows) expect(r.slice(1, 3)).toEqual(['Local', 'True']);
    const apps = getJSON(s, ['get', 'apiservice', 'v1.apps']);
    expect(apps.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(apps.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  });

  test('a CRD\'s served version gets its APIService, gone with the CRD', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.stable.example.com' },
      spec: {
        group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    kubectlOk(s.kubeconfig, ['apply', '-f', '-'], JSON.stringify(crd));
    expect(await eventually(() => kubectl(s.kubeconfig, ['get', 'apiservice', 'v1.stable.example.com']).code === 0)).toBe(true);
    expect(kubectlOk(s.kubeconfig, ['get', 'apiservice', 'v1.stable.example.com'])).toMatch(/^v1\.stable\.example\.com\s+Local\s+True\s+/m);
    expect(getJSON(s, ['get', 'apiservice', 'v1.stable.example.com']).spec).toEqual({ group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    kubectlOk(s.kubeconfig, ['delete', 'crd', 'gadgets.stable.example.com']);
    expect(await eventually(() => kubectl(s.kubeconfig, ['get', 'apiservice', 'v1.stable.example.com']).code !== 0)).toBe(true);
  });

  test('kubectl get leases -n kube-system shows the identity lease of this host', () => {
    const out = kubectlOk(s.kubeconfig, ['get', 'leases', '-n', 'kube-system', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver']);
    expect(out).toMatch(/^NAME\s+HOLDER\s+AGE$/m);
    expect(out).toMatch(/^(apiserver-[a-z2-7]{26})\s+\1_[0-9a-f-]{36}\s+/m);
    const [lease] = getJSON(s, ['get', 'leases', '-n', 'kube-system']).items;
    expect(lease.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname() });
    expect(lease.spec.leaseDurationSeconds).toBe(3600);
  });
});

test('a local start (loopback) records no endpoints and stays quiet', async () => {
  const s = await startWindlass();
  try {
    await new Promise((r) => setTimeout(r, 500));
    const r = kubectl(s.kubeconfig, ['get', 'endpoints', 'kubernetes', '-n', 'default']);
    expect(r.stderr).toMatch(/Error from server \(NotFound\): endpoints "kubernetes" not found/);
    expect(kubectlOk(s.kubeconfig, ['get', 'apiservice', 'v1.'])).toMatch(/^v1\.\s+Local\s+True\s+/m);
    expect(s.output()).not.toMatch(/error|unable|warning/i);
  } finally {
    await s.stop();
    removeDir(s.dataDir);
  }
}, 60000);

describe('replicas on one etcd', () => {
  let etcd: EtcdServer;
  let a: RunningServer;
  let b: RunningServer;
  let tokenDir: string;
  beforeAll(async () => {
    etcd = await startEtcd();
    tokenDir = tempDir();
    const tokenFile = join(tokenDir, 'tokens.csv');
    writeFileSync(tokenFile, 'replica-admin-token-0123456789,admin,admin-uid,"system:masters"\n');
    const args = ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--token-auth-file', tokenFile, '--workers', '1'];
    a = await startWindlass([...args, '--advertise-address', '10.0.0.11']);
    b = await startWindlass([...args, ...servingCertFlags(a.dataDir), '--advertise-address', '10.0.0.12']);
  }, 60000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
    [a?.dataDir, b?.dataDir, tokenDir].filter(Boolean).forEach((d) => removeDir(d!));
  });

  test('both replicas are listed; one stopped with SIGTERM leaves at once', async () => {
    expect(await eventually(() => endpointIPs(a).join() === '10.0.0.11,10.0.0.12')).toBe(true);
    expect(kubectlOk(a.kubeconfig, ['get', 'endpointslice', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.endpoints[*].addresses[0]}'])).toBe('10.0.0.11 10.0.0.12');
    await b.stop('SIGTERM');
    // No wait for the 15 s lease: the stopping replica removed itself.
    expect(endpointIPs(a)).toEqual(['10.0.0.11']);
    expect(kubectlOk(a.kubeconfig, ['get', 'endpointslice', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.endpoints[*].addresses[0]}'])).toBe('10.0.0.11');
  }, 60000);
});
