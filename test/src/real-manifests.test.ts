/**
 * Real manifests of public projects (test/manifests/, see each README for where they come from),
 * applied with the real kubectl as their users do: `kubectl apply -f` creates every object with
 * no warning kube 1.35 would not send, every field sent comes back (defaults added, quantities in
 * canonical form), a second apply is a no-op and `kubectl diff` shows nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlArgs, type KubectlResult, type RunningServer, useWindlass } from './harness.js';
import { batches, expectedFromSent, groupOf, identity, loadManifests, type Manifest, manifestsRoot, projectNamespace, projects, sentNotReturned } from './manifests.js';

const server = useWindlass();
let s: RunningServer;

/**
 * Warnings kube-apiserver 1.35 itself sends for these manifests (its strategies' and
 * deprecations' messages); anything else (an unknown field above all) means Windlass's schema or
 * strategies differ from kube's.
 */
const kubeWarnings: RegExp[] = [
  // apps/core strategies: nodeSelector/affinity beta labels (pkg/api/pod/warnings.go)
  /^spec\.(template\.spec\.)?(nodeSelector|affinity\.nodeAffinity\.\S+)\[beta\.kubernetes\.io\/(os|arch)\]: deprecated since v1\.14; use "kubernetes\.io\/(os|arch)" instead$/,
  // v1 Endpoints is deprecated on every request (kube 1.33+)
  /^v1 Endpoints is deprecated in v1\.33\+; use discovery\.k8s\.io\/v1 EndpointSlice$/,
  // in-tree volume plugins (pkg/api/pod/warnings.go, pkg/api/persistentvolume/util.go)
  /^spec\.(template\.spec\.)?volumes\[\d+\]\.\w+: deprecated in v1\.\d+, non-functional in v1\.\d+\+$/,
  /^spec\.\w+: deprecated in v1\.\d+, non-functional in v1\.\d+\+$/,
  // the beta storage-class annotation on PVCs and PVs (pkg/api/persistentvolumeclaim/util.go)
  /^metadata\.annotations\[volume\.beta\.kubernetes\.io\/storage-class\]: deprecated since v1\.8; use "storageClassName" attribute instead$/,
];

/** `kind.group/name`, as kubectl names an object in its output. */
function printed(obj: any): string {
  const group = groupOf(obj.apiVersion);
  return `${obj.kind.toLowerCase()}${group ? `.${group}` : ''}/${obj.metadata.name}`;
}

function stream(objs: any[]): string {
  return objs.map((o) => JSON.stringify(o)).join('\n');
}

function warnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('Warning: ')).map((l) => l.slice('Warning: '.length));
}

/** kubectl with room for the corpus's answers (a `get` of one batch is several MB). */
function kubectl(kubeconfig: string, args: string[], input?: string): KubectlResult {
  const r = spawnSync('kubectl', kubectlArgs(kubeconfig, args), { input, encoding: 'utf8', timeout: 120000, maxBuffer: 256 * 2 ** 20 });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function kubectlOk(kubeconfig: string, args: string[], input?: string): string {
  const r = kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/**
 * kubectl over `objs` in `parts` processes at once, their outputs joined: kubectl spends
 * ~50 ms of its own CPU per object on an apply's three-way merge, the server a few.
 */
async function kubectlSplit(args: string[], objs: any[], parts = 3): Promise<KubectlResult> {
  const size = Math.ceil(objs.length / parts);
  const chunks = Array.from({ length: parts }, (_, i) => objs.slice(i * size, (i + 1) * size)).filter((c) => c.length > 0);
  const results = await Promise.all(chunks.map((chunk) => new Promise<KubectlResult>((resolve, reject) => {
    const child = spawn('kubectl', kubectlArgs(s.kubeconfig, args), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stream(chunk));
  })));
  return {
    code: Math.max(...results.map((r) => r.code)),
    stdout: results.map((r) => r.stdout).join(''),
    stderr: results.map((r) => r.stderr).join(''),
  };
}

let plan: Manifest[][] = [];
let all: Manifest[] = [];

beforeAll(() => {
  s = server();
  // Scope from the server's discovery, as kubectl decides where an object without a namespace goes.
  const clusterScoped = new Set<string>();
  for (const row of kubectlOk(s.kubeconfig, ['api-resources', '--namespaced=false', '--no-headers']).trim().split('\n')) {
    const cols = row.trim().split(/\s+/);
    clusterScoped.add(`${groupOf(cols[cols.length - 3])}/${cols[cols.length - 1]}`);
  }
  all = loadManifests(clusterScoped);
  plan = batches(all);
  // Each project's namespace, and those its objects name without creating them (created first
  // by whoever installs it, as kube would refuse the objects otherwise).
  const given = new Set(all.filter((m) => m.obj.kind === 'Namespace').map((m) => m.obj.metadata.name));
  const wanted = new Set([...projects().map(projectNamespace), ...all.map((m) => m.obj.metadata.namespace).filter(Boolean)]);
  const existing = new Set(kubectlOk(s.kubeconfig, ['get', 'namespaces', '-o', 'name']).trim().split('\n').map((n) => n.replace('namespace/', '')));
  const namespaces = [...wanted].filter((n) => !given.has(n) && !existing.has(n)).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], stream(namespaces));
});

test('the corpus: over 300 objects of over 25 built-in kinds from over 6 repositories', () => {
  expect(all.length).toBeGreaterThan(300);
  expect(new Set(all.map((m) => m.obj.kind)).size).toBeGreaterThan(25);
  const repos = new Set(projects().flatMap((p) => [...readFileSync(join(manifestsRoot, p, 'README.md'), 'utf8').matchAll(/github\.com\/(\S+?) /g)].map((m) => m[1])));
  expect(repos.size).toBeGreaterThan(6);
});

/** Everything wrong with one batch, as lines naming the project, file and object. */
async function applyBatch(n: number): Promise<string[]> {
    const batch = plan[n];
    const earlier = new Set(plan.slice(0, n).flat().map((m) => identity(m.obj)));
    const problems: string[] = [];

    // An object an earlier batch created from another document is deleted first, as someone
    // trying the other variant would (Namespaces stay: their contents are other objects).
    const replaced = batch.filter((m) => earlier.has(identity(m.obj)) && m.obj.kind !== 'Namespace')
      .map((m) => ({ apiVersion: m.obj.apiVersion, kind: m.obj.kind, metadata: { name: m.obj.metadata.name, namespace: m.obj.metadata.namespace } }));
    if (replaced.length > 0) {
      kubectlOk(s.kubeconfig, ['delete', '--wait=false', '--ignore-not-found', '-f', '-'], stream(replaced));
      // kube's protection controllers drop pvc-protection/pv-protection once nothing uses the
      // volume; Windlass runs none, so the test drops what is left, as they would.
      const left = JSON.parse(kubectl(s.kubeconfig, ['get', '-f', '-', '-o', 'json'], stream(replaced)).stdout || '{"items":[]}').items as any[];
      if (left.length > 0) kubectlOk(s.kubeconfig, ['patch', '--type=merge', '-p', '{"metadata":{"finalizers":null}}', '-f', '-'], stream(left));
    }

    const objs = batch.map((m) => m.obj);
    // What others need (namespaces, CRDs, service accounts: first in the batch) goes in first.
    const first = objs.filter((o) => ['Namespace', 'CustomResourceDefinition', 'ServiceAccount'].includes(o.kind));
    const prefix = first.length > 0 ? kubectl(s.kubeconfig, ['apply', '-f', '-'], stream(first)) : { code: 0, stdout: '', stderr: '' };
    const rest = await kubectlSplit(['apply', '-f', '-'], objs.slice(first.length));
    const applied = { stdout: prefix.stdout + rest.stdout, stderr: prefix.stderr + rest.stderr };
    const lines = new Set(applied.stdout.trim().split('\n'));
    for (const m of batch) {
      const expected = m.obj.kind === 'Namespace' && earlier.has(identity(m.obj)) ? ['configured', 'unchanged'] : ['created'];
      if (!expected.some((e) => lines.has(`${printed(m.obj)} ${e}`))) problems.push(`${m.project}/${m.file} ${printed(m.obj)} not ${expected.join('/')}`);
    }
    for (const l of applied.stderr.split('\n')) {
      if (l.trim() === '') continue;
      if (l.startsWith('Warning: ') ? !kubeWarnings.some((w) => w.test(l.slice(9))) : true) problems.push(`apply: ${l}`);
    }

    // Objects that failed to apply are already reported; `get` answers the others.
    const got = JSON.parse(kubectl(s.kubeconfig, ['get', '-f', '-', '-o', 'json'], stream(objs)).stdout || '{"items":[]}');
    const byId = new Map<string, any>(got.items.map((o: any) => [identity(o), o]));
    for (const m of batch) {
      const answer = byId.get(identity(m.obj));
      if (!answer) continue;
      for (const d of sentNotReturned(expectedFromSent(m.obj), answer)) problems.push(`${m.project}/${m.file} ${printed(m.obj)}: ${d}`);
    }

    // kubectl sends a patch again where its three-way merge cannot see the live object equals
    // the manifest (stringData, a list without merge keys whose items got defaults, a PDB's
    // replace-strategy selector), and prints "configured": kube then writes nothing, so the
    // resourceVersion stays.
    const again = await kubectlSplit(['apply', '-f', '-'], objs);
    for (const l of again.stdout.trim().split('\n')) if (!/ (unchanged|configured)$/.test(l)) problems.push(`second apply: ${l}`);
    if (again.code !== 0) problems.push(`second apply: ${again.stderr}`);
    const after = JSON.parse(kubectl(s.kubeconfig, ['get', '-f', '-', '-o', 'json'], stream(objs)).stdout || '{"items":[]}');
    for (const o of after.items) {
      const before = byId.get(identity(o));
      if (before && before.metadata.resourceVersion !== o.metadata.resourceVersion) problems.push(`second apply wrote ${printed(o)}: resourceVersion ${before.metadata.resourceVersion} -> ${o.metadata.resourceVersion}, generation ${before.metadata.generation} -> ${o.metadata.generation}`);
    }
    for (const w of warnings(again.stderr)) if (!kubeWarnings.some((p) => p.test(w))) problems.push(`second apply: Warning: ${w}`);

    const diff = await kubectlSplit(['diff', '-f', '-'], objs);
    if (diff.code !== 0) problems.push(`diff (exit ${diff.code}): ${diff.stdout.slice(0, 4000)}${diff.stderr.slice(0, 2000)}`);

    return problems;
}

test('apply creates every object as sent, a second apply is a no-op, diff shows nothing', async () => {
  const problems: string[] = [];
  for (let n = 0; n < plan.length; n++) problems.push(...(await applyBatch(n)).map((p) => `batch ${n + 1}: ${p}`));
  expect(problems).toEqual([]);
}, 300000);
