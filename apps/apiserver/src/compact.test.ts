import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenAuthenticator, ensureServingCredentials, writeKubeconfig } from '@windlass/auth';
import { APIServer } from '@windlass/server';
import { EmbeddedStorage, type Storage } from '@windlass/storage';
import { kubeconfigPath, loadClusterAccess, runCompact } from './compact.js';

const adminToken = 'admin-token-0123456789';
const aliceToken = 'alice-token-0123456789';

let dir: string;
let storage: Storage;
let server: APIServer;
let url: string;
let caPem: string;

/** A kubeconfig for the test server with the given token; returns its path. */
async function kubeconfig(name: string, token: string, server = url): Promise<string> {
  const path = join(dir, name);
  await writeKubeconfig(path, { server, caCertPem: caPem, token });
  return path;
}

function capture() {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  return { out, sink: { log: (l: string) => out.stdout.push(l), error: (l: string) => out.stderr.push(l) } };
}

async function configmap(name: string): Promise<number> {
  const store = server.storeFor('', 'v1', 'configmaps')!;
  const obj = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }, { dryRun: false });
  return obj.revision;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'windlass-compact-'));
  const creds = await ensureServingCredentials(dir, { hosts: ['localhost', '127.0.0.1'] });
  caPem = creds.caCertPem;
  storage = new EmbeddedStorage({ path: ':memory:' });
  server = new APIServer({
    storage,
    compactionIntervalMs: 0,
    tls: { cert: creds.certPem, key: creds.keyPem },
    authenticator: new TokenAuthenticator([
      { token: adminToken, user: { name: 'admin', uid: 'admin', groups: ['system:masters'] } },
      { token: aliceToken, user: { name: 'alice', uid: 'alice', groups: ['developers'] } },
    ]),
  });
  const port = await server.listen(0, '127.0.0.1');
  url = `https://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server?.close();
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubeconfig', () => {
  test('path: the flag, else the first entry of $KUBECONFIG, else ./.windlass/kubeconfig', () => {
    expect(kubeconfigPath('/x/config', { KUBECONFIG: '/y' })).toBe('/x/config');
    expect(kubeconfigPath(undefined, { KUBECONFIG: ':/a/config:/b/config' })).toBe('/a/config');
    expect(kubeconfigPath(undefined, {})).toBe('./.windlass/kubeconfig');
  });

  test('the current context gives the server, the CA and the token', async () => {
    const path = await kubeconfig('admin.kubeconfig', adminToken);
    const access = loadClusterAccess(path);
    expect(access).toEqual({ server: url, ca: Buffer.from(caPem), token: adminToken });
  });

  test('a missing file or context is a clear error', () => {
    expect(() => loadClusterAccess(join(dir, 'nope'))).toThrow(`cannot read kubeconfig ${join(dir, 'nope')}`);
    const bad = join(dir, 'bad.kubeconfig');
    writeFileSync(bad, 'apiVersion: v1\nkind: Config\ncurrent-context: gone\ncontexts: []\n');
    expect(() => loadClusterAccess(bad)).toThrow(`${bad}: no context named "gone"`);
  });
});

describe('runCompact', () => {
  test('an admin compacts: the Status message is printed and the exit code is 0', async () => {
    await configmap('a');
    const target = await configmap('b');
    await configmap('c');
    const { out, sink } = capture();
    expect(await runCompact({ kubeconfig: await kubeconfig('admin.kubeconfig', adminToken), revision: target }, sink)).toBe(0);
    expect(out).toEqual({ stdout: [`compacted up to revision ${target}`], stderr: [] });
    expect(await storage.compactedRevision()).toBe(target);

    const again = capture();
    expect(await runCompact({ kubeconfig: await kubeconfig('admin.kubeconfig', adminToken), revision: target }, again.sink)).toBe(1);
    expect(again.out.stderr).toEqual([`Error from server (Conflict): revision ${target} is already compacted: the store is compacted up to revision ${target}`]);
  });

  test('$KUBECONFIG is used without --kubeconfig', async () => {
    const target = await configmap('via-env');
    await configmap('after-env');
    const { out, sink } = capture();
    expect(await runCompact({ revision: target }, sink, { KUBECONFIG: await kubeconfig('env.kubeconfig', adminToken) })).toBe(0);
    expect(out.stdout).toEqual([`compacted up to revision ${target}`]);
  });

  test('failures print the server\'s Status message and exit non-zero', async () => {
    const target = await configmap('d');
    const before = await storage.compactedRevision();
    const alice = capture();
    expect(await runCompact({ kubeconfig: await kubeconfig('alice.kubeconfig', aliceToken), revision: target }, alice.sink)).toBe(1);
    expect(alice.out).toEqual({ stdout: [], stderr: ['Error from server (Forbidden): forbidden: User "alice" cannot post path "/windlass/v1/compact"'] });

    const future = capture();
    const current = await storage.currentRevision();
    expect(await runCompact({ kubeconfig: await kubeconfig('admin.kubeconfig', adminToken), revision: current + 5 }, future.sink)).toBe(1);
    expect(future.out.stderr).toEqual([`Error from server (BadRequest): revision ${current + 5} is in the future: the current revision is ${current}`]);

    const stranger = capture();
    expect(await runCompact({ kubeconfig: await kubeconfig('stranger.kubeconfig', 'unknown-token'), revision: target }, stranger.sink)).toBe(1);
    expect(stranger.out.stderr).toEqual(['Error from server (Unauthorized): Unauthorized']);
    expect(await storage.compactedRevision()).toBe(before);
  });

  test('the server must present a certificate signed by the kubeconfig\'s CA', async () => {
    const other = await ensureServingCredentials(join(dir, 'other'), { hosts: ['127.0.0.1'] });
    const path = join(dir, 'other-ca.kubeconfig');
    await writeKubeconfig(path, { server: url, caCertPem: other.caCertPem, token: adminToken });
    const target = await configmap('other-ca');
    const before = await storage.compactedRevision();
    const { out, sink } = capture();
    expect(await runCompact({ kubeconfig: path, revision: target }, sink)).toBe(1);
    expect(out.stderr[0]).toMatch(new RegExp(`^error: cannot reach ${url.replace(/\./g, '\\.')}: `));
    expect(await storage.compactedRevision()).toBe(before);
  });

  test('an unreachable server or a missing kubeconfig is an error, not a crash', async () => {
    const closed = capture();
    const path = await kubeconfig('closed.kubeconfig', adminToken, 'https://127.0.0.1:1');
    expect(await runCompact({ kubeconfig: path, revision: 1 }, closed.sink)).toBe(1);
    expect(closed.out.stderr[0]).toMatch(/^error: cannot reach https:\/\/127\.0\.0\.1:1: /);
    const missing = capture();
    expect(await runCompact({ kubeconfig: join(dir, 'missing'), revision: 1 }, missing.sink)).toBe(1);
    expect(missing.out.stderr[0]).toMatch(/^error: cannot read kubeconfig /);
  });
});
