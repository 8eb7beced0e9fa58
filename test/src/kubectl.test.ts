import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { adminToken, httpsCall, kubectl, kubectlArgs, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
beforeAll(() => {
  s = server();
});

const manifest = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: demo
  labels:
    app: demo
data:
  key: "${value}"
  other: "x"
`;

test('requests with a wrong token get a 401 Status, without one they are anonymous (403 under RBAC); with the admin token they are served', async () => {
  const wrong = await httpsCall(s, 'GET', '/api/v1/namespaces', { token: 'wrong' });
  expect(wrong.status).toBe(401);
  expect(wrong.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  const none = await httpsCall(s, 'GET', '/api/v1/namespaces');
  expect(none.status).toBe(403);
  expect(none.body).toEqual({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { kind: 'namespaces' },
    message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
  });
  const ok = await httpsCall(s, 'GET', '/api/v1/namespaces', { token: adminToken(s) });
  expect(ok.status).toBe(200);
  expect(ok.body.items.map((n: any) => n.metadata.name)).toEqual(expect.arrayContaining(['default', 'kube-system']));
  const bad = kubectl(s.kubeconfig, ['--token', 'wrong', 'get', 'namespaces']);
  expect(bad.code).not.toBe(0);
  // kubectl words it after whichever request failed first: discovery (no cached discovery) or the GET.
  expect(bad.stderr).toMatch(/You must be logged in to the server \((the server has asked for the client to provide credentials|Unauthorized)\)/);
});

test('create namespace, create -f, get in every format, label, annotate, patch, delete', () => {
  expect(kubectlOk(s.kubeconfig, ['create', 'namespace', 'demo'])).toContain('namespace/demo created');
  const ns = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'namespace', 'demo', '-o', 'json']));
  expect(ns.status.phase).toBe('Active');

  expect(kubectlOk(s.kubeconfig, ['create', '-f', '-'], manifest('v1'))).toContain('configmap/app-config created');
  const table = kubectlOk(s.kubeconfig, ['get', 'configmaps', '-n', 'demo']);
  expect(table).toMatch(/^NAME\s+DATA\s+AGE\n/);
  expect(table).toMatch(/app-config\s+2\s+\d+s/);
  const yamlOut = kubectlOk(s.kubeconfig, ['get', 'cm', 'app-config', '-n', 'demo', '-o', 'yaml']);
  expect(yamlOut).toContain('key: v1');
  expect(yamlOut).toMatch(/resourceVersion: "\d+"/);
  const json = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'cm', 'app-config', '-n', 'demo', '-o', 'json']));
  expect(json.metadata.uid).toBeTruthy();

  expect(kubectlOk(s.kubeconfig, ['label', 'cm', 'app-config', '-n', 'demo', 'tier=backend'])).toContain('labeled');
  expect(kubectlOk(s.kubeconfig, ['annotate', 'cm', 'app-config', '-n', 'demo', 'note=hello'])).toContain('annotated');
  expect(kubectlOk(s.kubeconfig, ['patch', 'cm', 'app-config', '-n', 'demo', '-p', '{"data":{"patched":"yes"}}'])).toContain('patched');
  expect(kubectlOk(s.kubeconfig, ['patch', 'cm', 'app-config', '-n', 'demo', '--type', 'merge', '-p', '{"data":{"merged":"yes"}}'])).toContain('patched');
  expect(kubectlOk(s.kubeconfig, ['patch', 'cm', 'app-config', '-n', 'demo', '--type', 'json', '-p', '[{"op":"remove","path":"/data/merged"}]'])).toContain('patched');
  const after = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'cm', 'app-config', '-n', 'demo', '-o', 'json']));
  expect(after.metadata.labels).toEqual({ app: 'demo', tier: 'backend' });
  expect(after.metadata.annotations).toEqual({ note: 'hello' });
  expect(after.data).toEqual({ key: 'v1', other: 'x', patched: 'yes' });

  const sel = kubectlOk(s.kubeconfig, ['get', 'cm', '-n', 'demo', '-l', 'tier=backend', '-o', 'name']);
  expect(sel.trim()).toBe('configmap/app-config');
  const missing = kubectl(s.kubeconfig, ['get', 'cm', 'nope', '-n', 'demo']);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('Error from server (NotFound): configmaps "nope" not found');
  const dup = kubectl(s.kubeconfig, ['create', '-f', '-'], manifest('v1'));
  expect(dup.stderr).toContain('(AlreadyExists)');

  expect(kubectlOk(s.kubeconfig, ['delete', 'cm', 'app-config', '-n', 'demo'])).toContain('configmap "app-config" deleted');
  expect(kubectl(s.kubeconfig, ['get', 'cm', 'app-config', '-n', 'demo']).code).not.toBe(0);
});

test('apply twice: create, then a strategic merge patch that removes dropped keys', () => {
  kubectl(s.kubeconfig, ['create', 'namespace', 'demo']);
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], manifest('one'))).toContain('configmap/app-config created');
  const second = manifest('two').replace('  other: "x"\n', '');
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], second)).toContain('configmap/app-config configured');
  const cm = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'cm', 'app-config', '-n', 'demo', '-o', 'json']));
  expect(cm.data).toEqual({ key: 'two' });
  expect(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"two"');
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], second)).toContain('unchanged');
});

test('secrets through kubectl', () => {
  kubectl(s.kubeconfig, ['create', 'namespace', 'demo']);
  expect(kubectlOk(s.kubeconfig, ['create', 'secret', 'generic', 'creds', '-n', 'demo', '--from-literal=user=admin'])).toContain('secret/creds created');
  const sec = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'secret', 'creds', '-n', 'demo', '-o', 'json']));
  expect(Buffer.from(sec.data.user, 'base64').toString()).toBe('admin');
  expect(sec.type).toBe('Opaque');
  expect(kubectlOk(s.kubeconfig, ['get', 'secrets', '-n', 'demo'])).toMatch(/creds\s+Opaque\s+1/);
});

test('api-resources lists the served kinds', () => {
  const out = kubectlOk(s.kubeconfig, ['api-resources']);
  expect(out).toMatch(/configmaps\s+cm\s+v1\s+true\s+ConfigMap/);
  expect(out).toMatch(/namespaces\s+ns\s+v1\s+false\s+Namespace/);
  expect(out).toMatch(/leases\s+coordination.k8s.io\/v1\s+true\s+Lease/);
});

test('get -w streams changes', async () => {
  kubectl(s.kubeconfig, ['create', 'namespace', 'watched']);
  const proc = spawn('kubectl', kubectlArgs(s.kubeconfig, ['get', 'cm', '-n', 'watched', '-w', '--output-watch-events']), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 1500));
  kubectlOk(s.kubeconfig, ['create', 'configmap', 'w1', '-n', 'watched', '--from-literal=a=b']);
  kubectlOk(s.kubeconfig, ['delete', 'configmap', 'w1', '-n', 'watched']);
  const deadline = Date.now() + 15000;
  while (!/DELETED\s+w1/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  proc.kill();
  expect(out).toMatch(/ADDED\s+w1/);
  expect(out).toMatch(/DELETED\s+w1/);
});

test('delete namespace waits until its contents and the namespace are gone', () => {
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'doomed']);
  kubectlOk(s.kubeconfig, ['create', 'configmap', 'c', '-n', 'doomed', '--from-literal=a=b']);
  expect(kubectlOk(s.kubeconfig, ['delete', 'namespace', 'doomed', '--timeout=30s'])).toContain('namespace "doomed" deleted');
  expect(kubectl(s.kubeconfig, ['get', 'namespace', 'doomed']).stderr).toContain('NotFound');
});

test('the kubeconfig names the server and a token', () => {
  const text = readFileSync(s.kubeconfig, 'utf8');
  expect(text).toContain(s.url);
  expect(text).toContain('token:');
});

test('kind: List and RoleList files apply: kubectl validates them against /openapi/v2 in protobuf', () => {
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'lists']);
  const list = (extra: string) => `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed, namespace: lists}
  data: {k: v}
${extra}`;
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], list(''))).toContain('configmap/listed created');
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], list(''))).toContain('configmap/listed unchanged');
  const roles = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleList
items:
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: reader, namespace: lists}
  rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
`;
  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], roles)).toContain('role.rbac.authorization.k8s.io/reader created');
  // The client-side validation reads the v2 document's definitions: an unknown field is caught before any request.
  const bad = kubectl(s.kubeconfig, ['apply', '-f', '-'], list('  bogus: 1\n').replace('name: listed', 'name: other'));
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('unknown field "bogus" in io.k8s.api.core.v1.ConfigMap');
  expect(kubectl(s.kubeconfig, ['get', 'configmap', 'other', '-n', 'lists']).code).not.toBe(0);
});
