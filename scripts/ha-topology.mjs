// The pieces of docker-compose.yml's topology as local processes, shared by
// scripts/ha-local.mjs (the script), the fault tests and the soak (test/src/faults/,
// bench/src/faults/, bench/src/soak/): a 3-member etcd cluster on loopback ports, Windlass
// replicas on it sharing one serving certificate and token file (scripts/ha-credentials.mjs),
// and a TCP load balancer in front that passes TLS through to the replicas whose /readyz
// answers ok (checked every second), round-robin, as deploy/haproxy.cfg does. Members and
// replicas can be killed and started again in place (same data dir, same flags), which is
// what the fault tests do. Types: ha-topology.d.mts.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureHaCredentials } from './ha-credentials.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const windlassBin = join(root, 'apps', 'apiserver', 'bin', 'windlass.js');

export function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];

function startChild(cmd, args, logFile) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  child.exited = new Promise((r) => child.once('exit', r));
  child.once('error', (err) => log.write(`spawn error: ${err.message}\n`));
  children.push(child);
  return child;
}

export function alive(child) {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM every process started here (SIGKILL after 8 s). */
export async function stopAll() {
  for (const c of children) if (alive(c)) c.kill('SIGTERM');
  const grace = sleep(8000).then(() => 'timeout');
  if ((await Promise.race([Promise.all(children.map((c) => c.exited)), grace])) === 'timeout') {
    for (const c of children) if (alive(c)) c.kill('SIGKILL');
  }
  children.length = 0;
}
process.on('exit', () => {
  for (const c of children) if (alive(c)) c.kill('SIGKILL');
});

export async function etcdHealthy(url) {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && (await res.json()).health === 'true';
  } catch {
    return false;
  }
}

function etcdBin() {
  return process.env.ETCD_BIN ?? (existsSync('/usr/bin/etcd') ? '/usr/bin/etcd' : 'etcd');
}

/** (Re)starts a member with its flags; a data dir that exists makes etcd rejoin, ignoring --initial-cluster. */
export function startEtcdMember(dir, m) {
  m.proc = startChild(etcdBin(), m.args, join(dir, `${m.name}.log`));
  return m;
}

export async function waitEtcdHealthy(dir, m, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await etcdHealthy(m.client))) {
    if (!alive(m.proc)) throw new Error(`${m.name} exited; see ${join(dir, `${m.name}.log`)}`);
    if (Date.now() > deadline) throw new Error(`${m.name} not healthy within ${timeoutMs / 1000} s; see ${join(dir, `${m.name}.log`)}`);
    await sleep(100);
  }
}

export async function startEtcdCluster(dir, count) {
  // Ports are picked free and then bound by etcd: another process may take one in between.
  // Such a start is retried on new ports; any other failure is not.
  for (let attempt = 1; ; attempt++) {
    const members = await startEtcdClusterOnce(dir, count).catch((err) => ({ err }));
    if (!members.err) return members;
    const clash = readdirSync(dir).filter((f) => /^etcd-\d+\.log$/.test(f)).some((f) => readFileSync(join(dir, f), 'utf8').includes('address already in use'));
    if (!clash || attempt >= 3) throw members.err;
    for (const c of children.splice(0)) if (alive(c)) { c.kill('SIGKILL'); await c.exited; }
    for (const f of readdirSync(dir).filter((f) => /^etcd-\d+\.log$/.test(f))) renameSync(join(dir, f), join(dir, `${f}.attempt-${attempt}`));
  }
}

async function startEtcdClusterOnce(dir, count) {
  const members = [];
  for (let i = 0; i < count; i++) {
    members.push({ name: `etcd-${i + 1}`, client: `http://127.0.0.1:${await freePort()}`, peer: `http://127.0.0.1:${await freePort()}`, dataDir: join(dir, `etcd-${i + 1}`) });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peer}`).join(',');
  for (const m of members) {
    rmSync(m.dataDir, { recursive: true, force: true });
    m.args = [
      '--name', m.name, '--data-dir', m.dataDir,
      '--listen-client-urls', m.client, '--advertise-client-urls', m.client,
      '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer,
      '--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', 'windlass-ha-local',
      '--experimental-watch-progress-notify-interval', '5s', '--logger', 'zap', '--log-level', 'warn',
    ];
    startEtcdMember(dir, m);
  }
  // All waited for, so a failure leaves no member half-started behind.
  const results = await Promise.allSettled(members.map((m) => waitEtcdHealthy(dir, m)));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return members;
}

/** Starts replica `b` (a new process on a new port when it ran before); resolves once it listens. */
export async function startReplicaProcess(dir, b) {
  b.healthy = false;
  const logFile = join(dir, `${b.name}.log`);
  const proc = startChild(process.execPath, b.args, logFile);
  b.proc = proc;
  let out = '';
  b.port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${b.name} did not start within 30 s; see ${logFile}`)), 30000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /secure port: (\d+)/.exec(out);
      if (m) { clearTimeout(timer); res(Number(m[1])); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); rej(new Error(`${b.name} exited (${code}); see ${logFile}`)); });
  });
  b.url = `https://127.0.0.1:${b.port}`;
  return b;
}

export async function startReplica(dir, i, etcd, creds, extra = []) {
  const dataDir = join(dir, `windlass-${i + 1}`);
  mkdirSync(dataDir, { recursive: true });
  const args = [
    windlassBin, 'start', '--data-dir', dataDir, '--secure-port', '0', '--workers', '1',
    '--storage', 'etcd', '--etcd-servers', etcd.map((m) => m.client).join(','),
    '--tls-cert-file', creds.cert, '--tls-private-key-file', creds.key, '--token-auth-file', creds.tokens,
    '--service-account-signing-key-file', creds.saKey, '--service-account-key-file', creds.saPub,
    '--proxy-client-cert-file', creds.frontProxyCert, '--proxy-client-key-file', creds.frontProxyKey,
    '--requestheader-client-ca-file', creds.frontProxyCA, '--requestheader-allowed-names', 'front-proxy-client',
    // The balancer checks every second: a stopping replica leaves rotation before it stops serving.
    '--shutdown-delay-duration', '2s',
    ...extra,
  ];
  return startReplicaProcess(dir, { name: `windlass-${i + 1}`, index: i, args, healthy: false });
}

/** GET /readyz answering 200 "ok" within a second: the check HAProxy makes (deploy/haproxy.cfg). */
export function ready(backend, ca) {
  return new Promise((res) => {
    const req = https.get({ host: '127.0.0.1', port: backend.port, path: '/readyz', ca, servername: 'localhost', agent: false, timeout: 1000 }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d) => (body += d));
      r.on('end', () => res(r.statusCode === 200 && body.trim() === 'ok'));
      r.on('error', () => res(false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => res(false));
  });
}

/** A TCP balancer: TLS passes through untouched; a backend that refuses a connection is skipped for the next. */
export function loadBalancer(backends) {
  let next = 0;
  const connections = new Map();
  const pick = (tried) => {
    for (let k = 0; k < backends.length; k++) {
      const b = backends[(next + k) % backends.length];
      if (b.healthy && !tried.has(b)) {
        next = (b.index + 1) % backends.length;
        return b;
      }
    }
    return undefined;
  };
  const server = net.createServer((client) => {
    const tried = new Set();
    let upstream;
    const clientPort = client.remotePort;
    client.on('error', () => upstream?.destroy());
    client.on('close', () => {
      connections.delete(clientPort);
      upstream?.destroy();
    });
    const connect = () => {
      const b = pick(tried);
      if (!b) return client.destroy();
      tried.add(b);
      const up = net.connect(b.port, '127.0.0.1');
      upstream = up;
      let connected = false;
      up.once('connect', () => {
        connected = true;
        if (client.destroyed) return up.destroy();
        connections.set(clientPort, b.name);
        client.pipe(up);
        up.pipe(client);
      });
      up.on('error', () => {
        if (connected) return client.destroy();
        b.healthy = false; // refused: out of rotation until its next good check
        connect();
      });
      up.on('close', () => {
        if (connected) client.destroy();
      });
    };
    connect();
  });
  return { server, connections };
}

/**
 * The whole topology: the balancer listening on `port`, credentials in `dir/creds`, a fresh
 * etcd cluster, `replicas` replicas all ready, and the balancer's health checks running.
 */
export async function startTopology({ dir, port = 0, replicas = 3, etcdMembers = 3, extra = [] }) {
  mkdirSync(dir, { recursive: true });
  const backends = [];
  const lb = loadBalancer(backends);
  await new Promise((res, rej) => {
    lb.server.once('error', rej);
    lb.server.listen(port, '127.0.0.1', res);
  });
  const lbUrl = `https://127.0.0.1:${lb.server.address().port}`;
  const creds = await ensureHaCredentials(join(dir, 'creds'), { server: lbUrl });
  const ca = readFileSync(creds.ca);
  const etcd = await startEtcdCluster(dir, etcdMembers);
  backends.push(...(await Promise.all(Array.from({ length: replicas }, (_, i) => startReplica(dir, i, etcd, creds, extra)))));

  const check = async () => {
    await Promise.all(backends.map(async (b) => {
      const proc = b.proc;
      const ok = alive(proc) && (await ready(b, ca));
      if (b.proc === proc) b.healthy = ok; // not a check of the process a restart replaced
    }));
  };
  const deadline = Date.now() + 30000;
  for (;;) {
    await check();
    if (backends.every((b) => b.healthy)) break;
    if (Date.now() > deadline) throw new Error(`replicas not ready within 30 s: ${backends.filter((b) => !b.healthy).map((b) => b.name).join(', ')}`);
    await sleep(200);
  }
  const checker = setInterval(() => void check(), 1000);
  checker.unref();
  return {
    dir, lb, lbUrl, creds, ca, etcd, backends,
    async stop() {
      clearInterval(checker);
      await stopAll();
      lb.server.close();
    },
  };
}
