/**
 * `windlass start --workers 2` on etcd: two worker processes behind one port, each a full
 * replica with its own watch cache. Connections are spread over the workers, so the test
 * holds keep-alive connections it knows reach each one (GET /windlass/v1/identity names
 * the process), writes through one worker and reads, lists and watches through the other.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { adminToken, eventually, removeDir, startWindlass, type RunningServer } from './harness.js';
import { KubeHttp, objectState, sortStates, sortedStates, type ObjectState, type WatchEnd, type WatchEventLine } from './kubehttp.js';

interface Identity {
  pid: number;
  worker: number;
}

/** A client whose every request goes over one connection, so to one worker. */
interface Pinned {
  client: KubeHttp;
  identity: Identity;
}

function parentPid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^PPid:\s+(\d+)$/m.exec(status)![1]);
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parentPid(Number(entry)) === pid) children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function identify(client: KubeHttp): Promise<Identity> {
  const r = await client.request('GET', '/windlass/v1/identity');
  expect(r.status).toBe(200);
  return r.body as Identity;
}

/** Opens one-connection clients until `perWorker` of them reach each of `workers` distinct processes. */
async function pinClients(s: RunningServer, token: string, workers: number, perWorker: number): Promise<Map<number, Pinned[]>> {
  const byPid = new Map<number, Pinned[]>();
  const spare: KubeHttp[] = [];
  const complete = () => byPid.size === workers && [...byPid.values()].every((l) => l.length >= perWorker);
  for (let attempt = 0; attempt < 50 && !complete(); attempt++) {
    const client = KubeHttp.forDataDir(s.url, s.dataDir, token, { oneConnection: true });
    const identity = await identify(client);
    const list = byPid.get(identity.pid) ?? [];
    if (list.length < perWorker) {
      list.push({ client, identity });
      byPid.set(identity.pid, list);
    } else spare.push(client);
  }
  spare.forEach((c) => c.destroy());
  if (!complete()) throw new Error(`could not reach ${workers} workers ${perWorker} times each: ${JSON.stringify([...byPid.keys()])}`);
  return byPid;
}

const rvOf = (o: any) => Number(o.metadata.resourceVersion);

/** What a watcher of the namespace must see for one acknowledged write, in write order. */
interface Expected {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  /** The write's resourceVersion; for a delete, the object's last one, which the event's must exceed. */
  rv: number;
}

/**
 * Creates, updates and deletes ConfigMaps in `ns` through `writer`; after each acknowledged
 * write, `reader` (another worker) must see it at once in a GET and a LIST without
 * resourceVersion (consistent reads), and `watcher` (on the reader's worker, from a
 * resourceVersion the writer returned before the first write) must deliver every write
 * exactly once, in order.
 */
async function writeThroughOneReadThroughOther(writer: KubeHttp, reader: KubeHttp, watcher: KubeHttp, ns: string): Promise<void> {
  const created = await writer.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  expect(created.status).toBe(201);
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const start = await writer.request('GET', base);
  expect(start.status).toBe(200);

  const events: WatchEventLine[] = [];
  let end: WatchEnd | undefined;
  const w = watcher.watch(`${base}?resourceVersion=${start.body.metadata.resourceVersion}`, (ev) => events.push(ev), (why) => (end = why));
  try {
    const live = new Map<string, ObjectState>();
    const expected: Expected[] = [];
    const ops: Array<{ op: 'create' | 'update' | 'delete'; name: string }> = [];
    for (let i = 0; i < 6; i++) {
      ops.push({ op: 'create', name: `cm-${i}` });
      if (i >= 1) ops.push({ op: 'update', name: `cm-${i - 1}` });
      if (i >= 2 && i % 2 === 0) ops.push({ op: 'delete', name: `cm-${i - 2}` });
    }
    for (const [n, { op, name }] of ops.entries()) {
      const path = `${base}/${name}`;
      if (op === 'create') {
        const r = await writer.request('POST', base, { metadata: { name, labels: { step: String(n) } }, data: { step: String(n) } });
        expect(r.status).toBe(201);
        live.set(name, objectState(r.body));
        expected.push({ type: 'ADDED', name, rv: rvOf(r.body) });
      } else if (op === 'update') {
        const current = await writer.request('GET', path);
        const r = await writer.request('PUT', path, { ...current.body, data: { step: String(n) } });
        expect(r.status).toBe(200);
        live.set(name, objectState(r.body));
        expected.push({ type: 'MODIFIED', name, rv: rvOf(r.body) });
      } else {
        const r = await writer.request('DELETE', path);
        expect(r.status).toBe(200);
        expected.push({ type: 'DELETED', name, rv: Number(live.get(name)!.resourceVersion) });
        live.delete(name);
      }

      const got = await reader.request('GET', path);
      if (op === 'delete') expect(got.status).toBe(404);
      else {
        expect(got.status).toBe(200);
        expect(objectState(got.body)).toEqual(live.get(name));
      }
      const listed = await reader.request('GET', base);
      expect(listed.status).toBe(200);
      expect(sortedStates(listed.body.items)).toEqual(sortStates([...live.values()]));
      expect(Number(listed.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(expected[expected.length - 1]!.rv);
    }

    const arrived = await eventually(() => events.length >= expected.length || end !== undefined, 30000);
    expect(arrived).toBe(true);
    // A duplicate would arrive right behind the last event; give it the chance.
    await new Promise((r) => setTimeout(r, 500));
    expect(end).toBeUndefined();
    expect(events.map((e) => `${e.type} ${e.object?.metadata?.name}`)).toEqual(expected.map((e) => `${e.type} ${e.name}`));
    let previous = Number(start.body.metadata.resourceVersion);
    for (const [i, ev] of events.entries()) {
      const rv = rvOf(ev.object);
      if (expected[i]!.type === 'DELETED') expect(rv).toBeGreaterThan(expected[i]!.rv);
      else expect(rv).toBe(expected[i]!.rv);
      expect(rv).toBeGreaterThan(previous);
      previous = rv;
    }
    // The watch held the watcher's one connection throughout: it was served by the worker identified on it.
    expect(watcher.sockets.size).toBe(1);
  } finally {
    w.close();
  }
}

/** Closes the pinned clients, then stops the server and its etcd. */
async function tearDown(pinned: Map<unknown, { client: { destroy(): void } }[]> | undefined, s: RunningServer | undefined, etcd: { stop(): Promise<void> } | undefined): Promise<void> {
  for (const list of pinned?.values() ?? []) list.forEach((p) => p.client.destroy());
  await s?.stop();
  await etcd?.stop();
  if (s) removeDir(s.dataDir);
}

describe('windlass start --workers 2 on etcd', () => {
  let etcd: EtcdServer;
  let s: RunningServer;
  let token = '';
  let pinned = new Map<number, Pinned[]>();
  let a: Pinned[] = [];
  let b: Pinned[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    s = await startWindlass(['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--workers', '2', '--etcd-compaction-interval', '0']);
    token = adminToken(s);
    pinned = await pinClients(s, token, 2, 2);
    [a, b] = [...pinned.values()];
  }, 90000);

  afterAll(() => tearDown(pinned, s, etcd));

  test('prints the port once, and its connections reach two worker processes of the server', async () => {
    expect(s.output().match(/secure port: \d+/g)).toHaveLength(1);
    expect(s.output()).toContain('workers: 2)');
    const identities = [a[0]!.identity, b[0]!.identity];
    expect(identities[0]!.pid).not.toBe(identities[1]!.pid);
    for (const id of identities) {
      expect(id.worker).toBeGreaterThan(0);
      expect(id.pid).not.toBe(s.proc.pid);
      expect(parentPid(id.pid)).toBe(s.proc.pid);
    }
  });

  test('the identity endpoint needs an authenticated user', async () => {
    const anonymous = new KubeHttp(s.url, readFileSync(`${s.dataDir}/pki/ca.crt`), 'not-a-token');
    try {
      expect((await anonymous.request('GET', '/windlass/v1/identity')).status).toBe(401);
    } finally {
      anonymous.destroy();
    }
  });

  test('writes through one worker are read, listed and watched through the other at once', async () => {
    await writeThroughOneReadThroughOther(a[0]!.client, b[0]!.client, b[1]!.client, 'workers-a-to-b');
  });

  test('and the other way round', async () => {
    await writeThroughOneReadThroughOther(b[0]!.client, a[0]!.client, a[1]!.client, 'workers-b-to-a');
  });

  test('the request clients stayed on their workers', async () => {
    for (const p of [a[0]!, b[0]!]) {
      expect(p.client.sockets.size).toBe(1);
      expect(await identify(p.client)).toEqual(p.identity);
    }
  });

  test('/metrics is the whole server\'s: every worker answers with the sum over both', async () => {
    const count = (text: string) => {
      const line = text.split('\n').find((l) => l.startsWith('apiserver_request_total{') && l.includes('resource="secrets"') && l.includes('code="404"') && l.includes('verb="GET"'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const scrape = async (p: Pinned) => {
      const r = await p.client.request('GET', '/metrics');
      expect(r.status).toBe(200);
      return r.text;
    };
    const before = count(await scrape(a[0]!));
    // 3 requests answered by one worker, 2 by the other.
    for (const p of [a[0]!, a[0]!, a[0]!, b[0]!, b[0]!]) expect((await p.client.request('GET', '/api/v1/namespaces/default/secrets/nope')).status).toBe(404);
    for (const p of [a[0]!, b[0]!]) {
      const text = await scrape(p);
      expect(count(text) - before).toBe(5);
      // State both workers see alike is reported once, not summed.
      expect(text).toMatch(/^kubernetes_build_info\{[^}]*\} 1$/m);
    }
  });

  test('a compaction through one worker is honoured by the other', async () => {
    const [onA, onB] = [a[0]!.client, b[0]!.client];
    const made = await onA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'before-compaction' } });
    expect(made.status).toBe(201);
    const old = rvOf(made.body);
    const target = await onA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'compaction-target' } });
    const compacted = await onA.request('POST', '/windlass/v1/compact', { revision: rvOf(target.body) });
    expect(compacted.status).toBe(200);
    // B hears of it through the coordination key in etcd, as a replica in another process does.
    const gone = async (client: KubeHttp) => {
      const r = await client.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`);
      return r.status === 410;
    };
    expect(await eventually(() => gone(onB))).toBe(true);
    expect(await gone(onA)).toBe(true);
  });

  test('a worker that dies is replaced on the same port; the server keeps serving', async () => {
    const victim = b[0]!.identity.pid;
    process.kill(victim, 'SIGKILL');
    expect(await eventually(() => /worker \d+ \(pid \d+\) exited with signal SIGKILL; starting another/.test(s.output()))).toBe(true);
    // New connections reach the survivor and, once it listens, the replacement.
    const seen = new Set<number>();
    const replaced = await eventually(async () => {
      const c = KubeHttp.forDataDir(s.url, s.dataDir, token, { oneConnection: true });
      try {
        const id = await identify(c);
        seen.add(id.pid);
        const r = await c.request('GET', '/api/v1/namespaces/workers-a-to-b/configmaps/cm-5');
        expect(r.status).toBe(200);
        return id.pid !== victim && id.pid !== a[0]!.identity.pid;
      } finally {
        c.destroy();
      }
    }, 60000, 200);
    expect(replaced).toBe(true);
    expect(seen.has(victim)).toBe(false);
    expect(s.output().match(/secure port: \d+/g)).toHaveLength(1);
  });

  test('SIGTERM stops every worker, then the primary', async () => {
    const workers = [...pinned.values()].map((l) => l[0]!.identity.pid).filter(alive);
    const children = childrenOf(s.proc.pid!);
    expect(children).toHaveLength(2);
    await s.stop('SIGTERM');
    expect(s.proc.exitCode).toBe(0);
    for (const pid of [...workers, ...children]) expect(await eventually(() => !alive(pid), 10000)).toBe(true);
  });
});

describe('windlass start --workers 2: periodic compaction', () => {
  let etcd: EtcdServer;
  let s: RunningServer;
  let pinned = new Map<number, Pinned[]>();

  beforeAll(async () => {
    etcd = await startEtcd();
    s = await startWindlass(['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--workers', '2', '--etcd-compaction-interval', '1s']);
    pinned = await pinClients(s, adminToken(s), 2, 1);
  }, 90000);

  afterAll(() => tearDown(pinned, s, etcd));

  test('runs, coordinated through the store, and both workers drop the compacted history', async () => {
    const [onA, onB] = [...pinned.values()].map((l) => l[0]!.client) as [KubeHttp, KubeHttp];
    const made = await onA.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'old' } });
    expect(made.status).toBe(201);
    const old = rvOf(made.body);
    const gone = async (client: KubeHttp) =>
      (await client.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`)).status === 410;
    expect(await eventually(async () => (await gone(onA)) && (await gone(onB)), 30000, 250)).toBe(true);
    expect(s.output()).not.toMatch(/compaction of .* failed/);
  });
});
