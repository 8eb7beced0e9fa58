/**
 * Admission webhooks through kubectl, against an HTTPS webhook server run by the test with its
 * own CA (as envtest suites run one): the configurations applied from YAML with the CA bundle,
 * `kubectl create` refused with kube's message and the webhook's warning, and an object the
 * mutating webhook labelled. kubectl runs asynchronously here: the webhook answers from this
 * process while kubectl waits.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { eventually, kubectlAsync as kubectlAsyncOn, servingCertificates, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let hooks: https.Server;
let port = 0;
let caBundle = '';

const kubectlAsync = (args: string[], input?: string) => kubectlAsyncOn(s.kubeconfig, args, input);

/** The webhooks: /validate refuses ConfigMaps named forbidden-*, /mutate labels every ConfigMap. */
function answer(path: string, review: any): unknown {
  const { uid, object } = review.request;
  const response = (extra: Record<string, unknown>) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...extra } });
  if (path === '/mutate') {
    const labels = { ...(object.metadata.labels ?? {}), 'webhook.example.com/seen': 'true' };
    const patch = [{ op: 'add', path: '/metadata/labels', value: labels }];
    return response({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
  }
  if (object.metadata.name.startsWith('forbidden-')) {
    return response({ allowed: false, warnings: ['names are checked by the e2e webhook'], status: { code: 403, reason: 'Forbidden', message: `the name ${object.metadata.name} is reserved` } });
  }
  return response({ allowed: true });
}

beforeAll(async () => {
  s = server();
  const tls = servingCertificates('IP:127.0.0.1,DNS:localhost', 'e2e-webhook');
  caBundle = Buffer.from(tls.ca).toString('base64');
  hooks = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer((req.url ?? '').split('?')[0], JSON.parse(body)))));
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  port = (hooks.address() as AddressInfo).port;
});

afterAll(async () => {
  hooks.closeAllConnections();
  await new Promise((resolve) => hooks.close(resolve));
});

const configurations = () => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: names.example.com
webhooks:
- name: names.example.com
  clientConfig:
    url: https://127.0.0.1:${port}/validate
    caBundle: ${caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: labels.example.com
webhooks:
- name: labels.example.com
  clientConfig:
    url: https://127.0.0.1:${port}/mutate
    caBundle: ${caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  sideEffects: None
  admissionReviewVersions: ["v1", "v1beta1"]
`;

test('kubectl create is refused with the webhook\'s message, and a created object carries the mutating webhook\'s label', async () => {
  const applied = await kubectlAsync(['apply', '-f', '-'], configurations());
  expect(applied.stderr).toBe('');
  expect(applied.stdout).toBe('validatingwebhookconfiguration.admissionregistration.k8s.io/names.example.com created\nmutatingwebhookconfiguration.admissionregistration.k8s.io/labels.example.com created\n');

  // The configurations take effect once this server's watch cache holds them.
  let refused = await kubectlAsync(['create', 'configmap', 'forbidden-1', '--from-literal=a=b']);
  await eventually(async () => {
    if (refused.code !== 0) return true;
    await kubectlAsync(['delete', 'configmap', 'forbidden-1']);
    refused = await kubectlAsync(['create', 'configmap', 'forbidden-1', '--from-literal=a=b']);
    return refused.code !== 0;
  });
  expect(refused.stderr).toBe('Warning: names are checked by the e2e webhook\nerror: failed to create configmap: admission webhook "names.example.com" denied the request: the name forbidden-1 is reserved\n');
  expect((await kubectlAsync(['get', 'configmap', 'forbidden-1'])).code).not.toBe(0);

  const created = await kubectlAsync(['create', 'configmap', 'allowed', '--from-literal=a=b']);
  expect(created).toMatchObject({ code: 0, stdout: 'configmap/allowed created\n', stderr: '' });
  const labels = await kubectlAsync(['get', 'configmap', 'allowed', '-o', 'jsonpath={.metadata.labels}']);
  expect(JSON.parse(labels.stdout)).toEqual({ 'webhook.example.com/seen': 'true' });

  // A dry run reaches webhooks declaring no side effects, and is refused the same way.
  const dry = await kubectlAsync(['create', 'configmap', 'forbidden-2', '--from-literal=a=b', '--dry-run=server']);
  expect(dry.code).not.toBe(0);
  expect(dry.stderr).toContain('admission webhook "names.example.com" denied the request: the name forbidden-2 is reserved');

  // Deleting the configurations lets the name through again.
  expect((await kubectlAsync(['delete', 'validatingwebhookconfiguration', 'names.example.com'])).code).toBe(0);
  await eventually(async () => (await kubectlAsync(['create', 'configmap', 'forbidden-3', '--from-literal=a=b'])).code === 0);
});
