import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface EtcdServer {
  /** Client URLs to give EtcdStorage / createStorage. */
  endpoints: string[];
  dataDir: string;
  /** The etcd process, for tests that signal it (SIGSTOP a member). */
  pid: number;
  /** SIGTERM, SIGKILL after a grace period, then remove the data directory. */
  stop(): Promise<void>;
}

export interface StartEtcdOptions {
  /** The etcd binary; default $ETCD_BIN, else /usr/bin/etcd, else `etcd` on PATH. */
  bin?: string;
  /** How long to wait for etcd to answer; default 30 s. */
  timeoutMs?: number;
  /**
   * Serve clients over TLS with these PEM files, requiring client certificates signed by `caFile`.
   * etcd's own gateway, and the health check here, present the serving certificate as a client
   * certificate, so it needs both the serverAuth and clientAuth usages (as etcd setups issue them).
   */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

const ATTEMPTS = 3;

/**
 * Start a throwaway single-member etcd on free loopback ports in a fresh temp dir and
 * wait until it answers. No jest here: scripts and benchmarks use it too.
 */
export async function startEtcd(opts: StartEtcdOptions = {}): Promise<EtcdServer> {
  const bin = opts.bin ?? process.env.ETCD_BIN ?? (existsSync('/usr/bin/etcd') ? '/usr/bin/etcd' : 'etcd');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let lastError: unknown;
  // A free port can be taken between our probe and etcd's bind; then try new ones.
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'windlass-etcd-'));
    try {
      return await startOnce(bin, dataDir, timeoutMs, opts.tls);
    } catch (err) {
      lastError = err;
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  throw lastError;
}

async function startOnce(bin: string, dataDir: string, timeoutMs: number, tls?: StartEtcdOptions['tls']): Promise<EtcdServer> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const client = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const tlsArgs = tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : [];
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    bin,
    [
      '--name', 'windlass-test',
      '--data-dir', dataDir,
      '--listen-client-urls', client,
      '--advertise-client-urls', client,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `windlass-test=${peer}`,
      '--initial-cluster-state', 'new',
      // Periodic progress notifications every few seconds, as kube setups configure it.
      '--experimental-watch-progress-notify-interval', '5s',
      '--logger', 'zap',
      '--log-level', 'warn',
      ...tlsArgs,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const log = tail(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await terminate(child, exited);
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (spawnError || child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`etcd (${bin}) failed to start: ${spawnError?.message ?? `exit ${child.exitCode ?? child.signalCode}`}\n${log()}`);
    }
    if (await healthy(client, tls)) return { endpoints: [client], dataDir, pid: child.pid!, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`etcd did not become healthy within ${timeoutMs} ms\n${log()}`);
}

async function healthy(url: string, tls?: StartEtcdOptions['tls']): Promise<boolean> {
  try {
    if (!tls) {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      return res.ok && body.health === 'true';
    }
    // fetch cannot present a client certificate.
    const [ca, cert, key] = await Promise.all([readFile(tls.caFile), readFile(tls.certFile), readFile(tls.keyFile)]);
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpsGet(`${url}/health`, { ca, cert, key, timeout: 1000 }, (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString()));
        res.on('end', () => resolve(data));
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
    });
    return (JSON.parse(text) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 5000)));
  if ((await Promise.race([exited, grace])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
  clearTimeout(timer);
}

/** Keep the last lines of etcd's log for error messages; reading also keeps the pipe from filling. */
function tail(child: ChildProcess, max = 30): () => string {
  const lines: string[] = [];
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    if (lines.length > max) lines.splice(0, lines.length - max);
  });
  return () => lines.join('\n');
}
