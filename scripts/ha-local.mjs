#!/usr/bin/env node
// docker-compose.yml's topology as local processes, for machines without Docker (CI here):
// a 3-member etcd cluster on loopback ports, 3 Windlass replicas on it sharing one serving
// certificate and token file (scripts/ha-credentials.mjs), and a TCP load balancer in front
// that passes TLS through to the replicas whose /readyz answers ok (checked every second),
// round-robin, as deploy/haproxy.cfg does.
//
//   node scripts/ha-local.mjs [--dir DIR] [--port 6443] [--replicas 3] [--etcd-members 3] [-- windlass start flags…]
//
// Needs the workspace built and etcd on PATH (or $ETCD_BIN). Prints the load balancer's URL and
// the kubeconfig once every replica is ready; stops everything on SIGINT/SIGTERM. DIR (default
// ./.windlass-ha) keeps the credentials (creds/) across runs; etcd starts empty on every run.
// A status endpoint (URL in DIR/state.json, and printed) answers GET / with JSON: the members'
// and replicas' pids and URLs, which replicas are in rotation, and which replica every open
// client connection is proxied to (by the client's local port).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureHaCredentials } from './ha-credentials.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const windlassBin = join(root, 'apps', 'apiserver', 'bin', 'windlass.js');

function parseArgs(argv) {
  const o = { dir: '.windlass-ha', port: 6443, replicas: 3, etcdMembers: 3, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--') { o.extra = argv.slice(i + 1); break; }
    else if (a === '--dir') o.dir = next();
    else if (a === '--port') o.port = Number(next());
    else if (a === '--replicas') o.replicas = Number(next());
    else if (a === '--etcd-members') o.etcdMembers = Number(next());
    else if (a === '-h' || a === '--help') {
      console.log('usage: node scripts/ha-local.mjs [--dir DIR] [--port 6443] [--replicas 3] [--etcd-members 3] [-- windlass start flags…]');
      process.exit(0);
    } else fail(`unknown argument ${a}`);
  }
  if (!Number.isInteger(o.port) || o.port < 0) fail('--port must be a port number (0 picks a free one)');
  if (!(o.replicas >= 1) || !(o.etcdMembers >= 1)) fail('--replicas and --etcd-members must be at least 1');
  o.dir = resolve(o.dir);
  return o;
}

function fail(msg) {
  console.error(`ha-local: ${msg}`);
  process.exit(2);
}

function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
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

function alive(child) {
  return child.exitCode === null && child.signalCode === null;
}

async function stopAll() {
  for (const c of children) if (alive(c)) c.kill('SIGTERM');
  const grace = sleep(8000).then(() => 'timeout');
  if ((await Promise.race([Promise.all(children.map((c) => c.exited)), grace])) === 'timeout') {
    for (const c of children) if (alive(c)) c.kill('SIGKILL');
  }
}
process.on('exit', () => {
  for (const c of children) if (alive(c)) c.kill('SIGKILL');
});

async function etcdHealthy(url) {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && (await res.json()).health === 'true';
  } catch {
    return false;
  }
}

async function startEtcdCluster(o) {
  const bin = process.env.ETCD_BIN ?? (existsSync('/usr/bin/etcd') ? '/usr/bin/etcd' : 'etcd');
  const members = [];
  for (let i = 0; i < o.etcdMembers; i++) {
    members.push({ name: `etcd-${i + 1}`, client: `http://127.0.0.1:${await freePort()}`, peer: `http://127.0.0.1:${await freePort()}`, dataDir: join(o.dir, `etcd-${i + 1}`) });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peer}`).join(',');
  for (const m of members) {
    rmSync(m.dataDir, { recursive: true, force: true });
    m.proc = startChild(bin, [
      '--name', m.name, '--data-dir', m.dataDir,
      '--listen-client-urls', m.client, '--advertise-client-urls', m.client,
      '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer,
      '--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', 'windlass-ha-local',
      '--experimental-watch-progress-notify-interval', '5s', '--logger', 'zap', '--log-level', 'warn',
    ], join(o.dir, `${m.name}.log`));
  }
  const deadline = Date.now() + 30000;
  for (const m of members) {
    while (!(await etcdHealthy(m.client))) {
      if (!alive(m.proc)) throw new Error(`${m.name} exited; see ${join(o.dir, `${m.name}.log`)}`);
      if (Date.now() > deadline) throw new Error(`${m.name} not healthy within 30 s; see ${join(o.dir, `${m.name}.log`)}`);
      await sleep(100);
    }
  }
  return members;
}

async function startReplica(o, i, etcd, creds) {
  const dataDir = join(o.dir, `windlass-${i + 1}`);
  mkdirSync(dataDir, { recursive: true });
  const logFile = join(o.dir, `windlass-${i + 1}.log`);
  const proc = startChild(process.execPath, [
    windlassBin, 'start', '--data-dir', dataDir, '--secure-port', '0', '--workers', '1',
    '--storage', 'etcd', '--etcd-servers', etcd.map((m) => m.client).join(','),
    '--tls-cert-file', creds.cert, '--tls-private-key-file', creds.key, '--token-auth-file', creds.tokens,
    // The balancer checks every second: a stopping replica leaves rotation before it stops serving.
    '--shutdown-delay-duration', '2s',
    ...o.extra,
  ], logFile);
  let out = '';
  const port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`windlass-${i + 1} did not start within 30 s; see ${logFile}`)), 30000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /secure port: (\d+)/.exec(out);
      if (m) { clearTimeout(timer); res(Number(m[1])); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); rej(new Error(`windlass-${i + 1} exited (${code}); see ${logFile}`)); });
  });
  return { name: `windlass-${i + 1}`, index: i, proc, port, url: `https://127.0.0.1:${port}`, healthy: false };
}

/** GET /readyz answering 200 "ok" within a second: the check HAProxy makes (deploy/haproxy.cfg). */
function ready(backend, ca) {
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
function loadBalancer(backends) {
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

async function main() {
  const o = parseArgs(process.argv.slice(2));
  mkdirSync(o.dir, { recursive: true });
  let stopping = false;
  const onSignal = async () => {
    if (stopping) return;
    stopping = true;
    await stopAll();
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const backends = [];
  const lb = loadBalancer(backends);
  await new Promise((res, rej) => {
    lb.server.once('error', rej);
    lb.server.listen(o.port, '127.0.0.1', res);
  });
  const lbUrl = `https://127.0.0.1:${lb.server.address().port}`;
  const creds = await ensureHaCredentials(join(o.dir, 'creds'), { server: lbUrl });
  const ca = readFileSync(creds.ca);

  const etcd = await startEtcdCluster(o);
  backends.push(...(await Promise.all(Array.from({ length: o.replicas }, (_, i) => startReplica(o, i, etcd, creds)))));

  const check = async () => {
    await Promise.all(backends.map(async (b) => { b.healthy = alive(b.proc) && (await ready(b, ca)); }));
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

  const status = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      loadBalancer: lbUrl,
      etcd: etcd.map((m) => ({ name: m.name, url: m.client, pid: m.proc.pid, alive: alive(m.proc) })),
      replicas: backends.map((b) => ({ name: b.name, url: b.url, pid: b.proc.pid, alive: alive(b.proc), inRotation: b.healthy })),
      connections: Object.fromEntries(lb.connections),
    }));
  });
  await new Promise((r) => status.listen(0, '127.0.0.1', r));
  const statusUrl = `http://127.0.0.1:${status.address().port}/`;

  const state = {
    loadBalancer: lbUrl, status: statusUrl, kubeconfig: creds.kubeconfig, ca: creds.ca,
    adminTokenFile: creds.adminToken, prometheusTokenFile: creds.prometheusToken,
    etcd: etcd.map((m) => ({ name: m.name, url: m.client, pid: m.proc.pid })),
    replicas: backends.map((b) => ({ name: b.name, url: b.url, pid: b.proc.pid })),
  };
  writeFileSync(join(o.dir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  console.log(`etcd: ${etcd.map((m) => m.client).join(',')}`);
  for (const b of backends) console.log(`${b.name}: ${b.url} (pid ${b.proc.pid})`);
  console.log(`status: ${statusUrl}`);
  console.log(`load balancer: ${lbUrl}`);
  console.log(`Point kubectl at it:\n  kubectl --kubeconfig ${creds.kubeconfig} get namespaces`);
  console.log('ha-local ready');
}

main().catch(async (err) => {
  console.error(`ha-local: ${err.message}`);
  await stopAll();
  process.exit(1);
});
