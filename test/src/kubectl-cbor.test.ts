/**
 * CBOR read by a real Go client. With KUBE_FEATURE_ClientsAllowCBOR and ClientsPreferCBOR,
 * kubectl 1.32's dynamic client (kubectl wait, the wait of kubectl delete) asks for
 * `application/json;q=0.9,application/cbor;q=1`; against a server with CBORServingAndStorage
 * it lists in application/cbor and watches in application/cbor-seq, decoding with kube's own
 * CBOR decoder (fxamacker/cbor in kube's modes). A condition met through a watch event, a
 * []byte field compared as base64 and a deletion seen as a CBOR 404 Status show it read them.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlArgs, kubectlOk, type RunningServer, useWindlass } from './harness.js';

const cborEnv = { ...process.env, KUBE_FEATURE_ClientsAllowCBOR: 'true', KUBE_FEATURE_ClientsPreferCBOR: 'true' };

/** kubectl with the CBOR client features, run in the background; resolves when it exits. */
function kubectlCBOR(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('kubectl', kubectlArgs(kubeconfig, [...args, '-v=8']), { env: cborEnv });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('kubectl reading CBOR (CBORServingAndStorage on)', () => {
  const server = useWindlass(['--feature-gates', 'CBORServingAndStorage=true']);
  let s: RunningServer;
  const ns = 'cbor';
  const k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', ns, ...args]);

  beforeAll(() => {
    s = server();
    kubectlOk(s.kubeconfig, ['create', 'namespace', ns]);
  });

  test('kubectl wait lists and watches in CBOR and sees the change that meets its condition', async () => {
    k('create', 'configmap', 'job', '--from-literal=state=pending');
    const waiting = kubectlCBOR(s.kubeconfig, ['-n', ns, 'wait', '--for=jsonpath={.data.state}=done', 'configmap/job', '--timeout=30s']);
    // The condition is not met by the list: only the watch event of this patch can meet it.
    await new Promise((r) => setTimeout(r, 1500));
    k('patch', 'configmap', 'job', '--type=merge', '-p', '{"data":{"state":"done"}}');
    const r = await waiting;
    expect(r.stderr).toMatch(/Accept: application\/json;q=0\.9,application\/cbor;q=1/);
    expect(r.stderr).toMatch(/Content-Type: application\/cbor\n/);
    expect(r.stderr).toMatch(/Content-Type: application\/cbor-seq/);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap/job condition met');
  });

  test('a []byte field read from CBOR is the base64 the JSON form holds (its tag 22 bytes are checked byte for byte in packages/server)', async () => {
    // Six bytes: base64 without '=' padding, which kubectl's --for=jsonpath cannot take.
    const value = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x10]);
    const file = join(s.dataDir, 'secret-value');
    writeFileSync(file, value);
    k('create', 'secret', 'generic', 'bin', `--from-file=key=${file}`);
    const json = JSON.parse(k('get', 'secret', 'bin', '-o', 'json'));
    const r = await kubectlCBOR(s.kubeconfig, ['-n', ns, 'wait', `--for=jsonpath={.data.key}=${json.data.key}`, 'secret/bin', '--timeout=20s']);
    expect(r.stderr).toMatch(/Content-Type: application\/cbor\n/);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('secret/bin condition met');
  });

  test('kubectl delete waits for the deletion through CBOR reads, the last a 404 Status in CBOR', async () => {
    k('create', 'configmap', 'gone', '--from-literal=a=b');
    const r = await kubectlCBOR(s.kubeconfig, ['-n', ns, 'delete', 'configmap', 'gone']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap "gone" deleted');
    expect(r.stderr).toMatch(/GET https:\/\/[^\n]*\/configmaps\/gone[^]*Accept: application\/json;q=0\.9,application\/cbor;q=1/);
    expect(r.stderr).toMatch(/Response Status: 404 Not Found[^]*Content-Type: application\/cbor/);
  });
});
