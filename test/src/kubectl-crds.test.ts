/**
 * Real operators' CRDs (prometheus-operator, cert-manager, Argo CD; ../shared/reference/crds)
 * installed with kubectl on the real binary, then their custom resources created, validated,
 * listed with their printer columns, explained, applied server-side, and removed with their CRD.
 */
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const crds = join(process.cwd(), '..', '..', 'shared', 'reference', 'crds');
const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, args);
});

const resources = `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: web-rules, namespace: default, labels: {release: prom}}
spec:
  groups:
  - name: web.rules
    rules:
    - alert: HighErrorRate
      expr: sum(rate(http_requests_total{code=~"5.."}[5m])) > 1
      for: 10m
      labels: {severity: page}
      annotations: {summary: High error rate}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, interval: 30s}]
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: selfsigned, namespace: default}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls, namespace: default}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: selfsigned, kind: Issuer}
  privateKey: {algorithm: ECDSA, size: 256}
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: team-a, namespace: default}
spec:
  description: Team A
  sourceRepos: ['*']
  destinations: [{namespace: team-a, server: https://kubernetes.default.svc}]
`;

test('the real CRDs install server-side and are established, discovered and explained', async () => {
  const out = k('apply', '--server-side', '-f', join(crds, 'prometheus-operator'), '-f', join(crds, 'cert-manager'), '-f', join(crds, 'argo-cd'));
  expect(out.trim().split('\n')).toHaveLength(17);
  expect(k('wait', '--for=condition=Established', 'crd', '--all', '--timeout=30s').trim().split('\n')).toHaveLength(17);
  expect(k('api-resources', '--api-group=monitoring.coreos.com')).toMatch(/prometheusrules\s+promrule\s+monitoring.coreos.com\/v1\s+true\s+PrometheusRule/);
  expect(k('api-resources', '--api-group=cert-manager.io')).toMatch(/certificates\s+cert,certs\s+cert-manager.io\/v1\s+true\s+Certificate/);
  // The printer column descriptions survive decoding (the CRD is echoed as sent).
  expect(k('get', 'crd', 'certificates.cert-manager.io', '-o', 'jsonpath={.spec.versions[0].additionalPrinterColumns[5].name}')).toBe('Age');
  expect(k('explain', 'prometheusrule.spec.groups.rules.alert')).toMatch(/FIELD: alert <string>/);
});

test('custom resources of each operator: created, listed with their columns, refused when invalid, applied server-side', async () => {
  const r = kubectl(s.kubeconfig, ['apply', '-f', '-'], resources);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('prometheusrule.monitoring.coreos.com/web-rules');
  expect(k('get', 'prometheusrule', 'web-rules', '-o', 'jsonpath={.spec.groups[0].rules[0].for}')).toBe('10m');
  expect(k('get', 'certificate', 'web-tls', '-o', 'wide')).toMatch(/^NAME\s+READY\s+SECRET\s+ISSUER\s+STATUS\s+EXPIRATION\s+AGE\nweb-tls\s+web-tls\s+selfsigned\s+\d+s\n$/);
  expect(k('get', 'appprojects')).toMatch(/^NAME\s+AGE\nteam-a\s+\d+s\n$/);
  expect(k('get', 'smon', 'web', '-o', 'jsonpath={.spec.endpoints[0].interval}')).toBe('30s');

  const bad = kubectl(s.kubeconfig, ['create', '-f', '-'], `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: bad, namespace: default}
spec: {dnsNames: x, issuerRef: {name: a}, privateKey: {algorithm: DSA}}
`);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('spec.secretName: Required value');
  expect(bad.stderr).toContain('spec.dnsNames: Invalid value: "string": spec.dnsNames in body must be of type array: "string"');
  expect(bad.stderr).toContain('spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"');
  const interval = kubectl(s.kubeconfig, ['create', '-f', '-'], `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: slow, namespace: default}
spec: {selector: {}, endpoints: [{port: http, interval: 30 seconds}]}
`);
  expect(interval.stderr).toContain('spec.endpoints[0].interval: Invalid value: "30 seconds": spec.endpoints[0].interval in body should match');
  const unknown = kubectl(s.kubeconfig, ['create', '-f', '-'], 'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: x, namespace: default}\nspec: {bogus: 1}\n');
  expect(unknown.stderr.trim()).toBe('Error from server (BadRequest): error when creating "STDIN": AppProject in version "v1alpha1" cannot be handled as a AppProject: strict decoding error: unknown field "spec.bogus"');

  // Strategic merge patch is refused as kube refuses it for custom resources; merge patches work.
  const smp = kubectl(s.kubeconfig, ['patch', 'prometheusrule', 'web-rules', '--type=strategic', '-p', '{"metadata":{"labels":{"a":"b"}}}']);
  expect(smp.stderr).toContain('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  k('patch', 'prometheusrule', 'web-rules', '--type=merge', '-p', '{"metadata":{"labels":{"a":"b"}}}');
  expect(k('get', 'promrule', '-l', 'a=b', '-o', 'name').trim()).toBe('prometheusrule.monitoring.coreos.com/web-rules');

  // Server-side apply types custom resources by their schema: list-map items are keyed by name.
  kubectlOk(s.kubeconfig, ['apply', '--server-side', '--field-manager=ops', '-f', '-'], resources.split('---')[0]);
  const managed = JSON.parse(k('get', 'promrule', 'web-rules', '-o', 'json', '--show-managed-fields'));
  const ops = managed.metadata.managedFields.find((m: { manager: string }) => m.manager === 'ops');
  expect(ops).toMatchObject({ operation: 'Apply', fieldsV1: { 'f:spec': { 'f:groups': { 'k:{"name":"web.rules"}': { 'f:name': {} } } } } });
});

test('deleting a CRD deletes its custom resources', async () => {
  k('delete', 'crd', 'appprojects.argoproj.io');
  expect(await eventually(() => kubectl(s.kubeconfig, ['get', 'crd', 'appprojects.argoproj.io']).code !== 0, 15000)).toBe(true);
  // The group is no longer served, and recreating the CRD finds none of the old instances.
  expect(kubectl(s.kubeconfig, ['get', '--raw', '/apis/argoproj.io']).code).not.toBe(0);
  k('apply', '--server-side', '-f', join(crds, 'argo-cd'));
  k('wait', '--for=condition=Established', 'crd/appprojects.argoproj.io', '--timeout=30s');
  expect(await eventually(() => kubectl(s.kubeconfig, ['get', '--raw', '/apis/argoproj.io/v1alpha1/namespaces/default/appprojects']).stdout.includes('"items":[]'), 15000)).toBe(true);
  expect(k('get', 'certificates', '-o', 'name').trim()).toBe('certificate.cert-manager.io/web-tls');
});

test("a CRD whose rule names a field its schema lacks is refused with kube's compiler error, and stored once fixed", async () => {
  const crd = (rule: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
            x-kubernetes-validations:
            - rule: ${JSON.stringify(rule)}
              message: too many
`;
  const bad = kubectl(s.kubeconfig, ['apply', '-f', '-'], crd('self.replica <= 5'));
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('The CustomResourceDefinition "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:');
  expect(bad.stderr).toContain("compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica <= 5\n | ....^");
  expect(kubectl(s.kubeconfig, ['get', 'crd', 'widgets.example.com']).code).not.toBe(0);

  const mistyped = kubectl(s.kubeconfig, ['apply', '-f', '-'], crd("self.replicas <= '5'"));
  expect(mistyped.stderr).toContain("found no matching overload for '_<=_' applied to '(int, string)'");

  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], crd('self.replicas <= 5'));
  k('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s');
  let refusal = '';
  await eventually(() => {
    refusal = kubectl(s.kubeconfig, ['apply', '-f', '-'], 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {replicas: 9}\n').stderr;
    return refusal.includes('is invalid');
  });
  expect(refusal).toContain('The Widget "w" is invalid: spec: Invalid value: too many');
  k('delete', 'crd', 'widgets.example.com');
});
