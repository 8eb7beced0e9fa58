/**
 * Everyday kubectl commands against the real binary, each checked for what kube 1.35 prints or
 * stores with no kubelet, scheduler or controller-manager: the `create` subcommands (typed
 * clients sending protobuf), `run --dry-run=server`, `scale`/`autoscale`/`set`, `label` and
 * `annotate`, every patch type (status and scale subresources too), `replace --force`, `edit`,
 * `rollout`, `describe` with its Events, `get` in every output form and selector, `explain`,
 * `api-resources`, `wait`, `delete` and client-side `apply --prune`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, kubectlArgs, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
let fail: (...args: string[]) => { code: number; stderr: string; stdout: string };
let scratch: string;
const ns = 'cmds';

beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', ns, ...args]);
  fail = (...args: string[]) => kubectl(s.kubeconfig, ['-n', ns, ...args]);
  scratch = mkdtempSync(join(tmpdir(), 'kubectl-commands-'));
  kubectlOk(s.kubeconfig, ['create', 'namespace', ns]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The header and rows of a `get` table, split on kubectl's column gaps. */
function table(out: string): { header: string[]; rows: string[][] } {
  const [head, ...rows] = out.trim().split('\n');
  const split = (l: string) => l.trim().split(/\s{2,}/);
  return { header: split(head), rows: rows.map(split) };
}

const json = (...args: string[]) => JSON.parse(k(...args, '-o', 'json'));

/** An EDITOR script that runs `sed -i EXPR` on the file kubectl hands it. */
function editor(name: string, expr: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\nsed -i '${expr}' "$1"\n`);
  chmodSync(path, 0o755);
  return path;
}

function withEditor(script: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('kubectl', kubectlArgs(s.kubeconfig, ['-n', ns, ...args]), { encoding: 'utf8', env: { ...process.env, EDITOR: script, KUBE_EDITOR: script }, timeout: 30000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('create subcommands: ingress (protobuf with an inline struct), services of every type, configmaps, secrets, pdb, RBAC', () => {
  // kubectl create ingress sends protobuf, where IngressRule's http sits in an embedded struct.
  expect(k('create', 'ingress', 'shop', '--class=nginx', '--rule=shop.example.com/api*=api:8080,tls=shop-tls', '--annotation=team=web')).toBe('ingress.networking.k8s.io/shop created\n');
  const ing = json('get', 'ingress', 'shop');
  expect(ing.spec).toEqual({
    ingressClassName: 'nginx', tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
    rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } }] } }],
  });
  expect(ing.metadata.annotations).toEqual({ team: 'web' });
  expect(k('create', 'ingress', 'fallback', '--default-backend=web:http', '--rule=/static=assets:80')).toContain('created');
  expect(table(k('get', 'ingress', '-o', 'wide')).rows).toEqual([
    ['fallback', '<none>', '*', '80', expect.any(String)],
    ['shop', 'nginx', 'shop.example.com', '80, 443', expect.any(String)],
  ]);

  k('create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080');
  k('create', 'service', 'loadbalancer', 'lb', '--tcp=443:8443');
  k('create', 'service', 'externalname', 'ext', '--external-name=db.example.com');
  const svcs = table(k('get', 'services', '-o', 'wide'));
  expect(svcs.header).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
  expect(svcs.rows.find((r) => r[0] === 'ext')).toEqual(['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', expect.any(String), 'app=ext']);
  expect(svcs.rows.find((r) => r[0] === 'lb')).toEqual(['lb', 'LoadBalancer', expect.stringMatching(/^10\./), '<pending>', expect.stringMatching(/^443:3\d{4}\/TCP$/), expect.any(String), 'app=lb']);
  expect(svcs.rows.find((r) => r[0] === 'np')?.[4]).toBe('80:30080/TCP');

  const file = join(scratch, 'app.properties');
  writeFileSync(file, 'color=blue\n');
  k('create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-file', file, '--from-file=renamed.conf=' + file);
  expect(json('get', 'configmap', 'settings').data).toEqual({ mode: 'fast', 'app.properties': 'color=blue\n', 'renamed.conf': 'color=blue\n' });

  k('create', 'secret', 'docker-registry', 'pull', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p');
  k('create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret');
  const secrets = table(k('get', 'secrets'));
  expect(secrets.header).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
  expect(secrets.rows.map((r) => r.slice(0, 3))).toEqual([['creds', 'Opaque', '1'], ['pull', 'kubernetes.io/dockerconfigjson', '1']]);

  k('create', 'poddisruptionbudget', 'half', '--selector=app=web', '--min-available=50%');
  k('create', 'pdb', 'one', '--selector=app=web', '--max-unavailable=1');
  const pdbs = table(k('get', 'pdb'));
  expect(pdbs.header).toEqual(['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
  expect(pdbs.rows.map((r) => r.slice(0, 4))).toEqual([['half', '50%', 'N/A', '0'], ['one', 'N/A', '1', '0']]);

  kubectlOk(s.kubeconfig, ['create', 'clusterrole', 'node-reader', '--verb=get,list', '--resource=nodes', '--resource=deployments.apps']);
  expect(json('get', 'clusterrole', 'node-reader').rules).toEqual([
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
  ]);
  kubectlOk(s.kubeconfig, ['create', 'clusterrolebinding', 'node-reader', '--clusterrole=node-reader', '--user=jane', '--group=ops', `--serviceaccount=${ns}:default`]);
  expect(table(kubectlOk(s.kubeconfig, ['get', 'clusterrolebinding', 'node-reader', '-o', 'wide'])).rows[0])
    .toEqual(['node-reader', 'ClusterRole/node-reader', expect.any(String), 'jane', 'ops', `${ns}/default`]);
  const quota = fail('create', 'quota', 'bad', '--hard=cpu=1', '--scopes=BestEffort');
  expect(quota.stderr).toContain('spec.scopes: Invalid value');
  expect(quota.stderr).toContain('unsupported scope applied to resource');
});

test('kube-apiserver\'s own objects: the system PriorityClasses (not deletable) and the default ServiceCIDR', () => {
  const pcs = table(kubectlOk(s.kubeconfig, ['get', 'priorityclasses']));
  expect(pcs.header).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
  expect(pcs.rows).toEqual([
    ['system-cluster-critical', '2000000000', 'false', expect.any(String), 'PreemptLowerPriority'],
    ['system-node-critical', '2000001000', 'false', expect.any(String), 'PreemptLowerPriority'],
  ]);
  const refused = kubectl(s.kubeconfig, ['delete', 'priorityclass', 'system-node-critical']);
  expect(refused.stderr).toContain('priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
  expect(table(kubectlOk(s.kubeconfig, ['get', 'servicecidrs'])).rows).toEqual([['kubernetes', '10.96.0.0/12', expect.any(String)]]);
});

test('run --dry-run=server answers the defaulted pod without storing it; run, expose', () => {
  const dry = k('run', 'probe', '--image=nginx:1.27', '--labels=app=probe', '--env=MODE=dry', '--port=80', '--dry-run=server', '-o', 'json');
  const pod = JSON.parse(dry);
  expect(pod.metadata.resourceVersion).toBeUndefined();
  expect(pod.spec.containers[0]).toMatchObject({ name: 'probe', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', env: [{ name: 'MODE', value: 'dry' }], ports: [{ containerPort: 80, protocol: 'TCP' }] });
  expect(pod.spec.serviceAccountName).toBe('default');
  expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  expect(fail('get', 'pod', 'probe').stderr).toContain('pods "probe" not found');

  expect(k('run', 'probe', '--image=nginx:1.27', '--labels=app=probe,tier=edge', '--port=80')).toBe('pod/probe created\n');
  expect(k('expose', 'pod', 'probe', '--port=8080', '--target-port=80', '--name=probe-svc')).toBe('service/probe-svc exposed\n');
  expect(json('get', 'service', 'probe-svc').spec).toMatchObject({ selector: { app: 'probe', tier: 'edge' }, ports: [{ port: 8080, targetPort: 80, protocol: 'TCP' }] });
});

test('scale with a --current-replicas precondition, autoscale, set image/env/resources/selector/serviceaccount/subject', () => {
  k('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2');
  expect(fail('scale', 'deployment', 'web', '--current-replicas=3', '--replicas=5').stderr).toContain('Expected replicas to be 3, was 2');
  expect(k('scale', 'deployment', 'web', '--current-replicas=2', '--replicas=5')).toBe('deployment.apps/web scaled\n');
  expect(k('autoscale', 'deployment', 'web', '--min=2', '--max=6', '--cpu-percent=75')).toBe('horizontalpodautoscaler.autoscaling/web autoscaled\n');
  const hpa = table(k('get', 'hpa', 'web'));
  expect(hpa.header).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
  expect(hpa.rows[0]).toEqual(['web', 'Deployment/web', 'cpu: <unknown>/75%', '2', '6', '0', expect.any(String)]);

  k('set', 'env', 'deployment/web', 'FOO=bar', 'GONE=1');
  expect(k('set', 'env', 'deployment/web', 'GONE-')).toBe('deployment.apps/web env updated\n');
  expect(k('set', 'env', 'deployment/web', '--list')).toBe('# Deployment web, container nginx\nFOO=bar\n');
  k('set', 'resources', 'deployment/web', '--limits=cpu=200m,memory=512Mi', '--requests=cpu=100m');
  k('set', 'serviceaccount', 'deployment', 'web', 'builder');
  k('set', 'image', 'deployment/web', 'nginx=nginx:1.26');
  const spec = json('get', 'deployment', 'web').spec.template.spec;
  expect(spec.containers[0]).toMatchObject({ image: 'nginx:1.26', env: [{ name: 'FOO', value: 'bar' }], resources: { limits: { cpu: '200m', memory: '512Mi' }, requests: { cpu: '100m' } } });
  expect([spec.serviceAccountName, spec.serviceAccount]).toEqual(['builder', 'builder']);
  expect(fail('set', 'image', 'deployment/web', 'missing=nginx').stderr).toContain('unable to find container named "missing"');

  k('create', 'service', 'clusterip', 'web', '--tcp=80:80');
  expect(k('set', 'selector', 'service', 'web', 'app=web,track=stable')).toBe('service/web selector updated\n');
  expect(json('get', 'service', 'web').spec.selector).toEqual({ app: 'web', track: 'stable' });
  k('create', 'rolebinding', 'viewers', '--clusterrole=view', '--user=a');
  expect(k('set', 'subject', 'rolebinding', 'viewers', '--user=b', '--group=g', `--serviceaccount=${ns}:builder`)).toBe('rolebinding.rbac.authorization.k8s.io/viewers subjects updated\n');
  expect(table(k('get', 'rolebinding', 'viewers', '-o', 'wide')).rows[0]).toEqual(['viewers', 'ClusterRole/view', expect.any(String), 'a, b', 'g', `${ns}/builder`]);
});

test('label and annotate: --overwrite, removal, --resource-version conflicts, kube\'s label validation', () => {
  k('create', 'configmap', 'tagged');
  k('label', 'configmap', 'tagged', 'tier=web', 'team=a');
  expect(fail('label', 'configmap', 'tagged', 'tier=db').stderr).toContain("'tier' already has a value (web), and --overwrite is false");
  expect(k('label', 'configmap', 'tagged', 'tier=db', '--overwrite')).toBe('configmap/tagged labeled\n');
  expect(k('label', 'configmap', 'tagged', 'team-')).toBe('configmap/tagged unlabeled\n');
  expect(k('annotate', 'configmap', 'tagged', 'note=hi')).toBe('configmap/tagged annotated\n');
  const stale = fail('annotate', 'configmap', 'tagged', 'note=ho', '--overwrite', '--resource-version=1');
  expect(stale.stderr).toContain('Operation cannot be fulfilled on configmaps "tagged": the object has been modified; please apply your changes to the latest version and try again');
  const rv = k('get', 'configmap', 'tagged', '-o', 'jsonpath={.metadata.resourceVersion}');
  k('annotate', 'configmap', 'tagged', 'note=ho', '--overwrite', `--resource-version=${rv}`);
  k('annotate', 'configmap', 'tagged', 'extra=1');
  k('annotate', 'configmap', 'tagged', 'extra-');
  expect(json('get', 'configmap', 'tagged').metadata).toMatchObject({ labels: { tier: 'db' }, annotations: { note: 'ho' } });
  expect(fail('label', 'configmap', 'tagged', 'bad key=x').stderr).toContain(`metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
});

test('patch: strategic, merge, json (a failed test op is 422), no-op, status and scale subresources', () => {
  k('create', 'deployment', 'patched', '--image=nginx', '--replicas=1');
  k('patch', 'deployment', 'patched', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}');
  expect(k('patch', 'deployment', 'patched', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}')).toBe('deployment.apps/patched patched (no change)\n');
  k('patch', 'deployment', 'patched', '--type=merge', '-p', '{"metadata":{"labels":{"x":"1"}}}');
  k('patch', 'deployment', 'patched', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/y","value":"2"},{"op":"remove","path":"/metadata/labels/x"}]');
  expect(json('get', 'deployment', 'patched').metadata.labels).toEqual({ app: 'patched', y: '2' });
  const failedTest = fail('patch', 'deployment', 'patched', '--type=json', '-p', '[{"op":"test","path":"/metadata/labels/y","value":"3"}]');
  expect(failedTest.stderr).toContain('The request is invalid');
  const invalid = fail('patch', 'deployment', 'patched', '-p', '{"spec":{"replicas":-1}}');
  expect(invalid.stderr).toContain('The Deployment "patched" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');

  expect(k('patch', 'deployment', 'patched', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":4}}')).toBe('scale.autoscaling/patched patched\n');
  k('patch', 'deployment', 'patched', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":4,"readyReplicas":3,"updatedReplicas":4,"availableReplicas":3}}');
  expect(table(k('get', 'deployment', 'patched')).rows[0]).toEqual(['patched', '3/4', '4', '3', expect.any(String)]);
  // A status patch through the main resource is dropped, as kube's strategy resets status.
  k('patch', 'deployment', 'patched', '--type=merge', '-p', '{"status":{"readyReplicas":0}}');
  expect(json('get', 'deployment', 'patched').status.readyReplicas).toBe(3);
});

test('replace, replace --force, edit with $EDITOR (and a rejected edit)', () => {
  k('create', 'configmap', 'swap', '--from-literal=a=1');
  const uid = json('get', 'configmap', 'swap').metadata.uid;
  const live = k('get', 'configmap', 'swap', '-o', 'yaml');
  expect(kubectlOk(s.kubeconfig, ['-n', ns, 'replace', '-f', '-'], live.replace('a: "1"', 'a: "2"'))).toBe('configmap/swap replaced\n');
  const forced = kubectlOk(s.kubeconfig, ['-n', ns, 'replace', '--force', '-f', '-'], k('get', 'configmap', 'swap', '-o', 'yaml').replace('a: "2"', 'a: "3"'));
  expect(forced).toBe('configmap "swap" deleted\nconfigmap/swap replaced\n');
  const after = json('get', 'configmap', 'swap');
  expect(after.data).toEqual({ a: '3' });
  expect(after.metadata.uid).not.toBe(uid);

  const edited = withEditor(editor('edit-ok.sh', 's/a: "3"/a: "4"/'), 'edit', 'configmap', 'swap');
  expect(edited.stdout).toBe('configmap/swap edited\n');
  expect(json('get', 'configmap', 'swap').data).toEqual({ a: '4' });
  k('create', 'deployment', 'editme', '--image=nginx');
  const rejected = withEditor(editor('edit-bad.sh', 's/replicas: 1/replicas: -1/'), 'edit', 'deployment', 'editme');
  expect(rejected.code).toBe(1);
  expect(rejected.stderr).toContain('deployments.apps "editme" is invalid');
});

test('rollout restart/pause/resume, history and undo over the ReplicaSets present', () => {
  k('create', 'deployment', 'roll', '--image=nginx:1.25');
  expect(k('rollout', 'history', 'deployment/roll')).toBe('deployment.apps/roll \nNo rollout history found.\n');
  expect(k('rollout', 'pause', 'deployment/roll')).toBe('deployment.apps/roll paused\n');
  expect(fail('rollout', 'pause', 'deployment/roll').stderr).toContain('deployments.apps "roll" is already paused');
  expect(json('get', 'deployment', 'roll').spec.paused).toBe(true);
  k('rollout', 'resume', 'deployment/roll');
  expect(json('get', 'deployment', 'roll').spec.paused).toBeUndefined();
  expect(k('rollout', 'restart', 'deployment/roll')).toBe('deployment.apps/roll restarted\n');
  expect(Object.keys(json('get', 'deployment', 'roll').spec.template.metadata.annotations)).toEqual(['kubectl.kubernetes.io/restartedAt']);
  expect(fail('rollout', 'undo', 'deployment/roll').stderr).toContain('no rollout history found for deployment "roll"');

  // What the Deployment controller would have left: two revisions.
  const uid = json('get', 'deployment', 'roll').metadata.uid;
  for (const [rev, image] of [['1', 'nginx:1.24'], ['2', 'nginx:1.25']]) {
    const labels = { app: 'roll', 'pod-template-hash': `h${rev}` };
    kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify({
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: `roll-h${rev}`, labels, annotations: { 'deployment.kubernetes.io/revision': rev, 'kubernetes.io/change-cause': `image ${image}` }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'roll', uid, controller: true, blockOwnerDeletion: true }] },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image }] } } },
    }));
  }
  expect(k('rollout', 'history', 'deployment/roll')).toBe('deployment.apps/roll \nREVISION  CHANGE-CAUSE\n1         image nginx:1.24\n2         image nginx:1.25\n\n');
  expect(k('rollout', 'history', 'deployment/roll', '--revision=1')).toMatch(/deployment.apps\/roll with revision #1\nPod Template:\n[\s\S]*Image:\s+nginx:1\.24/);
  expect(k('rollout', 'undo', 'deployment/roll', '--to-revision=1')).toBe('deployment.apps/roll rolled back\n');
  expect(json('get', 'deployment', 'roll').spec.template.spec.containers[0].image).toBe('nginx:1.24');

  kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify({
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'busybox' }] } } },
  }));
  expect(k('rollout', 'restart', 'daemonset/agent')).toBe('daemonset.apps/agent restarted\n');
  expect(fail('rollout', 'pause', 'daemonset/agent').stderr).toContain('daemonsets.apps "agent" pausing is not supported');
  expect(k('rollout', 'history', 'daemonset/agent')).toBe('daemonset.apps/agent \nNo rollout history found.\n');
});

test('events: describe lists them by involvedObject field selectors; get events in both APIs, sorted and selected', () => {
  k('run', 'evpod', '--image=nginx');
  const uid = json('get', 'pod', 'evpod').metadata.uid;
  const ago = (min: number) => new Date(Date.now() - min * 60000).toISOString().replace(/\.\d+Z$/, 'Z');
  const core = (name: string, reason: string, type: string, first: number, last: number, count: number) => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name },
    involvedObject: { kind: 'Pod', namespace: ns, name: 'evpod', uid, apiVersion: 'v1' },
    reason, message: `${reason} happened`, type, source: { component: 'kubelet', host: 'node-a' },
    firstTimestamp: ago(first), lastTimestamp: ago(last), count,
  });
  kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify(core('evpod.pulling', 'Pulling', 'Normal', 30, 10, 3)));
  kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify(core('evpod.backoff', 'BackOff', 'Warning', 20, 2, 1)));
  kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify({
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'evpod.sched' },
    eventTime: new Date(Date.now() - 40 * 60000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    series: { count: 4, lastObservedTime: new Date(Date.now() - 5 * 60000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z') },
    regarding: { kind: 'Pod', namespace: ns, name: 'evpod', uid, apiVersion: 'v1' },
    reason: 'FailedScheduling', note: 'no nodes available', type: 'Warning', action: 'Scheduling',
    reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-1',
  }));
  const other = core('other.pulling', 'Pulling', 'Normal', 1, 1, 1);
  other.involvedObject = { ...other.involvedObject, name: 'other', uid: 'x' };
  kubectlOk(s.kubeconfig, ['-n', ns, 'create', '-f', '-'], JSON.stringify(other));

  const described = k('describe', 'pod', 'evpod');
  const events = described.slice(described.indexOf('Events:'));
  // describe's From is the source component alone (the table's SOURCE adds the host).
  expect(events).toMatch(/Normal\s+Pulling\s+10m \(x3 over 30m\)\s+kubelet\s+Pulling happened/);
  expect(events).toMatch(/Warning\s+BackOff\s+20m\s+kubelet\s+BackOff happened/);
  expect(events).toMatch(/Warning\s+FailedScheduling\s+5m\d*s? \(x4 over 40m\)\s+default-scheduler\s+no nodes available/);
  expect(events).not.toContain('other');

  const sorted = table(k('get', 'events', '--sort-by=.lastTimestamp'));
  expect(sorted.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
  expect(sorted.rows.map((r) => r[2])).toEqual(['FailedScheduling', 'Pulling', 'BackOff', 'Pulling']);
  const wide = table(k('get', 'events', '--field-selector', 'involvedObject.name=evpod', '-o', 'wide', '--sort-by=.metadata.name'));
  expect(wide.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
  expect(wide.rows[0]).toEqual([expect.stringMatching(/^2m(\d+s)?$/), 'Warning', 'BackOff', 'pod/evpod', 'kubelet, node-a', 'BackOff happened', '20m', '1', 'evpod.backoff']);
  expect(k('get', 'events', '--field-selector', 'involvedObject.name=evpod,type=Warning', '-o', 'name')).toBe('event/evpod.backoff\nevent/evpod.sched\n');
  expect(k('get', 'events', '--field-selector', 'reason=BackOff,involvedObject.kind=Pod', '-o', 'name')).toBe('event/evpod.backoff\n');
  // events.k8s.io/v1 prints the same table from regarding and note.
  expect(table(k('get', 'events.v1.events.k8s.io', 'evpod.sched')).rows[0]).toEqual([expect.stringMatching(/^5m/), 'Warning', 'FailedScheduling', 'pod/evpod', 'no nodes available']);
  expect(k('get', 'events.v1.events.k8s.io', '--field-selector', 'regarding.name=other', '-o', 'name')).toBe('event.events.k8s.io/other.pulling\n');
});

test('get: field selectors of each kind, label selectors, -L, --show-labels, custom-columns, jsonpath, --sort-by, --chunk-size, -A', () => {
  expect(k('get', 'services', '--field-selector', 'spec.type=LoadBalancer', '-o', 'name')).toBe('service/lb\n');
  const npIP = json('get', 'service', 'np').spec.clusterIP;
  expect(k('get', 'services', '--field-selector', `spec.clusterIP=${npIP}`, '-o', 'name')).toBe('service/np\n');
  expect(k('get', 'secrets', '--field-selector', 'type=kubernetes.io/dockerconfigjson', '-o', 'name')).toBe('secret/pull\n');
  expect(k('get', 'pods', '--field-selector', 'status.phase=Pending,metadata.name=probe', '-o', 'name')).toBe('pod/probe\n');
  expect(fail('get', 'pods', '--field-selector', 'spec.color=red').stderr).toContain('field label not supported: spec.color');
  expect(fail('get', 'deployments', '--field-selector', 'status.replicas=1').stderr).toContain('"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');

  expect(k('get', 'pods', '-l', 'app=probe,tier in (edge)', '-o', 'name')).toBe('pod/probe\n');
  const labelled = table(k('get', 'pod', 'probe', '-L', 'tier,missing'));
  expect(labelled.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'TIER', 'MISSING']);
  expect(labelled.rows[0]).toEqual(['probe', '0/1', 'Pending', '0', expect.any(String), 'edge']);
  expect(table(k('get', 'pod', 'probe', '--show-labels')).rows[0].at(-1)).toBe('app=probe,tier=edge');
  expect(k('get', 'pods', 'probe', '-o', 'custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image,NODE:.spec.nodeName')).toBe('NAME    IMAGE        NODE\nprobe   nginx:1.27   <none>\n');
  expect(k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}')).toBe('5 nginx:1.26');
  expect(k('get', 'configmaps', '--sort-by=.metadata.name', '--chunk-size=1', '-o', 'name').split('\n').filter(Boolean)).toEqual(
    ['configmap/settings', 'configmap/swap', 'configmap/tagged'],
  );
  const all = table(kubectlOk(s.kubeconfig, ['get', 'serviceaccounts', '-A', '--field-selector', 'metadata.name=default']));
  expect(all.header).toEqual(['NAMESPACE', 'NAME', 'SECRETS', 'AGE']);
  expect(all.rows.map((r) => r[0])).toEqual([ns, 'default', 'kube-node-lease', 'kube-public', 'kube-system']);
});

test('get --watch-only prints only what changes after it starts', async () => {
  const { spawn } = await import('node:child_process');
  const proc = spawn('kubectl', kubectlArgs(s.kubeconfig, ['-n', ns, 'get', 'configmaps', '--watch-only', '-o', 'name']));
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  try {
    await new Promise((r) => setTimeout(r, 1500));
    k('create', 'configmap', 'watched');
    k('delete', 'configmap', 'watched');
    for (let i = 0; i < 50 && out.split('\n').filter(Boolean).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  } finally {
    proc.kill();
  }
  expect(out).toBe('configmap/watched\nconfigmap/watched\n');
});

test('explain and api-resources read the served OpenAPI and discovery', () => {
  expect(kubectlOk(s.kubeconfig, ['explain', 'pods.spec.containers.livenessProbe.httpGet.port'])).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: port <string>\n/);
  const recursive = kubectlOk(s.kubeconfig, ['explain', 'deployment.spec.template.spec.volumes.configMap', '--recursive']);
  expect(recursive).toMatch(/FIELDS:\n\s+defaultMode\t<integer>\n\s+items\t<\[\]KeyToPath>\n\s+key\t<string> -required-/);
  expect(kubectlOk(s.kubeconfig, ['explain', 'hpa.spec', '--api-version=autoscaling/v1'])).toMatch(/targetCPUUtilizationPercentage\t<integer>/);
  expect(kubectl(s.kubeconfig, ['explain', 'pods.spec.nope']).stderr).toContain('field "nope" does not exist');

  const rbac = table(kubectlOk(s.kubeconfig, ['api-resources', '--api-group=rbac.authorization.k8s.io', '--namespaced=false', '-o', 'wide']));
  expect(rbac.header).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
  expect(rbac.rows).toEqual([
    ['clusterrolebindings', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding', 'create,delete,deletecollection,get,list,patch,update,watch'],
    ['clusterroles', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole', 'create,delete,deletecollection,get,list,patch,update,watch'],
  ]);
  expect(kubectlOk(s.kubeconfig, ['api-resources', '--verbs=create', '--namespaced=true', '--api-group=authorization.k8s.io', '-o', 'name'])).toBe('localsubjectaccessreviews.authorization.k8s.io\n');
  expect(kubectlOk(s.kubeconfig, ['api-versions']).split('\n')).toEqual(expect.arrayContaining(['autoscaling/v1', 'autoscaling/v2', 'events.k8s.io/v1', 'resource.k8s.io/v1', 'v1']));
});

test('wait --for=condition, --for=jsonpath and --for=delete on objects whose status a patch sets', async () => {
  k('create', 'deployment', 'waited', '--image=nginx');
  const timedOut = fail('wait', 'deployment/waited', '--for=condition=Available', '--timeout=1s');
  expect(timedOut.stderr).toContain('timed out waiting for the condition on deployments/waited');
  k('patch', 'deployment', 'waited', '--subresource=status', '--type=merge', '-p', JSON.stringify({
    status: { conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  }));
  expect(k('wait', 'deployment/waited', '--for=condition=Available', '--timeout=10s')).toBe('deployment.apps/waited condition met\n');
  expect(k('wait', 'deployment/waited', '--for=jsonpath={.status.conditions[0].reason}=MinimumReplicasAvailable', '--timeout=10s')).toBe('deployment.apps/waited condition met\n');

  k('create', 'configmap', 'doomed');
  const { spawn } = await import('node:child_process');
  const waiter = spawn('kubectl', kubectlArgs(s.kubeconfig, ['-n', ns, 'wait', 'configmap/doomed', '--for=delete', '--timeout=20s']));
  let out = '';
  waiter.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => waiter.once('exit', (code) => r(code)));
  await new Promise((r) => setTimeout(r, 1000));
  k('delete', 'configmap', 'doomed');
  expect(await exited).toBe(0);
  expect(out).toBe('configmap/doomed condition met\n');
});

test('delete: --dry-run=server keeps objects, -l, --cascade=orphan, --ignore-not-found', () => {
  k('create', 'configmap', 'del-a');
  k('create', 'configmap', 'del-b');
  k('label', 'configmap', 'del-a', 'del-b', 'batch=old');
  expect(k('delete', 'configmap', '-l', 'batch=old', '--dry-run=server')).toBe('configmap "del-a" deleted (server dry run)\nconfigmap "del-b" deleted (server dry run)\n');
  expect(k('get', 'configmaps', '-l', 'batch=old', '-o', 'name')).toBe('configmap/del-a\nconfigmap/del-b\n');
  expect(k('delete', 'configmap', '-l', 'batch=old')).toBe('configmap "del-a" deleted\nconfigmap "del-b" deleted\n');
  expect(fail('delete', 'configmap', 'del-a').stderr).toContain('configmaps "del-a" not found');
  expect(k('delete', 'configmap', 'del-a', '--ignore-not-found')).toBe('');
  expect(k('delete', 'deployment', 'roll', '--cascade=orphan')).toBe('deployment.apps "roll" deleted\n');
  expect(json('get', 'replicaset', 'roll-h1').metadata.ownerReferences).toBeUndefined();
});

test('apply: diff, --prune with -l, view-last-applied, set-last-applied', () => {
  const manifest = (names: string[], value: string) => names.map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}, labels: {set: pruned}}\ndata: {k: ${value}}\n`).join('---\n');
  const file = join(scratch, 'set.yaml');
  writeFileSync(file, manifest(['pa', 'pb'], 'v'));
  expect(k('apply', '-f', file)).toBe('configmap/pa created\nconfigmap/pb created\n');
  expect(fail('diff', '-f', file)).toMatchObject({ code: 0, stdout: '' });
  writeFileSync(file, manifest(['pa', 'pb'], 'w'));
  const diff = fail('diff', '-f', file);
  expect(diff.code).toBe(1);
  expect(diff.stdout.split('\n').filter((l) => /^[-+] /.test(l))).toEqual(['-  k: v', '+  k: w', '-  k: v', '+  k: w']);
  writeFileSync(file, manifest(['pa'], 'v'));
  const pruned = fail('apply', '-f', file, '--prune', '-l', 'set=pruned');
  expect(pruned.stdout).toBe('configmap/pa unchanged\nconfigmap/pb pruned\n');
  expect(k('get', 'configmaps', '-l', 'set=pruned', '-o', 'name')).toBe('configmap/pa\n');
  expect(k('apply', 'view-last-applied', 'configmap/pa')).toBe('apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  annotations: {}\n  labels:\n    set: pruned\n  name: pa\n  namespace: cmds\n');

  k('create', 'configmap', 'adopted', '--from-literal=x=1');
  expect(kubectlOk(s.kubeconfig, ['-n', ns, 'apply', 'set-last-applied', '--create-annotation=true', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: adopted}\ndata: {x: "1"}\n')).toBe('configmap/adopted configured\n');
  expect(k('apply', 'view-last-applied', 'configmap/adopted', '-o', 'json')).toContain('"x": "1"');
});
