/**
 * kubectl as the real-manifests tests drive it: with room for the corpus's answers, several
 * processes over one set of objects, and kubectl's output read as kube-apiserver 1.35's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { kubectlArgs, type KubectlResult } from './harness.js';
import { groupOf } from './manifests.js';

/**
 * Warnings kube-apiserver 1.35 itself sends for these manifests (its strategies' and
 * deprecations' messages); anything else (an unknown field above all) means Windlass's schema or
 * strategies differ from kube's.
 */
export const kubeWarnings: RegExp[] = [
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

/** The lines of kubectl's stderr that are neither empty nor a warning kube sends. */
export function unexpectedStderr(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !(l.startsWith('Warning: ') && kubeWarnings.some((w) => w.test(l.slice(9)))));
}

/** `kind.group/name`, as kubectl names an object in its output. */
export function printed(obj: any): string {
  const group = groupOf(obj.apiVersion);
  return `${obj.kind.toLowerCase()}${group ? `.${group}` : ''}/${obj.metadata.name}`;
}

export function stream(objs: any[]): string {
  return objs.map((o) => JSON.stringify(o)).join('\n');
}

export const noOutput: KubectlResult = { code: 0, stdout: '', stderr: '' };

/** kubectl with room for the corpus's answers (a `get` of one batch is several MB). */
export function kubectl(kubeconfig: string, args: string[], input?: string): KubectlResult {
  const r = spawnSync('kubectl', kubectlArgs(kubeconfig, args), { input, encoding: 'utf8', timeout: 120000, maxBuffer: 256 * 2 ** 20 });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function kubectlOk(kubeconfig: string, args: string[], input?: string): string {
  const r = kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** The objects' live state, by `get -f -` (objects that are not there are left out). */
export function live(kubeconfig: string, objs: any[]): any[] {
  if (objs.length === 0) return [];
  return JSON.parse(kubectl(kubeconfig, ['get', '-f', '-', '-o', 'json'], stream(objs)).stdout || '{"items":[]}').items;
}

/**
 * kubectl over `objs` in `parts` processes at once, their outputs joined: kubectl spends
 * ~50 ms of its own CPU per object on an apply's three-way merge, the server a few.
 */
export async function kubectlSplit(kubeconfig: string, args: string[], objs: any[], parts = 3): Promise<KubectlResult> {
  if (objs.length === 0) return noOutput;
  const size = Math.ceil(objs.length / parts);
  const chunks = Array.from({ length: parts }, (_, i) => objs.slice(i * size, (i + 1) * size)).filter((c) => c.length > 0);
  const results = await Promise.all(chunks.map((chunk) => new Promise<KubectlResult>((resolve, reject) => {
    const child = spawn('kubectl', kubectlArgs(kubeconfig, args), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stream(chunk));
  })));
  return joined(results);
}

export function joined(results: KubectlResult[]): KubectlResult {
  return {
    code: Math.max(0, ...results.map((r) => r.code)),
    stdout: results.map((r) => r.stdout).join(''),
    stderr: results.map((r) => r.stderr).join(''),
  };
}

/** `kubectl wait --for=condition=Established` on the CRDs among `objs`; a problem line if it fails. */
export function waitEstablished(kubeconfig: string, objs: any[]): string[] {
  const crds = objs.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => `crd/${o.metadata.name}`);
  if (crds.length === 0) return [];
  const r = kubectl(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', ...crds]);
  return r.code === 0 ? [] : [`wait Established (exit ${r.code}): ${r.stderr}`];
}

/** `group/resource` of every cluster-scoped resource, from the server's discovery, as kubectl decides where an object without a namespace goes. */
export function clusterScopedResources(kubeconfig: string): Set<string> {
  const out = new Set<string>();
  for (const row of kubectlOk(kubeconfig, ['api-resources', '--namespaced=false', '--no-headers']).trim().split('\n')) {
    const cols = row.trim().split(/\s+/);
    out.add(`${groupOf(cols[cols.length - 3])}/${cols[cols.length - 1]}`);
  }
  return out;
}

/** `run` over the items, `width` at a time, results in order. */
export async function parallel<T>(items: T[], run: (item: T) => Promise<KubectlResult>, width = 4): Promise<KubectlResult[]> {
  const out: KubectlResult[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await run(items[i]);
    }
  }));
  return out;
}
