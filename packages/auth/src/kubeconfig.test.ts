import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { buildKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { ensureServingCredentials } from './serving.js';
import { tempDirs } from './testutil.js';

const run = promisify(execFile);
const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, KUBECONFIG: '' } });
  return stdout;
}

describe('buildKubeconfig', () => {
  it('builds a v1 Config named windlass by default', () => {
    expect(buildKubeconfig({ server: 'https://127.0.0.1:6443', caCertPem: CA, token: 'tok' })).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'windlass', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(CA).toString('base64') } }],
      contexts: [{ name: 'windlass', context: { cluster: 'windlass', user: 'windlass' } }],
      'current-context': 'windlass',
      preferences: {},
      users: [{ name: 'windlass', user: { token: 'tok' } }],
    });
  });

  it('uses the names and namespace given', () => {
    const cfg = buildKubeconfig({ server: 'https://h:1', caCertPem: CA, token: 't', clusterName: 'c', userName: 'u', contextName: 'x', namespace: 'ns' });
    expect(cfg.clusters[0]!.name).toBe('c');
    expect(cfg.users[0]!.name).toBe('u');
    expect(cfg.contexts).toEqual([{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }]);
    expect(cfg['current-context']).toBe('x');
  });

  it('leaves certificate-authority-data out when there is no CA to pin', () => {
    expect(buildKubeconfig({ server: 'https://h:1', token: 't' }).clusters[0]!.cluster).toEqual({ server: 'https://h:1' });
  });

  it('requires a server and a token', () => {
    expect(() => buildKubeconfig({ server: '', token: 't' })).toThrow(/server/);
    expect(() => buildKubeconfig({ server: 'https://h:1', token: '' })).toThrow(/token/);
  });
});

describe('writeKubeconfig', () => {
  it('writes YAML that parses back to the same object, mode 0600, creating directories', async () => {
    const path = join(await dirs.make(), 'a', 'b', 'kubeconfig');
    const opts = { server: 'https://127.0.0.1:6443', caCertPem: CA, token: 'tok:with#odd chars', namespace: 'dev' };
    await writeKubeconfig(path, opts);
    expect(yaml.load(await readFile(path, 'utf8'))).toEqual(buildKubeconfig(opts));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('replaces an existing file', async () => {
    const path = join(await dirs.make(), 'kubeconfig');
    await writeKubeconfig(path, { server: 'https://old:1', token: 'old' });
    await writeKubeconfig(path, { server: 'https://new:2', token: 'new' });
    expect((yaml.load(await readFile(path, 'utf8')) as { clusters: { cluster: { server: string } }[] }).clusters[0]!.cluster.server).toBe(
      'https://new:2',
    );
  });

  it('is read back by kubectl config view with the right server, token and CA', async () => {
    const path = join(await dirs.make(), 'kubeconfig');
    await writeKubeconfig(path, { server: 'https://127.0.0.1:16443', caCertPem: CA, token: 'tok-123', namespace: 'dev' });
    const view = JSON.parse(await kubectl(path, 'config', 'view', '--raw', '-o', 'json'));
    expect(view['current-context']).toBe('windlass');
    expect(view.clusters).toEqual([
      { name: 'windlass', cluster: { server: 'https://127.0.0.1:16443', 'certificate-authority-data': Buffer.from(CA).toString('base64') } },
    ]);
    expect(view.users).toEqual([{ name: 'windlass', user: { token: 'tok-123' } }]);
    expect(view.contexts).toEqual([{ name: 'windlass', context: { cluster: 'windlass', user: 'windlass', namespace: 'dev' } }]);
  });

  it('lets kubectl reach a server with the generated credentials: Go TLS accepts the chain and sends the token', async () => {
    const dataDir = await dirs.make();
    const creds = await ensureServingCredentials(dataDir, { hosts: ['localhost', '127.0.0.1'] });
    const seen: { path?: string; auth?: string }[] = [];
    const server = createServer({ cert: creds.certPem, key: creds.keyPem }, (req, res) => {
      seen.push({ path: req.url, auth: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as AddressInfo).port;
      for (const host of ['127.0.0.1', 'localhost']) {
        const path = join(dataDir, `kubeconfig-${host}`);
        await writeKubeconfig(path, { server: `https://${host}:${port}`, caCertPem: creds.caCertPem, token: 'secret-token' });
        expect(JSON.parse(await kubectl(path, 'get', '--raw', '/healthz'))).toEqual({ ok: true });
      }
      // kubectl may also probe discovery endpoints; every request must carry the token.
      expect(seen.filter((r) => r.path === '/healthz')).toHaveLength(2);
      expect(new Set(seen.map((r) => r.auth))).toEqual(new Set(['Bearer secret-token']));

      // And Go refuses the server when the kubeconfig pins some other CA.
      const other = await ensureServingCredentials(await dirs.make(), { hosts: ['localhost'] });
      const wrong = join(dataDir, 'kubeconfig-wrong-ca');
      await writeKubeconfig(wrong, { server: `https://127.0.0.1:${port}`, caCertPem: other.caCertPem, token: 'secret-token' });
      await expect(kubectl(wrong, 'get', '--raw', '/healthz')).rejects.toThrow(/certificate signed by unknown authority/);
    } finally {
      server.close();
    }
  });
});

describe('client certificate kubeconfigs', () => {
  it('carry the certificate and key as base64 of their PEM, with no token', () => {
    const cfg = buildKubeconfig({ server: 'https://h:1', caCertPem: CA, clientCertPem: 'CERT PEM', clientKeyPem: 'KEY PEM' });
    expect(cfg.users).toEqual([{ name: 'windlass', user: { 'client-certificate-data': Buffer.from('CERT PEM').toString('base64'), 'client-key-data': Buffer.from('KEY PEM').toString('base64') } }]);
    expect(() => buildKubeconfig({ server: 'https://h:1', clientCertPem: 'CERT PEM' })).toThrow(/client certificate and key/);
  });
});
