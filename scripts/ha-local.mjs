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
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';
import { alive, startTopology, stopAll } from './ha-topology.mjs';

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

  const { lb, lbUrl, creds, etcd, backends } = await startTopology({ dir: o.dir, port: o.port, replicas: o.replicas, etcdMembers: o.etcdMembers, extra: o.extra });

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
