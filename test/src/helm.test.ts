/**
 * helm/windlass rendered by test/src/gotemplate.ts (no helm binary can be installed here),
 * with default values and with a bundled etcd, and applied to Windlass itself with
 * `kubectl apply --dry-run=server`. The ServiceMonitor (a CRD kind Windlass does not serve) is
 * off by default; enabled, it renders but is not sent.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChartRenderer, mergeValues, schemaErrors } from './gotemplate.js';
import { kubectl, kubectlOk, removeDir, startWindlass, type RunningServer } from './harness.js';

const yaml = createRequire(import.meta.url)('js-yaml') as { load(s: string): any; dump(v: unknown): string };
const chartDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'helm', 'windlass');
const chart = yaml.load(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'));
const defaults = yaml.load(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8'));
const renderer = ChartRenderer.load(chartDir);
const namespace = 'windlass-system';

function render(overrides: object = {}): any[] {
  const values = mergeValues(defaults, overrides);
  expect(schemaErrors(schema, values)).toEqual([]);
  return renderer.render({
    Values: values,
    Release: { Name: 'wl', Namespace: namespace, Service: 'Helm' },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  });
}

const kinds = (docs: any[]) => docs.map((d) => `${d.kind}/${d.metadata.name}`);
const args = (docs: any[]) => docs.find((d) => d.kind === 'Deployment').spec.template.spec.containers[0].args as string[];

let server: RunningServer;

beforeAll(async () => {
  server = await startWindlass();
  kubectlOk(server.kubeconfig, ['create', 'namespace', namespace]);
}, 60000);

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

/** Server-side dry run of the rendered manifests; nothing is stored. */
function dryRun(docs: any[]): string {
  const input = docs.map((d) => `---\n${yaml.dump(d)}`).join('');
  // kubectl's default validation (strict: the server's fieldValidation, or its OpenAPI) applies.
  const r = kubectl(server.kubeconfig, ['apply', '--dry-run=server', '-f', '-'], input);
  if (r.code !== 0) throw new Error(`kubectl apply --dry-run=server failed (${r.code}):\n${r.stderr}\n${input}`);
  // No field the server's typed decoding does not know (it would warn and drop it).
  expect(r.stderr).not.toMatch(/unknown field/i);
  return r.stdout;
}

test('the values file satisfies the schema, and the schema rejects bad values', () => {
  expect(schemaErrors(schema, defaults)).toEqual([]);
  expect(schemaErrors(schema, mergeValues(defaults, { replicaCount: 0 }))).toEqual(['values.replicaCount: below 1']);
  expect(schemaErrors(schema, mergeValues(defaults, { etcd: { endpoints: ['etcd:2379'] } }))).toEqual(['values.etcd.endpoints[0]: does not match ^https?://']);
  expect(schemaErrors(schema, mergeValues(defaults, { image: { pullPolicy: 'Sometimes' } }))).toHaveLength(1);
});

test('default values: N replicas on external etcd, probes, Secrets, PDB, NetworkPolicy, no ServiceMonitor; the server accepts them', () => {
  const docs = render();
  expect(kinds(docs).sort()).toEqual(['Deployment/wl-windlass', 'NetworkPolicy/wl-windlass', 'PodDisruptionBudget/wl-windlass', 'Service/wl-windlass']);
  const deploy = docs.find((d) => d.kind === 'Deployment');
  expect(deploy.spec.replicas).toBe(3);
  const pod = deploy.spec.template.spec;
  const c = pod.containers[0];
  expect(c.image).toBe(`windlass:${chart.appVersion}`);
  expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'https', scheme: 'HTTPS' });
  expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'https', scheme: 'HTTPS' });
  expect(c.resources.requests).toEqual({ cpu: '250m', memory: '256Mi' });
  expect(pod.securityContext.runAsNonRoot).toBe(true);
  expect(args(docs)).toContain('--etcd-servers=http://etcd-0.etcd:2379,http://etcd-1.etcd:2379,http://etcd-2.etcd:2379');
  expect(args(docs)).toContain('--storage=etcd');
  expect(pod.volumes.map((v: any) => v.secret?.secretName).filter(Boolean)).toEqual(['windlass-tls', 'windlass-tokens', 'windlass-service-account']);
  // Every replica signs and verifies service account tokens with the one shared key.
  expect(args(docs)).toContain('--service-account-signing-key-file=/credentials/service-account/sa.key');
  expect(args(docs)).toContain('--service-account-key-file=/credentials/service-account/sa.pub');
  // The selector the Service, PDB and NetworkPolicy use matches the pods.
  const podLabels = deploy.spec.template.metadata.labels;
  for (const sel of [deploy.spec.selector.matchLabels, docs.find((d) => d.kind === 'Service').spec.selector,
    docs.find((d) => d.kind === 'PodDisruptionBudget').spec.selector.matchLabels, docs.find((d) => d.kind === 'NetworkPolicy').spec.podSelector.matchLabels]) {
    expect(podLabels).toMatchObject(sel);
  }
  const out = dryRun(docs);
  expect(out).toMatch(/deployment\.apps\/wl-windlass created \(server dry run\)/);
  expect(out).toMatch(/poddisruptionbudget\.policy\/wl-windlass created \(server dry run\)/);
  // Dry run: nothing was stored.
  expect(kubectl(server.kubeconfig, ['get', 'deployment', 'wl-windlass', '-n', namespace]).code).not.toBe(0);
});

test('a bundled etcd: a StatefulSet of members with a headless Service, the replicas pointed at every member; the server accepts them', () => {
  const docs = render({ replicaCount: 2, etcd: { bundled: { enabled: true } }, extraArgs: ['--request-timeout=30s'], networkPolicy: { ingressFrom: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] } });
  expect(kinds(docs).sort()).toEqual(['Deployment/wl-windlass', 'NetworkPolicy/wl-etcd', 'NetworkPolicy/wl-windlass', 'PodDisruptionBudget/wl-windlass', 'Service/wl-etcd', 'Service/wl-windlass', 'StatefulSet/wl-etcd']);
  const members = [0, 1, 2].map((i) => `wl-etcd-${i}.wl-etcd.${namespace}.svc`);
  expect(args(docs)).toContain(`--etcd-servers=${members.map((m) => `http://${m}:2379`).join(',')}`);
  expect(args(docs)).toContain('--request-timeout=30s');
  const sts = docs.find((d) => d.kind === 'StatefulSet');
  expect(sts.spec.serviceName).toBe('wl-etcd');
  expect(sts.spec.replicas).toBe(3);
  expect(sts.spec.template.spec.containers[0].args).toContain(`--initial-cluster=${members.map((m, i) => `wl-etcd-${i}=http://${m}:2380`).join(',')}`);
  const headless = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'wl-etcd');
  expect(headless.spec.clusterIP).toBe('None');
  expect(sts.spec.template.metadata.labels).toMatchObject(headless.spec.selector);
  expect(docs.find((d) => d.metadata.name === 'wl-windlass' && d.kind === 'NetworkPolicy').spec.ingress[0].from).toEqual([{ namespaceSelector: { matchLabels: { team: 'a' } } }]);
  const out = dryRun(docs);
  expect(out).toMatch(/statefulset\.apps\/wl-etcd created \(server dry run\)/);
  expect(out).toMatch(/networkpolicy\.networking\.k8s\.io\/wl-etcd created \(server dry run\)/);
});

test('an external etcd over TLS: the Secret mounted and passed as kube\'s --etcd-cafile/--etcd-certfile/--etcd-keyfile; the server accepts it', () => {
  const docs = render({ etcd: { endpoints: ['https://etcd.example:2379'], tlsSecret: 'etcd-client' } });
  expect(args(docs)).toEqual(expect.arrayContaining([
    '--etcd-servers=https://etcd.example:2379',
    '--etcd-cafile=/credentials/etcd/ca.crt',
    '--etcd-certfile=/credentials/etcd/tls.crt',
    '--etcd-keyfile=/credentials/etcd/tls.key',
  ]));
  const pod = docs.find((d) => d.kind === 'Deployment').spec.template.spec;
  expect(pod.volumes.find((v: any) => v.name === 'etcd-tls')).toEqual({ name: 'etcd-tls', secret: { secretName: 'etcd-client' } });
  expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'etcd-tls', mountPath: '/credentials/etcd', readOnly: true });
  // Without the Secret, none of it.
  expect(args(render()).some((a: string) => a.startsWith('--etcd-cafile'))).toBe(false);
  expect(dryRun(docs)).toMatch(/deployment\.apps\/wl-windlass created \(server dry run\)/);
});

test('the front-proxy Secret, when named, is mounted and passed as --proxy-client-cert-file, --proxy-client-key-file and --requestheader-*; the server accepts it', () => {
  const docs = render({ credentials: { frontProxySecret: 'windlass-front-proxy' } });
  expect(args(docs)).toEqual(expect.arrayContaining([
    '--proxy-client-cert-file=/credentials/front-proxy/tls.crt',
    '--proxy-client-key-file=/credentials/front-proxy/tls.key',
    '--requestheader-client-ca-file=/credentials/front-proxy/ca.crt',
    '--requestheader-allowed-names=front-proxy-client',
  ]));
  const pod = docs.find((d) => d.kind === 'Deployment').spec.template.spec;
  expect(pod.volumes.find((v: any) => v.name === 'front-proxy')).toEqual({ name: 'front-proxy', secret: { secretName: 'windlass-front-proxy' } });
  expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'front-proxy', mountPath: '/credentials/front-proxy', readOnly: true });
  // By default none of it (existing installs have no such Secret).
  expect(args(render()).some((a: string) => a.startsWith('--proxy-client'))).toBe(false);
  expect(dryRun(docs)).toMatch(/deployment\.apps\/wl-windlass created \(server dry run\)/);
});

test('the ServiceMonitor, when enabled, renders for prometheus-operator (a CRD kind, which Windlass does not serve yet)', () => {
  const docs = render({ serviceMonitor: { enabled: true } });
  const sm = docs.find((d) => d.kind === 'ServiceMonitor');
  expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
  expect(sm.spec.endpoints[0]).toMatchObject({ port: 'https', scheme: 'https', path: '/metrics', bearerTokenSecret: { name: 'windlass-prometheus-token', key: 'token' } });
  expect(docs.find((d) => d.kind === 'Service').spec.ports[0].name).toBe('https');
  const r = kubectl(server.kubeconfig, ['apply', '--dry-run=server', '--validate=false', '-f', '-'], yaml.dump(sm));
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/ServiceMonitor/);
  dryRun(docs.filter((d) => d.kind !== 'ServiceMonitor'));
});
