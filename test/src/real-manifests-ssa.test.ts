/**
 * kube-prometheus and Argo CD installed as their guides say, with `kubectl apply --server-side`:
 * the namespace and CRDs first (waited for until Established), then the whole set, every object
 * applied with only the warnings kube 1.35 sends and every field sent coming back; applying the
 * whole set again writes nothing (every resourceVersion stays) and `kubectl diff --server-side`
 * is empty. Custom resources are typed by their CRD's schema, built-ins by kube's.
 */
import { type RunningServer, useWindlass } from './harness.js';
import { expectedFromSent, identity, loadManifests, type Manifest, persistedReadDefaults, projectNamespace, sentNotReturned, statusDefaultedKinds } from './manifests.js';
import { clusterScopedResources, kubectl, kubectlOk, kubectlSplit, live, printed, stream, unexpectedStderr, waitEstablished } from './realkubectl.js';

const server = useWindlass();
let s: RunningServer;
const installed = ['argo-cd', 'kube-prometheus'];
let all: Manifest[] = [];

beforeAll(() => {
  s = server();
  all = loadManifests(clusterScopedResources(s.kubeconfig), installed);
  const given = new Set(all.filter((m) => m.obj.kind === 'Namespace').map((m) => m.obj.metadata.name));
  const wanted = new Set([...installed.map(projectNamespace), ...all.map((m) => m.obj.metadata.namespace).filter(Boolean)]);
  const existing = new Set(kubectlOk(s.kubeconfig, ['get', 'namespaces', '-o', 'name']).trim().split('\n').map((n) => n.replace('namespace/', '')));
  const namespaces = [...wanted].filter((n) => !given.has(n) && !existing.has(n)).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], stream(namespaces));
});

/** Lines of an apply's output that do not say the object was applied, and its unexpected stderr. */
function notApplied(r: { stdout: string; stderr: string }, objs: any[]): string[] {
  const lines = new Set(r.stdout.trim().split('\n'));
  return [
    ...objs.filter((o) => !lines.has(`${printed(o)} serverside-applied`)).map((o) => `${printed(o)} not serverside-applied`),
    ...unexpectedStderr(r.stderr),
  ];
}

/**
 * `kubectl apply --server-side` of `objs`. Every request must be answered: kubectl sends each
 * object's PATCH on one kept-alive connection right after reading the previous answer, which
 * once met a paused parser and was reset (the server's socket write buffer, apiserver.ts).
 */
async function applyAll(objs: any[]): Promise<string[]> {
  return notApplied(await kubectlSplit(s.kubeconfig, ['apply', '--server-side', '-f', '-'], objs), objs);
}

test('the whole set applied server-side twice: created as sent, the second apply writes nothing, diff --server-side is empty', async () => {
  const objs = all.map((m) => m.obj);
  expect(objs.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(13);
  expect(objs.filter((o) => ['PrometheusRule', 'ServiceMonitor', 'Prometheus', 'Alertmanager', 'AppProject', 'Application'].includes(o.kind)).length).toBeGreaterThanOrEqual(25);
  const problems: string[] = [];

  const setup = objs.filter((o) => o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition');
  problems.push(...notApplied(kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(setup)), setup).map((p) => `setup: ${p}`));
  problems.push(...waitEstablished(s.kubeconfig, setup));

  problems.push(...(await applyAll(objs)).map((p) => `apply: ${p}`));
  const byId = new Map<string, any>(live(s.kubeconfig, objs).map((o) => [identity(o), o]));
  for (const m of all) {
    const answer = byId.get(identity(m.obj));
    if (!answer) problems.push(`${m.project}/${m.file} ${printed(m.obj)}: not there`);
    else for (const d of sentNotReturned(expectedFromSent(m.obj), answer)) problems.push(`${m.project}/${m.file} ${printed(m.obj)}: ${d}`);
  }

  problems.push(...(await applyAll(objs)).map((p) => `second apply: ${p}`));
  const readDefaulted = statusDefaultedKinds(all);
  for (const o of live(s.kubeconfig, objs)) {
    const before = byId.get(identity(o));
    if (before && before.metadata.resourceVersion !== o.metadata.resourceVersion && !persistedReadDefaults(before, o, readDefaulted)) problems.push(`second apply wrote ${printed(o)}: resourceVersion ${before.metadata.resourceVersion} -> ${o.metadata.resourceVersion}, generation ${before.metadata.generation} -> ${o.metadata.generation}`);
  }

  const diff = await kubectlSplit(s.kubeconfig, ['diff', '--server-side', '-f', '-'], objs);
  if (diff.code !== 0) problems.push(`diff --server-side (exit ${diff.code}): ${diff.stdout.slice(0, 4000)}${diff.stderr.slice(0, 2000)}`);
  expect(problems).toEqual([]);
}, 180000);
