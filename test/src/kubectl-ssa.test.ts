/**
 * Server-side apply with the real kubectl: `apply --server-side` creates and re-applies an
 * application, another manager's change is a conflict kubectl reports (and `--force-conflicts`
 * takes over), a field dropped from the manifest is removed, `diff --server-side` shows what an
 * apply would change, and an application first applied client-side moves to server-side apply
 * without conflicts (kubectl rewrites its managedFields entries, as against kube).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
let scratch: string;
const ns = 'ssa';

beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', ns, ...args]);
  scratch = mkdtempSync(join(tmpdir(), 'kubectl-ssa-'));
  kubectlOk(s.kubeconfig, ['create', 'namespace', ns]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function manifest(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

const app = (image: string, extraLabel = '') => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web${extraLabel ? `\n    ${extraLabel}` : ''}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  mode: production
`;

type Entry = { manager: string; operation: string; subresource?: string; fieldsV1: Record<string, unknown> };
const managed = (kind: string, name: string): Entry[] => JSON.parse(k('get', kind, name, '-o', 'json', '--show-managed-fields')).metadata.managedFields;

test('apply --server-side creates, records kubectl as the applier, and a re-apply changes nothing', () => {
  const file = manifest('app.yaml', app('nginx:1.27', 'tier: frontend'));
  expect(k('apply', '--server-side', '-f', file)).toBe('deployment.apps/web serverside-applied\nservice/web serverside-applied\nconfigmap/web-config serverside-applied\n');
  const entries = managed('deployment', 'web');
  expect(entries.map((e) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
  expect(entries[0].fieldsV1).toMatchObject({ 'f:spec': { 'f:replicas': {}, 'f:selector': {} } });
  expect(JSON.stringify(entries[0].fieldsV1)).toContain('"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}"');
  const rv = k('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.resourceVersion}');
  k('apply', '--server-side', '-f', file);
  expect(k('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.resourceVersion}')).toBe(rv);
});

test("another manager's change conflicts; --force-conflicts takes the field back", () => {
  k('set', 'image', 'deployment/web', 'nginx=nginx:1.28');
  expect(managed('deployment', 'web').map((e) => e.manager)).toEqual(['kubectl', 'kubectl-set']);
  const file = manifest('app.yaml', app('nginx:1.27', 'tier: frontend'));
  const conflict = kubectl(s.kubeconfig, ['-n', ns, 'apply', '--server-side', '-f', file]);
  expect(conflict.code).not.toBe(0);
  expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-set" using apps/v1: .spec.template.spec.containers[name="nginx"].image');
  k('apply', '--server-side', '--force-conflicts', '-f', file);
  expect(k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}')).toBe('nginx:1.27');
  // kubectl-set lost its only field, so its entry is gone.
  expect(managed('deployment', 'web').map((e) => e.manager)).toEqual(['kubectl']);
});

test('a field dropped from the manifest is removed; diff --server-side shows a pending change', () => {
  const without = manifest('app2.yaml', app('nginx:1.27'));
  const diff = kubectl(s.kubeconfig, ['-n', ns, 'diff', '--server-side', '-f', without]);
  expect(diff.code).toBe(1);
  expect(diff.stdout).toMatch(/^-\s+tier: frontend$/m);
  k('apply', '--server-side', '-f', without);
  expect(JSON.parse(k('get', 'deployment', 'web', '-o', 'json')).metadata.labels).toEqual({ app: 'web' });
  expect(kubectl(s.kubeconfig, ['-n', ns, 'diff', '--server-side', '-f', without]).code).toBe(0);
});

test('an application applied client-side moves to server-side apply without conflicts', () => {
  const file = manifest('csa.yaml', `
apiVersion: v1
kind: ConfigMap
metadata:
  name: migrated
data:
  a: "1"
`);
  k('apply', '-f', file);
  expect(managed('configmap', 'migrated').map((e) => [e.manager, e.operation])).toEqual([['kubectl-client-side-apply', 'Update']]);
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrated\ndata:\n  a: "2"\n');
  k('apply', '--server-side', '-f', file);
  expect(JSON.parse(k('get', 'configmap', 'migrated', '-o', 'json')).data).toEqual({ a: '2' });
  // kubectl turned its client-side entry into an apply and keeps the annotation with one of its own.
  const managers = managed('configmap', 'migrated').map((e) => `${e.manager}/${e.operation}`);
  expect(managers.sort()).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);
  const cm = JSON.parse(k('get', 'configmap', 'migrated', '-o', 'json'));
  expect(JSON.parse(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data).toEqual({ a: '2' });
});
