/** `windlass compact` against a running `windlass start`, then the 410s clients get through the API. */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKubeconfig } from '@windlass/auth';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { httpsCall, kubectlOk, removeDir, startWindlass, tempDir, windlassBin, type RunningServer, servingCertFlags } from './harness.js';

const adminToken = 'compact-admin-token-0123456789';
const aliceToken = 'compact-alice-token-0123456789';

function compact(kubeconfig: string, revision: number) {
  const r = spawnSync(process.execPath, [windlassBin, 'compact', '--kubeconfig', kubeconfig, '--revision', String(revision)], { encoding: 'utf8', timeout: 30000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tokenFile(dir: string): string {
  const path = join(dir, 'tokens.csv');
  writeFileSync(path, `${adminToken},admin,admin-uid,"system:masters"\n${aliceToken},alice,alice-uid,"developers"\n`);
  return path;
}

function createConfigMap(s: RunningServer, name: string): number {
  kubectlOk(s.kubeconfig, ['create', 'configmap', name, '-n', 'default', '--from-literal=k=v']);
  return Number(kubectlOk(s.kubeconfig, ['get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.metadata.resourceVersion}']));
}

const configmaps = '/api/v1/namespaces/default/configmaps';

const listAt = (s: RunningServer, token: string, revision: number) =>
  httpsCall(s, 'GET', `${configmaps}?resourceVersion=${revision}&resourceVersionMatch=Exact`, { token });

/**
 * The list and the watch a client makes from an old resourceVersion. A watch that is
 * refused ends at once; one that is served ends after `watchSeconds`.
 */
async function readsFrom(s: RunningServer, token: string, revision: number, watchSeconds = 15) {
  const list = await listAt(s, token, revision);
  const watch = await httpsCall(s, 'GET', `${configmaps}?watch=1&resourceVersion=${revision}&timeoutSeconds=${watchSeconds}`, { token });
  const events = watch.text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  return { list, watch: { status: watch.status, events } };
}

function expectGone(reads: Awaited<ReturnType<typeof readsFrom>>, revision: number): void {
  expect(reads.list.status).toBe(410);
  expect(reads.list.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
  expect(reads.watch.status).toBe(200);
  expect(reads.watch.events).toHaveLength(1);
  const [ev] = reads.watch.events;
  expect(ev).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 } });
  const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(ev.object.message);
  expect(m).not.toBeNull();
  expect(Number(m![1])).toBe(revision);
  expect(Number(m![2])).toBeGreaterThan(revision);
}

/** Polls until `probe` holds; the timeout only bounds a failing test. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('windlass compact against windlass start (embedded)', () => {
  let s: RunningServer;
  beforeAll(async () => {
    const dir = tempDir();
    s = await startWindlass(['--token-auth-file', tokenFile(dir), '--etcd-compaction-interval', '0'], dir);
  });
  afterAll(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });

  test('an admin compacts; older lists and watches then answer 410 Expired', async () => {
    const old = createConfigMap(s, 'old');
    // Before compaction the old revision is served: the 410s below come from the compaction.
    const before = await readsFrom(s, adminToken, old, 1);
    expect(before.list.status).toBe(200);
    expect(before.watch.events.map((e) => e.type)).not.toContain('ERROR');

    const target = createConfigMap(s, 'target');
    createConfigMap(s, 'newer');
    const r = compact(s.kubeconfig, target);
    expect(r).toMatchObject({ code: 0, stdout: `compacted up to revision ${target}\n`, stderr: '' });
    expectGone(await readsFrom(s, adminToken, old), old);

    const exact = await httpsCall(s, 'GET', `${configmaps}?resourceVersion=${target}&resourceVersionMatch=Exact`, { token: adminToken });
    expect(exact.status).toBe(200);
    expect(exact.body.items.map((i: any) => i.metadata.name)).toEqual(['old', 'target']);

    const again = compact(s.kubeconfig, target);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`Error from server (Conflict): revision ${target} is already compacted: the store is compacted up to revision ${target}\n`);
  });

  test('a non-admin gets 403 and a future revision 400; both exit non-zero with the server\'s message', async () => {
    const rv = createConfigMap(s, 'for-alice');
    const aliceConfig = join(s.dataDir, 'alice.kubeconfig');
    await writeKubeconfig(aliceConfig, { server: s.url, caCertPem: readFileSync(join(s.dataDir, 'pki', 'ca.crt'), 'utf8'), token: aliceToken });
    const alice = compact(aliceConfig, rv);
    expect(alice.code).toBe(1);
    expect(alice.stderr).toBe('Error from server (Forbidden): forbidden: User "alice" cannot post path "/windlass/v1/compact"\n');
    expect((await listAt(s, adminToken, rv - 1)).status).toBe(200);

    const future = compact(s.kubeconfig, rv + 1000);
    expect(future.code).toBe(1);
    expect(future.stderr).toMatch(new RegExp(`^Error from server \\(BadRequest\\): revision ${rv + 1000} is in the future: the current revision is \\d+\\n$`));
  });
});

describe('windlass compact with two replicas on etcd', () => {
  let etcd: EtcdServer;
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    etcd = await startEtcd();
    const dirA = tempDir();
    const etcdFlags = ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--etcd-compaction-interval', '0'];
    a = await startWindlass([...etcdFlags, '--token-auth-file', tokenFile(dirA)], dirA);
    // Replica B shares A's serving certificate and tokens, as replicas behind a load balancer do.
    const dirB = tempDir();
    b = await startWindlass([
      ...etcdFlags, '--token-auth-file', tokenFile(dirB),
      ...servingCertFlags(a.dataDir),
    ], dirB);
  }, 60000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
    for (const s of [a, b]) if (s) removeDir(s.dataDir);
  });

  test('a compaction through one replica is honoured by the other', async () => {
    // B's requests verify its certificate with A's CA: they share the serving certificate.
    const onB = { ...b, dataDir: a.dataDir };
    const old = createConfigMap(a, 'old');
    const before = await readsFrom(onB, adminToken, old, 1);
    expect(before.list.status).toBe(200);
    expect(before.watch.events.map((e) => e.type)).not.toContain('ERROR');

    const target = createConfigMap(a, 'target');
    const r = compact(a.kubeconfig, target);
    expect(r).toMatchObject({ code: 0, stdout: `compacted up to revision ${target}\n` });
    // B hears of the compaction through the coordination key, not at once.
    await until('replica B to refuse a watch from the old revision', async () => (await readsFrom(onB, adminToken, old, 1)).watch.events[0]?.type === 'ERROR');
    expectGone(await readsFrom(onB, adminToken, old), old);
    expectGone(await readsFrom(a, adminToken, old), old);
  });
});
