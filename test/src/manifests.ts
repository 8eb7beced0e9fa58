/**
 * Real manifests from public projects (test/manifests/<project>/, provenance in each README):
 * loading them as kubectl would send them, grouping them into batches kubectl can apply in one
 * call, and comparing what the server answers with what was sent.
 */
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(s: string, iterator?: null, opts?: { json: boolean }): unknown[] };

export const manifestsRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'manifests');

export interface Manifest {
  project: string;
  file: string;
  /** The object as sent: the document, with the project's namespace filled in when it had none. */
  obj: any;
}

/** `group/Kind/namespace/name`: what makes two documents the same object on a server. */
export function identity(obj: any): string {
  const gv = String(obj.apiVersion);
  const group = gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '';
  return `${group}/${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/** The namespace a project's namespaced objects without one go to (kubectl's context namespace in real use). */
/** The projects: one directory each (files beside them, the README, are not manifests). */
export function projects(): string[] {
  return readdirSync(manifestsRoot).filter((p) => statSync(join(manifestsRoot, p)).isDirectory()).sort();
}

export function projectNamespace(project: string): string {
  return `rm-${project.toLowerCase()}`.slice(0, 63).replace(/-+$/, '');
}

/**
 * Every document of every project, `List` kinds flattened to their items (kubectl applies
 * each item on its own). `clusterScoped` tells which kinds keep no namespace.
 */
export function loadManifests(clusterScoped: Set<string>, only: string[] = projects()): Manifest[] {
  const docs: Manifest[] = [];
  for (const project of only) {
    for (const file of readdirSync(join(manifestsRoot, project)).sort()) {
      if (!/\.ya?ml$/.test(file)) continue;
      for (const doc of yaml.loadAll(readFileSync(join(manifestsRoot, project, file), 'utf8'), null, { json: true })) {
        if (doc === null || typeof doc !== 'object') continue;
        const d = doc as any;
        const items: any[] = /List$/.test(d.kind) && Array.isArray(d.items) ? d.items : [d];
        for (const obj of items) docs.push({ project, file, obj });
      }
    }
  }
  // Custom resources are scoped as the corpus's CRDs declare (discovery knows them only once installed).
  const scoped = new Set(clusterScoped);
  for (const { obj } of docs) if (obj.kind === 'CustomResourceDefinition' && obj.spec?.scope === 'Cluster') scoped.add(`${obj.spec.group}/${obj.spec.names.kind}`);
  for (const { project, obj } of docs) {
    const namespaced = !scoped.has(`${groupOf(obj.apiVersion)}/${obj.kind}`);
    if (namespaced && !obj.metadata.namespace) obj.metadata.namespace = projectNamespace(project);
  }
  return docs;
}

/** kube's TotalAnnotationSizeLimitB: the bytes of all of an object's annotation keys and values. */
const annotationsLimit = 256 * 1024;
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Whether `kubectl apply` (client-side) can apply the object: its last-applied annotation, the
 * object as JSON, must fit kube's annotation limit. Larger objects (the big CRDs of
 * prometheus-operator and Argo CD) are applied server-side, as those projects tell their users to.
 */
export function clientSideApplicable(obj: any): boolean {
  const annotations = Object.entries(obj.metadata?.annotations ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
  return annotations + lastApplied.length + Buffer.byteLength(JSON.stringify(obj)) < annotationsLimit;
}

/** The CRDs' kinds (`group/Kind`): their resources are applied once the CRDs are Established. */
export function customKinds(manifests: Manifest[]): Set<string> {
  return new Set(manifests.filter((m) => m.obj.kind === 'CustomResourceDefinition').map((m) => `${m.obj.spec.group}/${m.obj.spec.names.kind}`));
}

/**
 * The kinds (`group/Kind`) whose CRD gives `status` a default under a status subresource (Gateway
 * API's "Waiting for controller"). kube drops status on create, and its storage codec defaults
 * every object it reads, so these objects are read with a status the store does not hold; the
 * first update after the create writes it (kube compares the update with the stored bytes).
 */
export function statusDefaultedKinds(manifests: Manifest[]): Set<string> {
  const kinds = new Set<string>();
  for (const m of manifests.filter((x) => x.obj.kind === 'CustomResourceDefinition')) {
    const defaulted = (m.obj.spec.versions ?? []).some((v: any) => v.subresources?.status !== undefined && v.schema?.openAPIV3Schema?.properties?.status?.default !== undefined);
    if (defaulted) kinds.add(`${m.obj.spec.group}/${m.obj.spec.names.kind}`);
  }
  return kinds;
}

/**
 * Whether a second apply's write of `after` is the one kube makes too: the object's kind has a
 * read-defaulted status (statusDefaultedKinds) and nothing a client sees changed but the
 * resourceVersion and the managers' times.
 */
export function persistedReadDefaults(before: any, after: any, kinds: Set<string>): boolean {
  if (!kinds.has(`${groupOf(after.apiVersion)}/${after.kind}`)) return false;
  const visible = (o: any) => {
    const c = structuredClone(o);
    delete c.metadata.resourceVersion;
    delete c.metadata.managedFields;
    return JSON.stringify(c);
  };
  return visible(before) === visible(after);
}

export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

/**
 * Batches in which no object appears twice: several documents of the corpus describe the same
 * object (the guestbook's all-in-one file and its parts, two ingress-nginx providers). The n-th
 * document of an identity goes to batch n, applied after the object of batch n-1 is deleted, as
 * someone trying both would. Namespaces, CRDs and ServiceAccounts go first in a batch, as
 * their dependants need them.
 */
export function batches(manifests: Manifest[]): Manifest[][] {
  const seen = new Map<string, number>();
  const out: Manifest[][] = [];
  for (const m of manifests) {
    const id = identity(m.obj);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    (out[n] ??= []).push(m);
  }
  const rank = (m: Manifest) => (m.obj.kind === 'Namespace' ? 0 : m.obj.kind === 'CustomResourceDefinition' ? 1 : m.obj.kind === 'ServiceAccount' ? 2 : 3);
  return out.map((b) => b.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map(({ m }) => m));
}

const quantityPattern = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;
const suffixes: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

function quantityValue(v: unknown): number | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const m = quantityPattern.exec(String(v));
  return m ? Number(m[1]) * suffixes[m[2] ?? ''] : undefined;
}

/** What Go's omitempty leaves out: kube answers without a field sent with its zero value. */
function isEmpty(v: unknown): boolean {
  return v === '' || v === false || v === 0 || (Array.isArray(v) && v.length === 0) || (v !== null && typeof v === 'object' && Object.keys(v).length === 0);
}

/** Lists kube's admission appends to: a Pod's ServiceAccount token volume and its mounts. */
const appendedTo = /^spec\.(volumes|(initContainers|containers)\[\d+\]\.volumeMounts)$/;

/** Endpoints' subsets as address/port pairs: kube repacks them (RepackSubsets) into fewer subsets. */
function endpointPairs(subsets: unknown): Set<string> {
  const pairs = new Set<string>();
  for (const ss of Array.isArray(subsets) ? subsets : []) {
    const addrs = [...(ss.addresses ?? []).map((a: any) => `ready ${a.ip}`), ...(ss.notReadyAddresses ?? []).map((a: any) => `notready ${a.ip}`)];
    for (const a of addrs) for (const p of ss.ports ?? []) pairs.add(`${a} ${p.name ?? ''}/${p.port}/${p.protocol ?? 'TCP'}`);
  }
  return pairs;
}

/**
 * What kube does to a sent object that is not a default: a Secret's `stringData` is merged
 * into `data` (base64) and dropped.
 */
export function expectedFromSent(obj: any): any {
  const sent = structuredClone(obj);
  if (sent.kind === 'Secret' && sent.apiVersion === 'v1' && sent.stringData) {
    sent.data = { ...(sent.data ?? {}) };
    for (const [k, v] of Object.entries(sent.stringData)) sent.data[k] = Buffer.from(String(v)).toString('base64');
    delete sent.stringData;
  }
  return sent;
}

/**
 * Paths where the answer does not carry what was sent. Everything sent must come back, except:
 * `status` (reset by kube's strategies on create), nulls and empty values (omitempty),
 * quantities in another notation of the same value (kube's canonical form), base64 in another
 * encoding of the same bytes, a Pod's token volume appended by the ServiceAccount admission,
 * Endpoints' subsets repacked. Defaults the server adds are extra fields and never differences.
 */
export function sentNotReturned(sent: any, got: any): string[] {
  const diffs: string[] = [];
  const secret = sent.kind === 'Secret';
  const pod = sent.kind === 'Pod';
  if (sent.kind === 'Endpoints') {
    const want = endpointPairs(sent.subsets);
    const have = endpointPairs(got.subsets);
    for (const p of want) if (!have.has(p)) diffs.push(`subsets: sent ${p}, missing`);
    sent = { ...sent, subsets: undefined };
  }
  const walk = (s: any, g: any, path: string): void => {
    if (s === null || s === undefined) return;
    if (g === undefined || g === null) {
      if (!isEmpty(s)) diffs.push(`${path}: sent ${JSON.stringify(s)}, missing`);
      return;
    }
    if (Array.isArray(s)) {
      if (!Array.isArray(g)) return void diffs.push(`${path}: sent a list, got ${JSON.stringify(g)}`);
      if (s.length !== g.length && !(pod && appendedTo.test(path) && g.length > s.length)) diffs.push(`${path}: sent ${s.length} items, got ${g.length}`);
      s.forEach((v, i) => walk(v, g[i], `${path}[${i}]`));
      return;
    }
    if (typeof s === 'object') {
      if (typeof g !== 'object' || Array.isArray(g)) return void diffs.push(`${path}: sent an object, got ${JSON.stringify(g)}`);
      for (const [k, v] of Object.entries(s)) walk(v, g[k], path ? `${path}.${k}` : k);
      return;
    }
    if (s === g) return;
    const qs = quantityValue(s);
    const qg = quantityValue(g);
    if (qs !== undefined && qg !== undefined && Math.abs(qs - qg) <= Math.abs(qs) * 1e-12) return;
    if (secret && /^data\./.test(path) && typeof s === 'string' && typeof g === 'string'
      && Buffer.from(s, 'base64').equals(Buffer.from(g, 'base64'))) return;
    diffs.push(`${path}: sent ${JSON.stringify(s)}, got ${JSON.stringify(g)}`);
  };
  const { status: _status, metadata, ...rest } = sent;
  const meta = { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels, annotations: metadata.annotations, finalizers: metadata.finalizers };
  walk({ metadata: meta, ...rest }, got, '');
  return diffs;
}
