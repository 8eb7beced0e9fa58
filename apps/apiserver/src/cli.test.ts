import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'windlass.js');
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30000 });

test('--help lists the flags with kube-apiserver names and exits 0', () => {
  const r = run(['--help']);
  expect(r.status).toBe(0);
  for (const flag of ['--data-dir', '--bind-address', '--secure-port', '--storage', '--etcd-servers', '--etcd-prefix', '--feature-gates', '--tls-cert-file', '--token-auth-file', '--workers']) {
    expect(r.stdout).toContain(flag);
  }
});

test('a bad flag is a clear error and exit code 2', () => {
  const r = run(['start', '--secure-port', 'abc']);
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('--secure-port');
  const unknown = run(['start', '--no-such-flag']);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain('--no-such-flag');
});

test('unreachable etcd: a clear error and a non-zero exit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-cli-'));
  try {
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--storage', 'etcd', '--etcd-servers', 'http://127.0.0.1:1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cannot reach etcd');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--workers 2 with embedded storage is refused with exit code 2, saying why', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-cli-'));
  try {
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--workers', '2']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Error: --workers 2 needs --storage=etcd: with --storage=embedded one process owns the SQLite file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unreachable etcd with --workers 2: the primary exits with the workers\' code and leaves none behind', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-cli-'));
  try {
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--storage', 'etcd', '--etcd-servers', 'http://127.0.0.1:1', '--workers', '2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cannot reach etcd');
    expect(r.stderr).toMatch(/worker \d+ \(pid \d+\) exited with code 1 before the server was up/);
    // spawnSync returns once the pipes close: every worker holding them has exited too.
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
