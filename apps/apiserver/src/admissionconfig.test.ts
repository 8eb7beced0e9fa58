/**
 * --admission-control-config-file reaches the server: kube-apiserver's flag, read at start,
 * and a configuration the server cannot use stops it with the reason.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from './flags.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'windlass.js');
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30000 });

test('--admission-control-config-file is parsed, listed in --help, and refused empty', () => {
  expect(parseFlags(['start', '--admission-control-config-file', '/etc/admission.yaml']).options.admissionControlConfigFile).toBe('/etc/admission.yaml');
  expect(parseFlags(['start']).options.admissionControlConfigFile).toBeUndefined();
  expect(run(['--help']).stdout).toContain('--admission-control-config-file string');
  expect(() => parseFlags(['start', '--admission-control-config-file='])).toThrow('invalid argument "" for "--admission-control-config-file" flag: must not be empty');
});

test('a ResourceQuota configuration without a resource stops the server with the validation error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-admission-'));
  try {
    writeFileSync(join(dir, 'admission.yaml'), [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: ResourceQuota',
      '  configuration:',
      '    apiVersion: apiserver.config.k8s.io/v1',
      '    kind: ResourceQuotaConfiguration',
      '    limitedResources:',
      '    - matchContains: [requests.storage]',
      '',
    ].join('\n'));
    const r = run(['start', '--data-dir', dir, '--secure-port', '0', '--embedded-path', ':memory:', '--admission-control-config-file', join(dir, 'admission.yaml')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('limitedResources[0].resource: Required value');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
