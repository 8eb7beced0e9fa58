/**
 * The Kubernetes Python client (Debian's python3-kubernetes) follows a namespace with
 * `watch.Watch().stream(v1.list_namespaced_config_map, …, resource_version=…, timeout_seconds=…)`,
 * resuming from the last resourceVersion after errors and listing again on 410, through a
 * restart of the server it is connected to (test/python/watch_configmaps.py). Its state must
 * end exactly equal to the server's list: names, uids, resourceVersions, labels and data.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@windlass/storage/testing';
import { adminToken, eventually, removeDir, restartWindlass, startWindlass, tempDir, startReplicas } from './harness.js';
import { KubeHttp } from './kubehttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, '..', 'python', 'watch_configmaps.py');
const python = '/usr/bin/python3';
const NS = 'py';
const token = 'python-watch-token-0123456789';

beforeAll(() => {
  const probe = spawnSync(python, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error(`${python} cannot import the Kubernetes Python client (${probe.error?.message ?? probe.stderr.trim()}). `
      + `Install Debian's python3-kubernetes: .ci/run must install it (apt-get install python3-kubernetes), as scripts/bootstrap.mjs does for npm test.`);
  }
});

interface Entry {
  resourceVersion: string;
  uid: string;
  labels: Record<string, string>;
  data: Record<string, string>;
}
interface Dump {
  state: Record<string, Entry>;
  resourceVersion: string | null;
  stats: { lists: number; watches: number; events: number; errors: number; expired: number; lastError: string | null };
}

/** The Python watcher as a child process, queried over stdin/stdout. */
class PythonWatcher {
  private proc: ChildProcessWithoutNullStreams;
  private lines: string[] = [];
  private waiting: Array<(line: string) => void> = [];
  private stderr = '';

  constructor(kubeconfig: string) {
    this.proc = spawn(python, [script, kubeconfig, NS], { env: { ...process.env, PYTHONUNBUFFERED: '1' } });
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const w = this.waiting.shift();
      if (w) w(line);
      else this.lines.push(line);
    });
    this.proc.once('exit', () => this.waiting.splice(0).forEach((w) => w('')));
  }

  async ask(cmd: 'dump' | 'exit'): Promise<Dump> {
    if (this.proc.exitCode !== null) throw new Error(`the Python watcher exited (${this.proc.exitCode}):\n${this.stderr}`);
    this.lines.length = 0; // nothing is printed unasked; drop anything that was
    const line = await new Promise<string>((resolve) => {
      this.waiting.push(resolve);
      this.proc.stdin.write(`${cmd}\n`);
    });
    if (!line) throw new Error(`the Python watcher gave no answer:\n${this.stderr}`);
    return JSON.parse(line) as Dump;
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

/** The server's list in the Python watcher's shape. */
async function serverState(c: KubeHttp): Promise<Record<string, Entry>> {
  const r = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps`);
  if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
  return Object.fromEntries(r.body.items.map((o: any) => [o.metadata.name, {
    resourceVersion: o.metadata.resourceVersion, uid: o.metadata.uid, labels: o.metadata.labels ?? {}, data: o.data ?? {},
  }]));
}

async function converge(py: PythonWatcher, c: KubeHttp): Promise<Dump> {
  const canon = (s: Record<string, Entry>) => JSON.stringify(Object.keys(s).sort().map((k) => [k, s[k].resourceVersion, s[k].uid, s[k].labels, s[k].data]));
  await eventually(async () => canon((await py.ask('dump')).state) === canon(await serverState(c)), 30000, 150);
  const dump = await py.ask('dump');
  expect(dump.state).toEqual(await serverState(c));
  return dump;
}

async function churn(c: KubeHttp, round: string): Promise<void> {
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  const ok = (r: { status: number; text: string }, what: string) => {
    if (r.status !== 200 && r.status !== 201) throw new Error(`${what}: ${r.status} ${r.text}`);
  };
  for (let i = 0; i < 5; i++) ok(await c.request('POST', path, { metadata: { name: `${round}-${i}`, labels: { round } }, data: { i: String(i) } }), 'create');
  ok(await c.request('PATCH', `${path}/${round}-0`, { data: { patched: 'yes' }, metadata: { labels: { round: null } } }, 'application/merge-patch+json'), 'patch');
  const cur = await c.request('GET', `${path}/${round}-1`);
  ok(await c.request('PUT', `${path}/${round}-1`, { ...cur.body, data: { replaced: round } }), 'update');
  ok(await c.request('DELETE', `${path}/${round}-2`), 'delete');
  ok(await c.request('DELETE', `${path}/${round}-3`), 'delete');
  ok(await c.request('POST', path, { metadata: { name: `${round}-3` }, data: { again: 'yes' } }), 'recreate');
}

const ensureNamespace = async (c: KubeHttp) => expect((await c.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);

/** Converge once more, then stop the watcher: the state it prints last is the server's list. */
async function finish(py: PythonWatcher, c: KubeHttp): Promise<Dump> {
  await converge(py, c);
  const final = await py.ask('exit');
  expect(final.state).toEqual(await serverState(c));
  if (process.env.WINDLASS_E2E_VERBOSE) console.log('python watcher stats', final.stats);
  return final;
}

test('embedded backend: the Python watcher follows through a SIGTERM restart of its server', async () => {
  const dir = tempDir();
  let s = await startWindlass([], dir);
  let c = KubeHttp.forDataDir(s.url, dir, adminToken(s));
  let py: PythonWatcher | undefined;
  try {
    await ensureNamespace(c);
    await churn(c, 'before');
    py = new PythonWatcher(s.kubeconfig);
    await converge(py, c);
    await churn(c, 'live');
    await converge(py, c);

    s = await restartWindlass(s); // SIGTERM, then the same port and data dir
    c.destroy();
    c = KubeHttp.forDataDir(s.url, dir, adminToken(s));
    // Changes made before the watcher is back: it gets them from its last resourceVersion.
    await churn(c, 'after');
    await c.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/live-4`);
    await converge(py, c);
    await churn(c, 'later');
    const final = await finish(py, c);
    expect(final.stats.errors).toBeGreaterThan(0); // it did lose its server
  } finally {
    py?.kill();
    c.destroy();
    await s.stop();
    removeDir(dir);
  }
}, 120000);

test('etcd: the Python watcher follows through a SIGKILL of its replica while another takes writes', async () => {
  const etcd = await startEtcd();
  const started = await startReplicas(etcd.endpoints, 2, token);
  let [a] = started.replicas;
  const b = started.replicas[1];
  const args = started.args;
  const dirA = a.dataDir;
  let ca = KubeHttp.forDataDir(a.url, dirA, token);
  const cb = KubeHttp.forDataDir(b.url, dirA, token);
  let py: PythonWatcher | undefined;
  try {
    await ensureNamespace(ca);
    await churn(ca, 'before');
    py = new PythonWatcher(a.kubeconfig); // connected to A
    await churn(cb, 'live');
    await converge(py, ca);

    await a.stop('SIGKILL');
    // While A is down, B changes what the watcher holds.
    await churn(cb, 'down');
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    expect((await cb.request('PATCH', `${path}/live-0`, { data: { whileDown: 'yes' } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await cb.request('DELETE', `${path}/before-4`)).status).toBe(200);
    const mid = await py.ask('dump');
    expect(mid.state['down-0']).toBeUndefined(); // it cannot have seen those yet

    a = await restartWindlass(a, args);
    ca.destroy();
    ca = KubeHttp.forDataDir(a.url, dirA, token);
    await churn(ca, 'after');
    await converge(py, cb);
    await churn(cb, 'later');
    const final = await finish(py, ca);
    expect(final.stats.errors).toBeGreaterThan(0);
  } finally {
    py?.kill();
    ca.destroy();
    cb.destroy();
    await Promise.all([a.stop(), b.stop()]);
    await etcd.stop();
    [dirA, b.dataDir, started.tokenDir].forEach(removeDir);
  }
}, 120000);
