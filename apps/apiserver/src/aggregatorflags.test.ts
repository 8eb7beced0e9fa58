/**
 * The aggregation layer's flags: --proxy-client-cert-file and --proxy-client-key-file (only
 * together), --requestheader-client-ca-file and --requestheader-allowed-names are parsed and
 * listed in --help; a proxy client file that cannot be read stops the server at start; without
 * them `start` generates kubeadm's front-proxy CA and client certificate once and reuses them.
 */
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFrontProxyCredentials } from '@windlass/auth';
import { parseFlags } from './flags.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'windlass.js');
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30000 });

test('the aggregation flags are parsed, listed in --help, and the client certificate needs its key', () => {
  const o = parseFlags(['start', '--proxy-client-cert-file=/pki/p.crt', '--proxy-client-key-file', '/pki/p.key', '--requestheader-client-ca-file=/pki/fp.crt', '--requestheader-allowed-names=front-proxy-client, other', '--requestheader-allowed-names', 'third']).options;
  expect([o.proxyClientCertFile, o.proxyClientKeyFile, o.requestHeaderClientCAFile]).toEqual(['/pki/p.crt', '/pki/p.key', '/pki/fp.crt']);
  expect(o.requestHeaderAllowedNames).toEqual(['front-proxy-client', 'other', 'third']);
  expect(parseFlags(['start']).options.requestHeaderAllowedNames).toEqual([]);
  const h = parseFlags(['start', '--requestheader-username-headers=X-Proxy-User,X-User', '--requestheader-group-headers', 'X-Proxy-Group', '--requestheader-uid-headers=X-Proxy-Uid', '--requestheader-extra-headers-prefix=X-Proxy-Extra-']).options;
  expect([h.requestHeaderUsernameHeaders, h.requestHeaderGroupHeaders, h.requestHeaderUIDHeaders, h.requestHeaderExtraHeaderPrefixes]).toEqual([['X-Proxy-User', 'X-User'], ['X-Proxy-Group'], ['X-Proxy-Uid'], ['X-Proxy-Extra-']]);
  // Unset: kubeadm's names, chosen when the server is assembled.
  expect(parseFlags(['start']).options.requestHeaderUsernameHeaders).toBeUndefined();
  const help = run(['start', '--help']).stdout;
  for (const f of ['--proxy-client-cert-file string', '--proxy-client-key-file string', '--requestheader-client-ca-file string', '--requestheader-allowed-names strings',
    '--requestheader-username-headers strings', '--requestheader-uid-headers strings', '--requestheader-group-headers strings', '--requestheader-extra-headers-prefix strings']) expect(help).toContain(f);
  expect(() => parseFlags(['start', '--proxy-client-key-file', '/pki/p.key'])).toThrow('--proxy-client-cert-file and --proxy-client-key-file must be specified together');
});

test('a proxy client certificate that cannot be read stops the server with the flag and the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-proxyflags-'));
  try {
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--embedded-path', ':memory:', '--proxy-client-cert-file', join(dir, 'none.crt'), '--proxy-client-key-file', join(dir, 'none.key')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`--proxy-client-cert-file: ENOENT: no such file or directory, open '${join(dir, 'none.crt')}'`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the generated front-proxy client certificate is front-proxy-client, for client auth, from its own CA, and kept across starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-frontproxy-'));
  try {
    const first = await ensureFrontProxyCredentials(dir);
    const cert = new X509Certificate(first.client.certPem);
    const ca = new X509Certificate(first.caCertPem);
    expect(cert.subject).toBe('CN=front-proxy-client');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkIssued(ca) && cert.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toMatch(/^CN=windlass-front-proxy-ca@\d+$/);
    expect(readFileSync(join(dir, 'pki', 'front-proxy-client.crt'), 'utf8')).toBe(first.client.certPem);
    // The serving CA is another one: only the front-proxy CA vouches for proxied identities.
    expect(readFileSync(join(dir, 'pki', 'front-proxy-ca.crt'), 'utf8')).toBe(first.caCertPem);
    expect(await ensureFrontProxyCredentials(dir)).toEqual(first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
