/**
 * What the load generators are pointed at, each in its own process: Windlass started through its
 * CLI from a given checkout, the bare HTTPS server, and a fresh etcd.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@windlass/storage/testing';
import { windlassBin } from './config.js';
import { agentFor, send, sleep, type Target } from './http.js';
import { pidsByCmdline, processTree, rssBytes } from './proc.js';
import type { BareSpec } from './bare-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) for (const p of processTree(c.pid!).reverse()) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
});

export interface Running {
  label: string;
  pid: number;
  target: Target;
  /** The server's process and its descendants (workers), resolved now. */
  pids(): number[];
  stop(): Promise<void>;
}

export interface WindlassServer extends Running {
  dataDir: string;
  certFile: string;
  keyFile: string;
  rss(): number;
}

const workersFlag = new Map<string, boolean>();

/** Whether `windlass start --help` of this checkout lists --workers. */
export function supportsWorkers(root: string): boolean {
  let v = workersFlag.get(root);
  if (v === undefined) {
    const help = execFileSync(process.execPath, [windlassBin(root), 'start', '--help'], { encoding: 'utf8' });
    v = /--workers\b/.test(help);
    workersFlag.set(root, v);
  }
  return v;
}

export interface StartOptions {
  root: string;
  label: string;
  backend: string;
  etcdEndpoints?: string[];
  /** Passed as --workers when the checkout has the flag (default 1). */
  workers?: number;
  /** Runs the server under node --cpu-prof --cpu-prof-dir=<dir>. */
  profileDir?: string;
}

function tailOf(child: ChildProcess, max = 40): { text: () => string; onLine: (f: (l: string) => void) => void } {
  const lines: string[] = [];
  const listeners: ((l: string) => void)[] = [];
  for (const s of [child.stdout, child.stderr]) {
    s?.setEncoding('utf8');
    s?.on('data', (chunk: string) => {
      for (const l of chunk.split('\n').filter(Boolean)) {
        lines.push(l);
        for (const f of listeners) f(l);
      }
      if (lines.length > max) lines.splice(0, lines.length - max);
    });
  }
  return { text: () => lines.join('\n'), onLine: (f) => listeners.push(f) };
}

async function stopTree(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const tree = processTree(child.pid!);
  child.kill('SIGTERM');
  if ((await Promise.race([exited.then(() => 'ok'), sleep(graceMs).then(() => 'timeout')])) === 'timeout') {
    for (const p of tree.reverse()) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
    await exited;
  }
  // Workers exit with their primary; give them a moment before the data dir goes.
  for (let i = 0; i < 50 && tree.some((p) => { try { process.kill(p, 0); return true; } catch { return false; } }); i++) await sleep(100);
}

/** `windlass start` from `root` on a fresh data dir; resolves once it serves the default namespace. */
export async function startWindlass(o: StartOptions): Promise<WindlassServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'windlass-bench-'));
  const args = [windlassBin(o.root), 'start', '--data-dir', dataDir, '--secure-port', '0'];
  if (o.backend === 'etcd') args.push('--storage', 'etcd', '--etcd-servers', (o.etcdEndpoints ?? []).join(','));
  else if (o.backend !== 'embedded') throw new Error(`unknown backend ${o.backend}`);
  if (supportsWorkers(o.root)) args.push('--workers', String(o.workers ?? 1));
  else if ((o.workers ?? 1) !== 1) throw new Error(`${o.root} has no --workers flag`);
  // Node 20 refuses --cpu-prof in NODE_OPTIONS: give it to node itself (cluster workers inherit execArgv).
  const nodeArgs: string[] = [];
  if (o.profileDir) {
    await mkdir(o.profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${o.profileDir}`);
  }
  const child = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const log = tailOf(child);
  const stop = async (): Promise<void> => {
    await stopTree(child, o.profileDir ? 30_000 : 10_000);
    live.delete(child);
    if (!process.env.BENCH_KEEP) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no "secure port:" line within 60 s')), 60_000);
      log.onLine((l) => {
        const m = /secure port: (\d+)/.exec(l);
        if (m) (clearTimeout(timer), resolve(Number(m[1])));
      });
      child.once('exit', (code, sig) => (clearTimeout(timer), reject(new Error(`exited (${code ?? sig})`))));
    });
    const kubeconfig = await readFile(join(dataDir, 'kubeconfig'), 'utf8');
    // YAML quotes a scalar that starts with certain characters ('-', …): take it without the quotes.
    const token = /^\s*token:\s*(['"]?)(\S+?)\1\s*$/m.exec(kubeconfig)?.[2];
    const caData = /certificate-authority-data:\s*(['"]?)(\S+?)\1\s*$/m.exec(kubeconfig)?.[2];
    if (!token || !caData) throw new Error('kubeconfig without token or CA');
    const target: Target = { host: '127.0.0.1', port, token, ca: Buffer.from(caData, 'base64').toString('utf8') };
    await ready(target);
    return {
      label: o.label, pid: child.pid!, target, dataDir, certFile: join(dataDir, 'pki/apiserver.crt'), keyFile: join(dataDir, 'pki/apiserver.key'),
      pids: () => processTree(child.pid!), rss: () => rssBytes(processTree(child.pid!)), stop,
    };
  } catch (err) {
    await stop();
    throw new Error(`windlass (${o.label}, ${args.slice(1).join(' ')}): ${(err as Error).message}\n${log.text()}`);
  }
}

/** Until /readyz and the default namespace answer 200 (a few times: with workers, several processes answer). */
async function ready(target: Target): Promise<void> {
  const agent = agentFor(target, 4);
  try {
    const end = Date.now() + 60_000;
    let ok = 0;
    while (ok < 8) {
      const r = await send(agent, target, 'GET', ok % 2 ? '/api/v1/namespaces/default' : '/readyz').catch(() => undefined);
      if (r?.status === 200) ok++;
      else if (r?.status === 401) throw new Error('the token from the kubeconfig was rejected (401)');
      else if (Date.now() > end) throw new Error(`not ready within 60 s (last: ${r?.status ?? 'connection error'})`);
      else await sleep(100);
    }
  } finally {
    agent.destroy();
  }
}

/** The bare HTTPS server in its own process. */
export async function startBare(spec: BareSpec, token: string, ca: string): Promise<Running> {
  const child = fork(join(here, 'bare-server.js'), [], { stdio: ['ignore', 2, 2, 'ipc'], execArgv: [] });
  live.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    child.send({ t: 'spec', spec });
  });
  return {
    label: 'bare', pid: child.pid!, target: { host: '127.0.0.1', port, token, ca }, pids: () => [child.pid!],
    stop: async () => {
      await stopTree(child, 5000);
      live.delete(child);
    },
  };
}

export interface FreshEtcd {
  endpoints: string[];
  pids(): number[];
  stop(): Promise<void>;
}

/** A throwaway etcd (startEtcd), with the pids of its process for CPU readings. */
export async function freshEtcd(): Promise<FreshEtcd> {
  const e = await startEtcd();
  const pids = pidsByCmdline(e.dataDir).filter((p) => p !== process.pid);
  return { endpoints: e.endpoints, pids: () => pids, stop: () => e.stop() };
}
