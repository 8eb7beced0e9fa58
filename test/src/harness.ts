/** Runs the real `windlass` binary and real clients (kubectl) against it. */
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const windlassBin = join(here, '..', '..', 'apps', 'apiserver', 'bin', 'windlass.js');

export interface RunningServer {
  proc: ChildProcess;
  port: number;
  url: string;
  dataDir: string;
  kubeconfig: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function tempDir(prefix = 'windlass-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startWindlass(args: string[] = [], dataDir = tempDir()): Promise<RunningServer> {
  const proc = spawn(process.execPath, [windlassBin, 'start', '--data-dir', dataDir, '--secure-port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`windlass did not start:\n${out}`)), 30000);
    const check = () => {
      const m = /secure port: (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`windlass exited with ${code}:\n${out}`));
    });
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    proc, port, url: `https://127.0.0.1:${port}`, dataDir, kubeconfig: join(dataDir, 'kubeconfig'),
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

/**
 * One server for the whole test file, started before its tests and stopped (its data dir
 * removed) after them. The returned getter gives the running server inside tests.
 */
export function useWindlass(args: string[] = []): () => RunningServer {
  let s: RunningServer | undefined;
  beforeAll(async () => {
    s = await startWindlass(args);
  });
  afterAll(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });
  return () => s!;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * kubectl's discovery cache lives in ~/.kube/cache keyed by host and port, so a port reused from an
 * earlier server (or an earlier CI run) would answer discovery from another server's cache. Each
 * kubeconfig gets its own cache directory beside it.
 */
export function kubectlArgs(kubeconfig: string, args: string[]): string[] {
  return ['--kubeconfig', kubeconfig, '--cache-dir', join(dirname(kubeconfig), 'kubectl-cache'), ...args];
}

export function kubectl(kubeconfig: string, args: string[], input?: string): KubectlResult {
  const r = spawnSync('kubectl', kubectlArgs(kubeconfig, args), { input, encoding: 'utf8', timeout: 60000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** kubectl without blocking the event loop, for tests whose servers (webhooks, aggregated APIs) run in this process. */
export function kubectlAsync(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', kubectlArgs(kubeconfig, args), { timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input ?? '');
  });
}

/** A CA and a serving certificate signed by it for `subjectAltName` (openssl's syntax), made with openssl: a webhook's or an aggregated server's. */
export function servingCertificates(subjectAltName: string, name = 'e2e-backend'): { ca: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-certs-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', `/CN=${name}-ca`);
    run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', `/CN=${name}`);
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`);
    run('x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '2', '-extfile', 'ext.cnf');
    return { ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), cert: readFileSync(join(dir, 'tls.crt'), 'utf8'), key: readFileSync(join(dir, 'tls.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function kubectlOk(kubeconfig: string, args: string[], input?: string): string {
  const r = kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A request over HTTPS trusting the server's generated CA; returns status and parsed body. */
export async function httpsCall(s: RunningServer, method: string, path: string, opts: { token?: string; body?: unknown; contentType?: string } = {}): Promise<{ status: number; body: any; text: string }> {
  const https = await import('node:https');
  const { readFileSync } = await import('node:fs');
  const ca = readFileSync(join(s.dataDir, 'pki', 'ca.crt'));
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.url}${path}`, {
      method, ca, servername: 'localhost',
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(payload ? { 'content-type': opts.contentType ?? 'application/json' } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let body: any;
        try { body = JSON.parse(text); } catch { body = undefined; }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

export function adminToken(s: RunningServer): string {
  return readFileSync(join(s.dataDir, 'admin-token'), 'utf8').trim();
}

/**
 * Starts windlass again on a stopped server's port and data dir (same URL, CA, token and
 * kubeconfig), as an operator restarting a replica does. `args` are the flags it ran with.
 * Retries for a while if the port is not free yet.
 */
export async function restartWindlass(prev: RunningServer, args: string[] = []): Promise<RunningServer> {
  await prev.stop();
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      return await startWindlass([...args, '--secure-port', String(prev.port)], prev.dataDir);
    } catch (err) {
      lastError = err;
      if (!/EADDRINUSE/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw lastError;
}

/** Poll `probe` until it returns true or `timeoutMs` passes; returns the last result. Never asserts on time. */
export async function eventually(probe: () => boolean | Promise<boolean>, timeoutMs = 30000, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Flags that make a replica serve with another replica's generated certificate and sign service
 * account tokens with its generated key, as replicas behind one address do.
 */
export function servingCertFlags(dataDir: string): string[] {
  return [
    '--tls-cert-file', join(dataDir, 'pki', 'apiserver.crt'), '--tls-private-key-file', join(dataDir, 'pki', 'apiserver.key'),
    '--service-account-signing-key-file', join(dataDir, 'pki', 'sa.key'), '--service-account-key-file', join(dataDir, 'pki', 'sa.pub'),
  ];
}

/**
 * `count` replicas on one etcd, as behind a load balancer: the first generates the serving
 * certificate the others reuse, and all accept `token` (an admin) from one token file.
 */
export async function startReplicas(etcdEndpoints: string[], count: number, token: string): Promise<{ replicas: RunningServer[]; args: string[]; tokenDir: string }> {
  const tokenDir = tempDir();
  const tokenFile = join(tokenDir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const args = ['--storage', 'etcd', '--etcd-servers', etcdEndpoints.join(','), '--token-auth-file', tokenFile];
  const first = await startWindlass(args);
  const replicas = [first];
  for (let i = 1; i < count; i++) replicas.push(await startWindlass([...args, ...servingCertFlags(first.dataDir)]));
  return { replicas, args, tokenDir };
}
