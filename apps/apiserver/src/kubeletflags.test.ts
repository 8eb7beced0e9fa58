/**
 * kube-apiserver's kubelet client flags: --kubelet-certificate-authority,
 * --kubelet-client-certificate and --kubelet-client-key are parsed, listed in --help, the
 * certificate and key only together, and files that cannot be read stop the server at start.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from './flags.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'windlass.js');
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30000 });

test('the kubelet client flags are parsed, listed in --help, and the certificate needs its key', () => {
  const o = parseFlags(['start', '--kubelet-certificate-authority=/pki/ca.crt', '--kubelet-client-certificate', '/pki/c.crt', '--kubelet-client-key=/pki/c.key']).options;
  expect([o.kubeletCertificateAuthority, o.kubeletClientCertificate, o.kubeletClientKey]).toEqual(['/pki/ca.crt', '/pki/c.crt', '/pki/c.key']);
  expect(parseFlags(['start']).options.kubeletCertificateAuthority).toBeUndefined();
  const help = run(['--help']).stdout;
  for (const f of ['--kubelet-certificate-authority string', '--kubelet-client-certificate string', '--kubelet-client-key string']) expect(help).toContain(f);
  expect(() => parseFlags(['start', '--kubelet-client-certificate', '/pki/c.crt'])).toThrow('--kubelet-client-certificate and --kubelet-client-key must be specified together');
  expect(() => parseFlags(['start', '--kubelet-certificate-authority='])).toThrow('invalid argument "" for "--kubelet-certificate-authority" flag: must not be empty');
});

test('a kubelet client key that cannot be read stops the server with the flag and the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-kubelet-'));
  try {
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--embedded-path', ':memory:', '--kubelet-client-certificate', join(dir, 'none.crt'), '--kubelet-client-key', join(dir, 'none.key')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`--kubelet-client-certificate: ENOENT: no such file or directory, open '${join(dir, 'none.crt')}'`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
