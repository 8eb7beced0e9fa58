/**
 * Real manifests of public projects (test/manifests/, see each README for where they come from),
 * applied with the real kubectl as their users do: `kubectl apply -f` creates every object with
 * no warning kube 1.35 would not send, every field sent comes back (defaults added, quantities in
 * canonical form), a second apply is a no-op and `kubectl diff` shows nothing. CRDs go first and
 * are waited for until Established, then their custom resources pass the same checks; CRDs too
 * large for client-side apply's annotation are applied server-side, as their projects say to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningServer, useWindlass } from './harness.js';
import { batches, clientSideApplicable, customKinds, expectedFromSent, groupOf, identity, loadManifests, type Manifest, manifestsRoot, persistedReadDefaults, projectNamespace, projects, sentNotReturned, statusDefaultedKinds } from './manifests.js';
import { clusterScopedResources, joined, kubectl, kubectlOk, kubectlSplit, live, noOutput, printed, stream, unexpectedStderr, waitEstablished } from './realkubectl.js';

const server = useWindlass();
let s: RunningServer;

let plan: Manifest[][] = [];
let all: Manifest[] = [];
let custom = new Set<string>();

beforeAll(() => {
  s = server();
  all = loadManifests(clusterScopedResources(s.kubeconfig));
  custom = customKinds(all);
  // Admission webhook configurations come last. Their servers are the projects' own pods, which
  // do not run here: once configured, a webhook nobody serves refuses what it matches (ingress-nginx's
  // validates every Ingress, failurePolicy Fail), as kube-apiserver would. On a cluster they are
  // installed with the pods that serve them; here they are checked after everything else.
  const isWebhookConfiguration = (m: Manifest) => m.obj.apiVersion?.startsWith('admissionregistration.k8s.io/') && /WebhookConfiguration$/.test(m.obj.kind);
  plan = [...batches(all.filter((m) => !isWebhookConfiguration(m))), ...batches(all.filter(isWebhookConfiguration))];
  // Each project's namespace, and those its objects name without creating them (created first
  // by whoever installs it, as kube would refuse the objects otherwise).
  const given = new Set(all.filter((m) => m.obj.kind === 'Namespace').map((m) => m.obj.metadata.name));
  const wanted = new Set([...projects().map(projectNamespace), ...all.map((m) => m.obj.metadata.namespace).filter(Boolean)]);
  const existing = new Set(kubectlOk(s.kubeconfig, ['get', 'namespaces', '-o', 'name']).trim().split('\n').map((n) => n.replace('namespace/', '')));
  const namespaces = [...wanted].filter((n) => !given.has(n) && !existing.has(n)).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], stream(namespaces));
});

const isCustom = (o: any): boolean => custom.has(`${groupOf(o.apiVersion)}/${o.kind}`);

test('the corpus: over 300 objects of over 25 built-in kinds from over 6 repositories, and custom resources of their CRDs', () => {
  expect(all.length).toBeGreaterThan(300);
  expect(new Set(all.filter((m) => !isCustom(m.obj)).map((m) => m.obj.kind)).size).toBeGreaterThan(25);
  const repos = new Set(projects().flatMap((p) => [...readFileSync(join(manifestsRoot, p, 'README.md'), 'utf8').matchAll(/github\.com\/(\S+?) /g)].map((m) => m[1])));
  expect(repos.size).toBeGreaterThan(6);
  const kinds = (k: string) => all.filter((m) => m.obj.kind === k).length;
  expect(kinds('CustomResourceDefinition')).toBeGreaterThanOrEqual(13);
  expect(kinds('PrometheusRule')).toBeGreaterThanOrEqual(8);
  expect(kinds('ServiceMonitor')).toBeGreaterThanOrEqual(13);
  expect(all.filter((m) => !clientSideApplicable(m.obj)).length).toBeGreaterThanOrEqual(7);
});

/**
 * Objects an earlier batch created from another document are deleted first, as someone trying
 * the other variant would (Namespaces stay: their contents are other objects). Finalizers only
 * a controller removes (kube's pvc/pv protection, an operator's own on its custom resources) are
 * dropped by the test, as those controllers would; a CRD is waited for until it is gone.
 */
function deleteReplaced(batch: Manifest[], earlier: Set<string>): void {
  const replaced = batch.filter((m) => earlier.has(identity(m.obj)) && m.obj.kind !== 'Namespace')
    .map((m) => ({ apiVersion: m.obj.apiVersion, kind: m.obj.kind, metadata: { name: m.obj.metadata.name, namespace: m.obj.metadata.namespace } }));
  if (replaced.length === 0) return;
  kubectlOk(s.kubeconfig, ['delete', '--wait=false', '--ignore-not-found', '-f', '-'], stream(replaced));
  const unfinalize = ['patch', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'];
  const left = live(s.kubeconfig, replaced).filter((o) => (o.metadata.finalizers ?? []).length > 0);
  if (left.length > 0) kubectlOk(s.kubeconfig, [...unfinalize, '-f', '-'], stream(left));
  const crds = replaced.filter((o) => o.kind === 'CustomResourceDefinition');
  for (const crd of crds) {
    const items: any[] = JSON.parse(kubectl(s.kubeconfig, ['get', crd.metadata.name, '-A', '-o', 'json']).stdout || '{"items":[]}').items;
    for (const o of items.filter((i) => (i.metadata.finalizers ?? []).length > 0)) {
      const r = kubectl(s.kubeconfig, [...unfinalize, crd.metadata.name, o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : [])]);
      if (r.code !== 0 && !/NotFound/.test(r.stderr)) throw new Error(`dropping the finalizers of ${printed(o)}: ${r.stderr}`);
    }
  }
  if (crds.length > 0) kubectlOk(s.kubeconfig, ['wait', '--for=delete', '--timeout=60s', ...crds.map((c) => `crd/${c.metadata.name}`)]);
}

/** Everything wrong with one batch, as lines naming the project, file and object. */
async function applyBatch(n: number): Promise<string[]> {
  const batch = plan[n];
  const earlier = new Set(plan.slice(0, n).flat().map((m) => identity(m.obj)));
  const problems: string[] = [];
  deleteReplaced(batch, earlier);

  const objs = batch.map((m) => m.obj);
  const serverSide = objs.filter((o) => !clientSideApplicable(o));
  const clientSide = objs.filter((o) => clientSideApplicable(o));
  // What others need (namespaces, CRDs, service accounts: first in the batch) goes in first;
  // custom resources once their CRDs are Established.
  const first = clientSide.filter((o) => ['Namespace', 'CustomResourceDefinition', 'ServiceAccount'].includes(o.kind));
  const prefix = first.length > 0 ? kubectl(s.kubeconfig, ['apply', '-f', '-'], stream(first)) : noOutput;
  const large = serverSide.length > 0 ? kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(serverSide)) : noOutput;
  problems.push(...waitEstablished(s.kubeconfig, objs));
  const rest = await kubectlSplit(s.kubeconfig, ['apply', '-f', '-'], clientSide.filter((o) => !first.includes(o)));
  const applied = joined([prefix, large, rest]);
  const lines = new Set(applied.stdout.trim().split('\n'));
  for (const m of batch) {
    const expected = !clientSideApplicable(m.obj) ? ['serverside-applied']
      : m.obj.kind === 'Namespace' && earlier.has(identity(m.obj)) ? ['configured', 'unchanged'] : ['created'];
    if (!expected.some((e) => lines.has(`${printed(m.obj)} ${e}`))) problems.push(`${m.project}/${m.file} ${printed(m.obj)} not ${expected.join('/')}`);
  }
  for (const l of unexpectedStderr(applied.stderr)) problems.push(`apply: ${l}`);

  // Objects that failed to apply are already reported; `get` answers the others.
  const byId = new Map<string, any>(live(s.kubeconfig, objs).map((o: any) => [identity(o), o]));
  for (const m of batch) {
    const answer = byId.get(identity(m.obj));
    if (!answer) continue;
    for (const d of sentNotReturned(expectedFromSent(m.obj), answer)) problems.push(`${m.project}/${m.file} ${printed(m.obj)}: ${d}`);
  }

  // kubectl sends a patch again where its three-way merge cannot see the live object equals
  // the manifest (stringData, a list without merge keys whose items got defaults, a PDB's
  // replace-strategy selector), and prints "configured": kube then writes nothing, so the
  // resourceVersion stays — but for a status its CRD defaults, which the first update writes.
  const again = joined([
    await kubectlSplit(s.kubeconfig, ['apply', '-f', '-'], clientSide),
    serverSide.length > 0 ? kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(serverSide)) : noOutput,
  ]);
  for (const l of again.stdout.trim().split('\n')) if (!/ (unchanged|configured|serverside-applied)$/.test(l)) problems.push(`second apply: ${l}`);
  for (const l of unexpectedStderr(again.stderr)) problems.push(`second apply: ${l}`);
  const readDefaulted = statusDefaultedKinds(plan.flat());
  for (const o of live(s.kubeconfig, objs)) {
    const before = byId.get(identity(o));
    if (before && before.metadata.resourceVersion !== o.metadata.resourceVersion && !persistedReadDefaults(before, o, readDefaulted)) problems.push(`second apply wrote ${printed(o)}: resourceVersion ${before.metadata.resourceVersion} -> ${o.metadata.resourceVersion}, generation ${before.metadata.generation} -> ${o.metadata.generation}`);
  }

  const diff = joined([
    await kubectlSplit(s.kubeconfig, ['diff', '-f', '-'], clientSide),
    serverSide.length > 0 ? kubectl(s.kubeconfig, ['diff', '--server-side', '-f', '-'], stream(serverSide)) : noOutput,
  ]);
  if (diff.code !== 0) problems.push(`diff (exit ${diff.code}): ${diff.stdout.slice(0, 4000)}${diff.stderr.slice(0, 2000)}`);

  return problems;
}

test('apply creates every object as sent, a second apply is a no-op, diff shows nothing', async () => {
  const problems: string[] = [];
  for (let n = 0; n < plan.length; n++) problems.push(...(await applyBatch(n)).map((p) => `batch ${n + 1}: ${p}`));
  expect(problems).toEqual([]);
}, 420000);
