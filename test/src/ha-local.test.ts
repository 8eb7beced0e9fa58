/**
 * scripts/ha-local.mjs: docker-compose.yml's topology as processes (3 etcd members, 3
 * replicas, a /readyz-checked TCP balancer). kubectl and a resuming watch go through the
 * balancer while one replica and then one etcd member are killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeHttp, lineReader } from './kubehttp.js';
import { eventually, kubectl, removeDir, tempDir } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface State {
  loadBalancer: string;
  status: string;
  kubeconfig: string;
  ca: string;
  adminTokenFile: string;
  etcd: Array<{ name: string; url: string; pid: number }>;
  replicas: Array<{ name: string; url: string; pid: number }>;
}
interface Status {
  replicas: Array<{ name: string; alive: boolean; inRotation: boolean }>;
  connections: Record<string, string>;
}

let dir = '';
let script: ChildProcess;
let state: State;
let client: KubeHttp;
let output = '';

beforeAll(async () => {
  dir = tempDir('windlass-ha-');
  script = spawn(process.execPath, [join(root, 'scripts', 'ha-local.mjs'), '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  script.stdout!.on('data', (d) => (output += d));
  script.stderr!.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ha-local did not get ready:\n${output}`)), 45000);
    script.stdout!.on('data', () => {
      if (output.includes('ha-local ready')) { clearTimeout(timer); resolve(); }
    });
    script.once('exit', (code) => { clearTimeout(timer); reject(new Error(`ha-local exited (${code}):\n${output}`)); });
  });
  state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
  client = new KubeHttp(state.loadBalancer, readFileSync(state.ca), readFileSync(state.adminTokenFile, 'utf8').trim());
}, 60000);

afterAll(async () => {
  client?.destroy();
  if (script && script.exitCode === null && script.signalCode === null) {
    const exited = new Promise((r) => script.once('exit', r));
    script.kill('SIGTERM');
    await exited;
  }
  if (dir) removeDir(dir);
}, 30000);

const connectionError = /ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|other side closed|TLS connection|disconnected before secure/i;

/** A request through the balancer, retried on connection errors only: every HTTP answer counts. */
async function call(method: string, path: string, body?: unknown, contentType?: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return { ...(await client.request(method, path, body, contentType)), retried: attempt > 0 };
    } catch (err) {
      if (!connectionError.test(String(err)) || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** kubectl through the balancer, retried only when it could not connect or the connection dropped. */
function kubectlLb(args: string[]): string {
  for (let attempt = 0; ; attempt++) {
    const r = kubectl(state.kubeconfig, args);
    if (r.code === 0) return r.stdout;
    if (attempt >= 10 || !/connection refused|connection reset|EOF|broken pipe|TLS handshake/i.test(r.stderr)) {
      throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    }
  }
}

async function lbStatus(): Promise<Status> {
  return (await fetch(state.status)).json() as Promise<Status>;
}

/** A watch through the balancer that reopens from the last resourceVersion it saw whenever its stream ends. */
function resumingWatch(path: string, fromRv: string, ca: Buffer, token: string) {
  const events: Array<{ type: string; name: string; rv: number }> = [];
  const localPorts: number[] = [];
  const ends: string[] = [];
  let rv = fromRv;
  let stopped = false;
  let req: ReturnType<typeof https.get> | undefined;
  const open = () => {
    if (stopped) return;
    let reopened = false;
    const reopen = (why: string) => {
      if (reopened || stopped) return;
      reopened = true;
      ends.push(why);
      setTimeout(open, 100);
    };
    req = https.get(`${state.loadBalancer}${path}?watch=1&resourceVersion=${rv}`, {
      ca, servername: 'localhost', agent: false, headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) {
        ends.push(`status ${res.statusCode}`);
        stopped = true; // a 410 or any other answer would be a failure: recorded, not retried
        res.resume();
        return;
      }
      localPorts.push(res.socket.localPort!);
      const lines = lineReader((line) => {
        const ev = JSON.parse(line);
        if (ev.type === 'ERROR') {
          // As client-go's reflector: a 410 means relist (a failure here); anything else (a 504
          // while a replica's cache catches up after losing its etcd member) is retried from the
          // same resourceVersion once the server ends the stream.
          ends.push(`ERROR ${ev.object.code}`);
          if (ev.object.code === 410) stopped = true;
          return;
        }
        rv = ev.object.metadata.resourceVersion;
        if (ev.type !== 'BOOKMARK') events.push({ type: ev.type, name: ev.object.metadata.name, rv: Number(rv) });
      });
      res.setEncoding('utf8');
      res.on('data', (d: string) => lines.push(d));
      res.on('end', () => reopen('end'));
      res.on('error', (e) => reopen(`error ${e.message}`));
      res.on('close', () => reopen('close'));
    });
    req.on('error', (e) => reopen(`error ${e.message}`));
  };
  open();
  return {
    events, ends,
    currentLocalPort: () => localPorts[localPorts.length - 1],
    connections: () => localPorts.length,
    stop() { stopped = true; req?.destroy(); },
  };
}

let stopWatch = (): void => undefined;
afterEach(() => stopWatch());

test('kubectl and a resuming watch through the balancer survive killing a replica and an etcd member', async () => {
  expect(state.etcd).toHaveLength(3);
  expect(state.replicas).toHaveLength(3);
  expect(kubectlLb(['get', 'namespaces', '-o', 'name'])).toContain('namespace/default');
  kubectlLb(['create', 'namespace', 'ha']);
  const path = '/api/v1/namespaces/ha/configmaps';
  const listed = await call('GET', path);
  expect(listed.status).toBe(200);

  const watch = resumingWatch(path, listed.body.metadata.resourceVersion, readFileSync(state.ca), readFileSync(state.adminTokenFile, 'utf8').trim());
  stopWatch = () => watch.stop();
  expect(await eventually(() => watch.connections() === 1, 10000)).toBe(true);

  // A writer through the balancer for the whole test; every create must be acknowledged.
  const acked = new Map<string, number>();
  let writing = true;
  let n = 0;
  let answeredConflict = 0;
  let writerError: unknown;
  const writer = (async () => {
    while (writing) {
      const name = `cm-${n++}`;
      const data = { n: `${n}-${Math.random()}` };
      let r = await call('POST', path, { metadata: { name }, data });
      // An etcd call lost with its connection (the member died) is a 500, as kube-apiserver answers
      // it: the create may or may not have been applied, so the client sends it again.
      for (let attempt = 0; r.status === 500 && /etcd unavailable/.test(r.body?.message ?? '') && attempt < 20; attempt++) {
        await new Promise((done) => setTimeout(done, 100));
        r = await call('POST', path, { metadata: { name }, data });
      }
      if (r.status === 409 && r.body?.reason === 'AlreadyExists') {
        // Applied, but answered AlreadyExists: our retry after a lost answer (a reset connection or
        // the 500 above). The object must then be ours.
        const got = await call('GET', `${path}/${name}`);
        expect(got.status).toBe(200);
        expect(got.body.data).toEqual(data);
        answeredConflict++;
        acked.set(name, Number(got.body.metadata.resourceVersion));
        continue;
      }
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
      acked.set(name, Number(r.body.metadata.resourceVersion));
    }
  })().catch((err) => { writerError = err; });
  const waitForWrites = async (count: number) => {
    await eventually(() => acked.size >= count || writerError !== undefined, 20000);
    if (writerError) throw writerError;
    expect(acked.size).toBeGreaterThanOrEqual(count);
  };
  await waitForWrites(10);

  // Kill the replica the watch is proxied to.
  const before = await lbStatus();
  const victimName = before.connections[String(watch.currentLocalPort())];
  expect(victimName).toBeDefined();
  const victim = state.replicas.find((r) => r.name === victimName)!;
  process.kill(victim.pid, 'SIGKILL');
  expect(await eventually(() => watch.connections() >= 2, 15000)).toBe(true);
  const resumedOn = (await lbStatus()).connections[String(watch.currentLocalPort())];
  expect(resumedOn).toBeDefined();
  expect(resumedOn).not.toBe(victimName);
  await waitForWrites(acked.size + 10);
  expect(kubectlLb(['get', 'configmaps', '-n', 'ha', '-o', 'name'])).toContain('configmap/cm-0');
  expect(await eventually(async () => !(await lbStatus()).replicas.find((r) => r.name === victimName)!.inRotation, 5000)).toBe(true);

  // Kill an etcd member: the other two keep quorum.
  process.kill(state.etcd[0].pid, 'SIGKILL');
  await waitForWrites(acked.size + 10);
  kubectlLb(['create', 'configmap', 'after-etcd-kill', '-n', 'ha', '--from-literal=k=v']);
  expect(kubectlLb(['get', 'configmap', 'after-etcd-kill', '-n', 'ha', '-o', 'jsonpath={.data.k}'])).toBe('v');
  expect(kubectlLb(['get', 'namespaces', '-o', 'name'])).toContain('namespace/ha');
  await waitForWrites(acked.size + 10);

  writing = false;
  await writer;
  if (writerError) throw writerError;
  if (answeredConflict > 0) console.log(`${answeredConflict} create(s) applied but answered 409 AlreadyExists after a fault`);
  const expectedNames = [...acked.keys(), 'after-etcd-kill'];
  // A replica whose etcd connection went to the killed member serves no watch until its etcd
  // client has moved to another member (seen taking 10-15 s): the watch retries until then.
  const complete = await eventually(() => expectedNames.every((name) => watch.events.some((e) => e.name === name)), 45000);
  watch.stop();
  if (!complete) {
    const missing = expectedNames.filter((name) => !watch.events.some((e) => e.name === name));
    throw new Error(`the watch missed ${missing.length} of ${expectedNames.length} events (${missing.slice(0, 5).join(', ')}…); its streams ended: ${watch.ends.join('; ')}; status ${JSON.stringify(await lbStatus())}`);
  }

  // Every acknowledged create exactly once, at its revision, in revision order, across the resumption.
  const rvs = watch.events.map((e) => e.rv);
  expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
  expect(new Set(rvs).size).toBe(rvs.length);
  expect(watch.events.every((e) => e.type === 'ADDED')).toBe(true);
  expect(watch.events.map((e) => e.name).sort()).toEqual([...expectedNames].sort());
  for (const [name, rv] of acked) expect(watch.events.find((e) => e.name === name)?.rv).toBe(rv);
  expect(watch.ends.some((e) => e.startsWith('status'))).toBe(false);
}, 100000);
