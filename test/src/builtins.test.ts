/**
 * kubectl against every built-in kind: discovery as kubectl reads it (aggregated first), the
 * typed `create` commands (protobuf bodies), multi-kind gets and `get all`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const reference = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'reference', 'openapi-v2.json');
const gatedOff = new Set(['admissionregistration.k8s.io/mutatingadmissionpolicies', 'admissionregistration.k8s.io/mutatingadmissionpolicybindings']);

/** What `kubectl api-resources -o name` should print: each GA resource of the reference document, once per group. */
function expectedNames(): string[] {
  const doc = JSON.parse(readFileSync(reference, 'utf8')) as { paths: Record<string, unknown> };
  const names = new Set<string>();
  for (const path of Object.keys(doc.paths)) {
    const m = /^\/(?:api\/v1|apis\/([^/]+)\/v\d+)\/(.+)$/.exec(path);
    if (!m) continue; // discovery paths, and alpha/beta versions (off by default)
    const group = m[1] ?? '';
    let segs = m[2].split('/');
    if (segs[0] === 'watch') segs = segs.slice(1);
    if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
    if (gatedOff.has(`${group}/${segs[0]}`)) continue;
    names.add(group ? `${segs[0]}.${group}` : segs[0]);
  }
  return [...names].sort();
}

const server = useWindlass();
let s: RunningServer;
beforeAll(() => {
  s = server();
});

test('kubectl api-resources lists every built-in resource of the reference document', () => {
  const names = kubectlOk(s.kubeconfig, ['api-resources', '-o', 'name']).trim().split('\n').sort();
  expect(names).toEqual(expectedNames());
  const table = kubectlOk(s.kubeconfig, ['api-resources']);
  expect(table).toMatch(/deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/);
  expect(table).toMatch(/horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler/);
  expect(table).toMatch(/priorityclasses\s+pc\s+scheduling.k8s.io\/v1\s+false\s+PriorityClass/);
  expect(table).toMatch(/customresourcedefinitions\s+crd,crds\s+apiextensions.k8s.io\/v1\s+false\s+CustomResourceDefinition/);
  expect(kubectlOk(s.kubeconfig, ['api-versions'])).toContain('autoscaling/v1\nautoscaling/v2\n');
});

test('kubectl create deployment, role, priorityclass; get several kinds; get all', () => {
  expect(kubectlOk(s.kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2'])).toContain('deployment.apps/web created');
  const dep = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'deploy', 'web', '-o', 'json']));
  expect(dep).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } } });
  expect(dep.spec.template.spec.containers[0]).toMatchObject({ name: 'nginx', image: 'nginx' });

  expect(kubectlOk(s.kubeconfig, ['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods'])).toContain('role.rbac.authorization.k8s.io/pod-reader created');
  const role = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'role', 'pod-reader', '-o', 'json']));
  expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);

  expect(kubectlOk(s.kubeconfig, ['create', 'priorityclass', 'high', '--value=1000', '--description=important'])).toContain('priorityclass.scheduling.k8s.io/high created');
  expect(JSON.parse(kubectlOk(s.kubeconfig, ['get', 'pc', 'high', '-o', 'json']))).toMatchObject({ value: 1000, description: 'important' });

  kubectlOk(s.kubeconfig, ['create', 'configmap', 'settings', '--from-literal=a=1']);
  const wide = kubectlOk(s.kubeconfig, ['get', 'deploy,cm', '-o', 'wide']);
  expect(wide).toMatch(/deployment\.apps\/web\s/);
  expect(wide).toMatch(/configmap\/settings\s+1\s/);

  const all = kubectlOk(s.kubeconfig, ['get', 'all']);
  expect(all).toMatch(/deployment\.apps\/web\s/);
  expect(all).not.toContain('configmap');

  expect(kubectlOk(s.kubeconfig, ['delete', 'deploy', 'web'])).toContain('deployment.apps "web" deleted');
  expect(kubectl(s.kubeconfig, ['get', 'deploy', 'web']).stderr).toContain('deployments.apps "web" not found');
});

const app = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels: {app: shop}
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 8080
        env:
        - {name: MODE, value: prod}
      - name: sidecar
        image: busybox
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector: {app: shop}
  ports:
  - {name: http, port: 80, targetPort: 8080}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: shop, port: {number: 80}}
`;

test('kubectl explain reads the schema of any served kind from /openapi/v3', () => {
  const out = kubectlOk(s.kubeconfig, ['explain', 'deployment.spec.strategy']);
  expect(out).toContain('GROUP:      apps');
  expect(out).toContain('KIND:       Deployment');
  expect(out).toMatch(/FIELD: strategy <DeploymentStrategy>/);
  expect(out).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);
  expect(kubectlOk(s.kubeconfig, ['explain', 'ingress.spec.rules.http.paths.backend.service'])).toMatch(/port\s+<ServiceBackendPort>/);
});

test('kubectl apply (client-side validation on) of a Deployment, Service and Ingress; again unchanged; a changed image keeps the rest of the container', () => {
  const first = kubectlOk(s.kubeconfig, ['apply', '-f', '-'], app('shop:1'));
  expect(first).toContain('deployment.apps/shop created');
  expect(first).toContain('service/shop created');
  expect(first).toContain('ingress.networking.k8s.io/shop created');
  const again = kubectlOk(s.kubeconfig, ['apply', '-f', '-'], app('shop:1'));
  expect(again).toContain('deployment.apps/shop unchanged');
  expect(again).toContain('ingress.networking.k8s.io/shop unchanged');

  expect(kubectlOk(s.kubeconfig, ['apply', '-f', '-'], app('shop:2'))).toContain('deployment.apps/shop configured');
  const dep = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'deploy', 'shop', '-o', 'json']));
  // The strategic merge patch merges containers by name: only the image changes (beside what the server defaults).
  const sent = (c: any) => ({ name: c.name, image: c.image, ports: c.ports?.map((p: any) => ({ containerPort: p.containerPort })), env: c.env });
  expect(dep.spec.template.spec.containers.map(sent)).toEqual([
    { name: 'web', image: 'shop:2', ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'prod' }] },
    { name: 'sidecar', image: 'busybox', ports: undefined, env: undefined },
  ]);
  const ing = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'ingress', 'shop', '-o', 'json']));
  expect(ing.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'shop', port: { number: 80 } });
});
