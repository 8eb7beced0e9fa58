/**
 * The connect subresources through the real kubectl, as against kube-apiserver 1.35: `kubectl
 * logs` (and `-f`), `exec`, `attach`, `port-forward` and `get --raw …/proxy/…` against (a) pods
 * no node runs, (b) a pod whose Node points at a kubelet this test runs (HTTPS on 127.0.0.1,
 * the server's --kubelet-client-certificate checked, websocket v5 exec and attach), and (c) a
 * Service whose EndpointSlice points at an HTTP server of this test. kubectl runs
 * asynchronously: the fake kubelet and the backend answer from this process meanwhile.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The fake kubelet of the server's tests (not part of the package's exports).
import { hostAddress, kubeletCertificates, startEchoBackend, startFakeKubelet, type FakeKubelet } from '../../packages/server/dist/testing/fakekubelet.js';
import { kubectlArgs, type KubectlResult, type RunningServer, useWindlass } from './harness.js';

const certs = kubeletCertificates();
const pki = mkdtempSync(join(tmpdir(), 'kubelet-client-'));
for (const [file, pem] of [['ca.crt', certs.ca], ['client.crt', certs.clientCert], ['client.key', certs.clientKey]]) writeFileSync(join(pki, file), pem);

const server = useWindlass([
  '--kubelet-certificate-authority', join(pki, 'ca.crt'), '--kubelet-client-certificate', join(pki, 'client.crt'), '--kubelet-client-key', join(pki, 'client.key'),
]);
let s: RunningServer;
let kubelet: FakeKubelet;
let backend: { port: number; close(): Promise<void> };
const hostIP = hostAddress();

function kubectl(args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', kubectlArgs(s.kubeconfig, args), { timeout: 30000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input ?? '');
  });
}

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

const manifests = (kubeletPort: number, backendPort: number) => `
apiVersion: v1
kind: Node
metadata: {name: kubelet-node}
---
apiVersion: v1
kind: Node
metadata: {name: down-node}
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: kubelet-node
  containers: [{name: app, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: stranded}
spec:
  nodeName: down-node
  containers: [{name: app, image: busybox}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: lonely}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints: [{addresses: ["${hostIP}"], conditions: {ready: true}}]
ports: [{name: http, port: ${backendPort}, protocol: TCP}]
`;

beforeAll(async () => {
  s = server();
  kubelet = await startFakeKubelet(certs, ['started', 'serving']);
  backend = await startEchoBackend(hostIP);
  await kubectlOk(['apply', '-f', '-'], manifests(kubelet.port, backend.port));
  const nodeStatus = (port: number) => JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } });
  await kubectlOk(['patch', 'node', 'kubelet-node', '--subresource=status', '--type=merge', '-p', nodeStatus(kubelet.port)]);
  // A port nothing listens on: the fake kubelet's own, once it is closed, would do; 1 is never served.
  await kubectlOk(['patch', 'node', 'down-node', '--subresource=status', '--type=merge', '-p', nodeStatus(1)]);
  // kubectl port-forward and attach look for a running pod first.
  await kubectlOk(['patch', 'pod', 'running', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
}, 30000);

afterAll(async () => {
  await kubelet?.close();
  await backend?.close();
  rmSync(pki, { recursive: true, force: true });
});

describe('(a) pods no node runs', () => {
  test('kubectl logs prints nothing and succeeds (the server streams no content)', async () => {
    const r = await kubectl(['logs', 'pending']);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  test('kubectl exec and attach: the pod has no host', async () => {
    const exec = await kubectl(['exec', 'pending', '--', 'echo', 'hi']);
    expect(exec.code).toBe(1);
    expect(exec.stderr.trim()).toBe('Error from server (BadRequest): pod pending does not have a host assigned');
    const attach = await kubectl(['attach', 'pending']);
    expect(attach.code).toBe(1);
    expect(attach.stderr).toContain('Error from server (BadRequest): pod pending does not have a host assigned');
  });

  test('pods/proxy without a pod IP, and a kubelet that does not answer', async () => {
    const proxy = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/pending/proxy/']);
    expect(proxy.stderr.trim()).toBe('Error from server (BadRequest): address not allowed');
    const logs = await kubectl(['logs', 'stranded']);
    expect(logs.code).toBe(1);
    expect(logs.stderr.trim()).toBe('Error from server: Get "https://127.0.0.1:1/containerLogs/default/stranded/app": dial tcp 127.0.0.1:1: connect: connection refused');
    const exec = await kubectl(['exec', 'stranded', '--', 'ls']);
    expect(exec.code).toBe(1);
    expect(exec.stderr.trim()).toBe('Error from server: error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused');
  });
});

describe('(b) a pod on a node whose kubelet answers', () => {
  test('kubectl logs, logs -f, and the server\'s validation of the options', async () => {
    expect(await kubectlOk(['logs', 'running'])).toBe('started\nserving\n');
    expect(kubelet.requests.at(-1)).toMatchObject({ method: 'GET', url: '/containerLogs/default/running/app', clientCN: 'kube-apiserver-kubelet-client' });
    expect(await kubectlOk(['logs', '-f', 'running', '--tail=5'])).toBe('started\nserving\nfollowed line 1\nfollowed line 2\n');
    expect(kubelet.requests.at(-1)!.url).toBe('/containerLogs/default/running/app?follow=true&tailLines=5');
    const invalid = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/running/log?tailLines=-2&sinceSeconds=0']);
    expect(invalid.stderr.trim()).toBe('The PodLogOptions "running" is invalid: \n* tailLines: Invalid value: -2: must be greater than or equal to 0\n* sinceSeconds: Invalid value: 0: must be greater than 0');
    const container = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/running/log?container=sidecar']);
    expect(container.stderr.trim()).toBe('Error from server (BadRequest): container sidecar is not valid for pod running');
  });

  test('kubectl exec: the command\'s output and exit status through the kubelet', async () => {
    const hi = await kubectl(['exec', 'running', '--', 'echo', 'hi', 'there']);
    expect(hi).toEqual({ code: 0, stdout: 'hi there\n', stderr: '' });
    expect(kubelet.requests.at(-1)!.url).toBe('/exec/default/running/app?command=echo&command=hi&command=there&error=1&output=1');
    const failed = await kubectl(['exec', 'running', '--', 'exit', '3']);
    expect(failed.code).toBe(3);
    expect(failed.stderr.trim()).toBe('command terminated with exit code 3');
  });

  test('kubectl attach streams what the container writes', async () => {
    const r = await kubectl(['attach', 'running']);
    expect(r.stdout).toBe('attached to app\n');
    expect(r.code).toBe(0);
    expect(kubelet.requests.at(-1)!.url).toBe('/attach/default/running/app?error=1&output=1');
  });

  test('kubectl port-forward reaches the kubelet\'s /portForward, whose refusal kubectl reports', async () => {
    const r = await kubectl(['port-forward', 'pod/running', ':8080']);
    expect(r.code).toBe(1);
    const asked = kubelet.requests.filter((q) => q.url.startsWith('/portForward/'));
    // kubectl names the ports in its streams' headers, not in the URL.
    expect(asked.map((q) => q.url)).toContain('/portForward/default/running');
    // The websocket tunnel first, then SPDY after its refusal, each relayed from the kubelet.
    expect(asked.map((q) => [q.method, q.headers.upgrade])).toEqual([['GET', 'websocket'], ['POST', 'SPDY/3.1']]);
    expect(r.stderr.trim()).toBe('error: error upgrading connection: unable to upgrade connection: no portForward streams but websocket v5.channel.k8s.io ones are served by this kubelet');
  });

  test('nodes/proxy to the kubelet', async () => {
    const out = JSON.parse(await kubectlOk(['get', '--raw', '/api/v1/nodes/kubelet-node/proxy/configz?x=1']));
    expect(out).toEqual({ kubelet: true, method: 'GET', path: '/configz', query: '?x=1', body: '' });
  });
});

describe('(c) services/proxy to an EndpointSlice', () => {
  test('kubectl get --raw through the Service to its endpoint', async () => {
    const out = JSON.parse(await kubectlOk(['get', '--raw', '/api/v1/namespaces/default/services/web:http/proxy/hello/?x=1']));
    expect(out).toMatchObject({ method: 'GET', url: '/hello/?x=1', forwardedUri: '/api/v1/namespaces/default/services/web:http/proxy/hello/', authorization: null });
  });

  test('no endpoints, an unknown port', async () => {
    const lonely = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/lonely/proxy/']);
    expect(lonely.stderr.trim()).toBe('Error from server (NotFound): endpoints "lonely" not found');
    const port = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/web:81/proxy/']);
    expect(port.stderr.trim()).toBe('Error from server (ServiceUnavailable): no service port 81 found for service "web"');
  });
});
