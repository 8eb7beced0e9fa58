/**
 * A webhook server for tests, as envtest suites run one: HTTPS with a serving certificate from a
 * test CA made with openssl, for `localhost`, 127.0.0.1 and the service names asked for. Each path
 * answers with its handler; every request body is recorded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCA {
  /** PEM, base64-encoded as a caBundle field holds it. */
  caBundle: string;
  cert: string;
  key: string;
}

/** A CA and a serving certificate for `names` (DNS names; 127.0.0.1 always). */
export function testCertificates(names: string[]): TestCA {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-ca-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=webhook-test-ca');
    run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=webhook');
    const san = ['localhost', ...names].map((n) => `DNS:${n}`).concat('IP:127.0.0.1').join(',');
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
    run('x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '2', '-extfile', 'ext.cnf');
    const ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
    return { caBundle: Buffer.from(ca).toString('base64'), cert: readFileSync(join(dir, 'tls.crt'), 'utf8'), key: readFileSync(join(dir, 'tls.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type Handler = (review: any) => unknown | Promise<unknown>;

export interface TestWebhookServer {
  port: number;
  url(path: string): string;
  /** Bodies received, per path, in order. */
  received: Map<string, any[]>;
  handle(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** `host`: where to listen (0.0.0.0 for tests reaching it at the machine's own address, as EndpointSlices may not name loopback ones). */
export async function startWebhookServer(tls: TestCA, host = '127.0.0.1'): Promise<TestWebhookServer> {
  const handlers = new Map<string, Handler>();
  const received = new Map<string, any[]>();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0];
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      if (!received.has(path)) received.set(path, []);
      received.get(path)!.push(body);
      const handler = handlers.get(path);
      if (!handler) {
        res.writeHead(404).end('no handler');
        return;
      }
      try {
        const answer = await handler(body);
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      } catch (err) {
        res.writeHead(500).end(String((err as Error).message));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    received,
    handle: (path, handler) => void handlers.set(path, handler),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An AdmissionReview answer for a request (v1 unless the request was v1beta1). */
export function reviewAnswer(review: any, response: Record<string, unknown>): unknown {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } };
}

/** A JSONPatch answer, base64 as AdmissionReview carries it. */
export function patchAnswer(review: any, ops: unknown[]): unknown {
  return reviewAnswer(review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
}
