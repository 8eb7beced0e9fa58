/**
 * Protobuf answers read by a real Go client. kubectl's typed commands (create <kind>, auth
 * can-i, describe) ask for `application/vnd.kubernetes.protobuf,application/json` and decode
 * what comes back into client-go's Go structs: every object kubectl prints from a protobuf
 * answer must be the object the JSON path serves (`kubectl get -o json`), field for field,
 * managedFields included. Errors come back as protobuf Statuses kubectl reports by reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, kubectlOk, type RunningServer, useWindlass } from './harness.js';

// The encoding does not depend on the backend (packages/server's protobuf tests run both); the embedded one starts fastest.
const storage = 'embedded';
{
  describe('protobuf answers to kubectl', () => {
    const server = useWindlass();
    let s: RunningServer;
    let k: (...args: string[]) => string;
    let scratch: string;
    const ns = 'pb';

    beforeAll(() => {
      s = server();
      k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', ns, ...args]);
      scratch = mkdtempSync(join(tmpdir(), 'kubectl-pb-'));
      kubectlOk(s.kubeconfig, ['create', 'namespace', ns]);
    });
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    /** `kubectl create …` prints what it decoded from the protobuf answer; the JSON path must agree. */
    function createdAsServed(resource: string, name: string, ...args: string[]): any {
      const dashes = args.indexOf('--');
      const output = ['-o', 'json', '--show-managed-fields'];
      const created = JSON.parse(k('create', ...(dashes < 0 ? [...args, ...output] : [...args.slice(0, dashes), ...output, ...args.slice(dashes)])));
      const served = JSON.parse(k('get', resource, name, '-o', 'json', '--show-managed-fields'));
      expect(created).toEqual(served);
      return created;
    }

    test('kubectl asks for protobuf and gets it', () => {
      const r = kubectl(s.kubeconfig, ['-n', ns, 'create', 'configmap', 'probe', '--from-literal=a=b', '-v=8']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
      expect(r.stderr).toMatch(/Response Status: 201[^]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
    });

    test('ConfigMaps and Secrets: string and bytes maps', () => {
      const bin = join(scratch, 'blob');
      writeFileSync(bin, Buffer.from([0, 1, 2, 0xff, 0xfe]));
      const cm = createdAsServed('configmap', 'settings', 'configmap', 'settings', '--from-literal=mode=fast', `--from-file=blob=${bin}`);
      expect(cm.data).toEqual({ mode: 'fast' });
      expect(Buffer.from(cm.binaryData.blob, 'base64')).toEqual(Buffer.from([0, 1, 2, 0xff, 0xfe]));
      const secret = createdAsServed('secret', 'creds', 'secret', 'generic', 'creds', '--from-literal=password=s3cr3t');
      expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('s3cr3t');
      expect(secret.type).toBe('Opaque');
    });

    test('workloads: defaulted pod templates, times, int-or-string strategy values', () => {
      const d = createdAsServed('deployment', 'web', 'deployment', 'web', '--image=nginx', '--replicas=2', '--port=80');
      expect(d.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: '25%', maxSurge: '25%' });
      expect(d.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
      expect(d.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      createdAsServed('job', 'once', 'job', 'once', '--image=busybox', '--', 'true');
      createdAsServed('cronjob', 'tick', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *');
    });

    test('Services, Ingresses, PodDisruptionBudgets: embedded structs and int-or-string in both forms', () => {
      const svc = createdAsServed('service', 'api', 'service', 'clusterip', 'api', '--tcp=80:8080');
      expect(svc.spec.ports[0].targetPort).toBe(8080);
      expect(svc.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      const ing = createdAsServed('ingress', 'front', 'ingress', 'front', '--rule=foo.com/bar=api:8080');
      expect(ing.spec.rules[0]).toEqual({ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'api', port: { number: 8080 } } } }] } });
      const byPercent = createdAsServed('pdb', 'half', 'poddisruptionbudget', 'half', '--selector=app=web', '--min-available=50%');
      expect(byPercent.spec.minAvailable).toBe('50%');
      const byCount = createdAsServed('pdb', 'one', 'poddisruptionbudget', 'one', '--selector=app=web', '--max-unavailable=1');
      expect(byCount.spec.maxUnavailable).toBe(1);
    });

    test('RBAC, quotas, service accounts and cluster-scoped kinds', () => {
      createdAsServed('role', 'reader', 'role', 'reader', '--verb=get,list', '--resource=pods,configmaps');
      createdAsServed('rolebinding', 'reader', 'rolebinding', 'reader', '--role=reader', '--user=alice', '--group=devs');
      createdAsServed('serviceaccount', 'robot', 'serviceaccount', 'robot');
      // The quota controller writes status right after the create: only the created object itself is compared.
      // Its own namespace: a cpu quota would refuse the pods of later tests, which set no requests.
      kubectlOk(s.kubeconfig, ['create', 'namespace', 'pb-quota']);
      const quota = JSON.parse(kubectlOk(s.kubeconfig, ['-n', 'pb-quota', 'create', 'quota', 'small', '--hard=cpu=1,memory=1G,pods=2', '-o', 'json']));
      expect(quota.spec.hard).toEqual({ cpu: '1', memory: '1G', pods: '2' });
      expect(quota.metadata.uid).toBe(kubectlOk(s.kubeconfig, ['-n', 'pb-quota', 'get', 'quota', 'small', '-o', 'jsonpath={.metadata.uid}']));
      const pc = JSON.parse(kubectlOk(s.kubeconfig, ['create', 'priorityclass', `pb-${storage}`, '--value=1000', '-o', 'json', '--show-managed-fields']));
      expect(pc).toEqual(JSON.parse(kubectlOk(s.kubeconfig, ['get', 'priorityclass', `pb-${storage}`, '-o', 'json', '--show-managed-fields'])));
      expect(pc.value).toBe(1000);
    });

    test('an error answer is a protobuf Status kubectl reads by reason', () => {
      const again = kubectl(s.kubeconfig, ['-n', ns, 'create', 'configmap', 'settings', '--from-literal=a=b', '-v=8']);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/Response Status: 409[^]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
      expect(again.stderr).toContain('error: failed to create configmap: configmaps "settings" already exists');
      const invalid = kubectl(s.kubeconfig, ['-n', ns, 'create', 'configmap', 'Bad_Name', '--from-literal=a=b']);
      expect(invalid.stderr).toContain('error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain');
    });

    test('reviews and lists: auth can-i, and describe reading a pod and its events', () => {
      expect(k('auth', 'can-i', 'create', 'deployments').trim()).toBe('yes');
      k('run', 'box', '--image=busybox', '--restart=Never');
      const uid = k('get', 'pod', 'box', '-o', 'jsonpath={.metadata.uid}');
      const event = join(scratch, 'event.yaml');
      writeFileSync(event, `apiVersion: v1
kind: Event
metadata: {name: box.1}
involvedObject: {kind: Pod, name: box, namespace: ${ns}, uid: ${uid}, apiVersion: v1}
reason: Pulled
message: Container image "busybox" already present on machine
type: Normal
count: 3
firstTimestamp: "2026-11-25T01:00:00Z"
lastTimestamp: "2026-11-25T01:02:00Z"
source: {component: kubelet, host: node-1}
`);
      k('create', '-f', event);
      const r = kubectl(s.kubeconfig, ['-n', ns, 'describe', 'pod', 'box', '-v=8']);
      expect(r.code).toBe(0);
      // Both the pod and the event list came back as protobuf.
      expect(r.stderr).toMatch(/GET https:\/\/[^ ]+\/api\/v1\/namespaces\/pb\/events\?[^]*?Content-Type: application\/vnd\.kubernetes\.protobuf/);
      expect(r.stdout).toMatch(/Name:\s+box/);
      expect(r.stdout).toMatch(/Image:\s+busybox/);
      expect(r.stdout).toMatch(/Normal\s+Pulled\s+.*\s+\(x3 over .*\)\s+kubelet\s+Container image "busybox" already present on machine/);
    });
  });
}
