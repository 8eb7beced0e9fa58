/**
 * The Node load generator (a child process): N clients, each a loop over one keep-alive HTTPS
 * connection, for a warm-up and then one timed window (by duration, or a fixed count of
 * operations for seeding). Modes:
 *   get      GET `path`, expects `expect` (200)
 *   create   POST `path` with `template`, a fresh name each time, expects `expect` (201)
 *   contend  GET `path`, change its data, PUT it with the resourceVersion it read; on 409 read
 *            and try again. One operation = one successful update (latency includes its retries).
 */
import type https from 'node:https';
import { performance } from 'node:perf_hooks';
import { childMain } from './ipc.js';
import { agentFor, Recorder, send, sleep, type Latency, type Target } from './http.js';
import { fill, objectName } from './objects.js';

export type LoadMode = 'get' | 'create' | 'contend';

export interface LoadSpec {
  target: Target;
  mode: LoadMode;
  clients: number;
  /** Timed window length; 0 with `count` for a fixed number of operations. */
  durationMs: number;
  warmupMs: number;
  count?: number;
  path: string;
  template?: string;
  /** create: names are objectName(namePrefix, i); warm-up uses namePrefix + 'w'. */
  namePrefix?: string;
  expect?: number;
  windowName: string;
}

export interface LoadResult {
  /** Successful operations in the window. */
  ops: number;
  /** Requests sent in the window (contend: GETs and PUTs). */
  requests: number;
  seconds: number;
  latency: Latency;
  statuses: Record<string, number>;
  errors: number;
  firstError?: string;
  /** contend: PUTs answered 409. */
  conflicts: number;
}

class Run {
  readonly rec = new Recorder();
  readonly statuses: Record<string, number> = {};
  requests = 0;
  errors = 0;
  conflicts = 0;
  firstError?: string;
  private next = 0;

  constructor(private spec: LoadSpec, private agent: https.Agent, private names: string, private until: number, private count?: number) {}

  /** The index of the next operation, or -1 when the window is over. */
  take(): number {
    if (this.count !== undefined) return this.next < this.count ? this.next++ : -1;
    return performance.now() < this.until ? this.next++ : -1;
  }

  private status(s: number): void {
    this.statuses[s] = (this.statuses[s] ?? 0) + 1;
  }

  private fail(msg: string): void {
    this.errors++;
    this.firstError ??= msg;
  }

  private async req(method: string, path: string, body?: string): Promise<{ status: number; body: Buffer } | undefined> {
    this.requests++;
    try {
      const r = await send(this.agent, this.spec.target, method, path, body);
      this.status(r.status);
      return r;
    } catch (err) {
      this.fail(`${method} ${path}: ${(err as Error).message}`);
      await sleep(5);
      return undefined;
    }
  }

  async client(id: number): Promise<void> {
    const { mode, path, expect } = this.spec;
    for (let i = this.take(); i >= 0; i = this.take()) {
      const t = performance.now();
      if (mode === 'contend') {
        if (await this.update(id, i)) this.rec.add(performance.now() - t);
        continue;
      }
      const r = mode === 'get' ? await this.req('GET', path) : await this.req('POST', path, fill(this.spec.template!, objectName(this.names, i)));
      if (!r) continue;
      if (r.status === (expect ?? (mode === 'get' ? 200 : 201))) this.rec.add(performance.now() - t);
      else this.fail(`${mode} → HTTP ${r.status} ${r.body.toString('utf8', 0, 200)}`);
    }
  }

  /** Read, modify, write until the write wins (or the window ends). */
  private async update(id: number, i: number): Promise<boolean> {
    for (;;) {
      const got = await this.req('GET', this.spec.path);
      if (!got) return false;
      if (got.status !== 200) {
        this.fail(`contend GET → HTTP ${got.status}`);
        return false;
      }
      const obj = JSON.parse(got.body.toString('utf8')) as { data?: Record<string, string> };
      obj.data = { ...obj.data, writer: String(id), seq: String(i) };
      const put = await this.req('PUT', this.spec.path, JSON.stringify(obj));
      if (!put) return false;
      if (put.status === 200) return true;
      if (put.status === 409) {
        this.conflicts++;
        if (this.count === undefined && performance.now() >= this.until + 5000) return false;
        continue;
      }
      this.fail(`contend PUT → HTTP ${put.status} ${put.body.toString('utf8', 0, 200)}`);
      return false;
    }
  }

  result(seconds: number): LoadResult {
    return {
      ops: this.rec.count, requests: this.requests, seconds, latency: this.rec.summary(), statuses: this.statuses,
      errors: this.errors, firstError: this.firstError, conflicts: this.conflicts,
    };
  }
}

async function phase(spec: LoadSpec, agent: https.Agent, names: string, ms: number, count?: number): Promise<LoadResult> {
  const t0 = performance.now();
  const run = new Run(spec, agent, names, t0 + ms, count);
  await Promise.all(Array.from({ length: spec.clients }, (_, id) => run.client(id)));
  return run.result((performance.now() - t0) / 1000);
}

childMain<LoadSpec>(async (spec, window) => {
  const agent = agentFor(spec.target, spec.clients);
  const prefix = spec.namePrefix ?? 'o-';
  if (spec.warmupMs > 0) {
    const w = await phase(spec, agent, `${prefix}w`, spec.warmupMs);
    if (w.ops === 0) throw new Error(`warm-up: no successful operation (${w.firstError ?? JSON.stringify(w.statuses)})`);
  }
  await window(spec.windowName, () => phase(spec, agent, prefix, spec.durationMs, spec.count));
  agent.destroy();
});
