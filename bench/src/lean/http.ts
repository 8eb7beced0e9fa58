/** The HTTPS client the load generators share: keep-alive agent, bearer token, whole body as bytes; latency summaries. */
import https from 'node:https';

export interface Target {
  host: string;
  port: number;
  /** Admin bearer token (the bare server ignores it). */
  token: string;
  /** PEM of the CA that signed the serving certificate. */
  ca: string;
}

export interface Reply {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export function agentFor(target: Target, maxSockets: number): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets, ca: target.ca });
}

/** One request; `body` is sent as is (JSON text). */
export function send(agent: https.Agent, target: Target, method: string, path: string, body?: string | Buffer, contentType = 'application/json', accept = 'application/json'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { accept, authorization: `Bearer ${target.token}` };
    if (body !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = https.request({ agent, host: target.host, port: target.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function expectStatus(what: string, r: Reply, ...status: number[]): void {
  if (!status.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
}

export interface Latency {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Latencies in ms; summary by sorting. */
export class Recorder {
  private xs: number[] = [];
  add(ms: number): void {
    this.xs.push(ms);
  }
  get count(): number {
    return this.xs.length;
  }
  summary(): Latency {
    const s = Float64Array.from(this.xs).sort();
    const q = (p: number): number => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN);
    const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN;
    return { count: s.length, mean, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s.length ? s[s.length - 1] : NaN };
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
