/**
 * Watch fan-out load generator (a child process, so watchers and writer share one clock and
 * not the server's process): opens N watches (`?watch=1&resourceVersion=<current>`, one
 * HTTPS connection each), then writes W PUTs round-robin over a few ConfigMaps at a steady
 * rate (open loop), each carrying a sequence number. Delivery latency = arrival at a watcher −
 * start of the PUT that caused it. Complete = a watcher got exactly the revisions the PUTs
 * returned, each once, in order, nothing else, stream still open.
 */
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { childMain } from './ipc.js';
import { agentFor, expectStatus, Recorder, send, sleep, type Latency, type Target } from './http.js';
import { fill } from './objects.js';

export interface FanoutSpec {
  target: Target;
  path: string;
  watchers: number;
  writes: number;
  rate: number;
  objects: string[];
  /** PUT body with __NAME__ and "seq":"000000". */
  template: string;
  drainTimeoutMs: number;
}

export interface FanoutResult {
  watchers: number;
  writes: number;
  openMs: number;
  achievedRate: number;
  write: Latency;
  delivery: Latency;
  deliveries: number;
  complete: number;
  lastDeliveredAfterLastAckMs: number;
  problems: string[];
}

const SEQ = '"seq":"';
const RV = '"resourceVersion":"';

class Watcher {
  seqs: number[] = [];
  rvs: number[] = [];
  times: number[] = [];
  other: string[] = [];
  ended = false;
  private partial = '';
  private req?: ReturnType<typeof https.get>;

  open(agent: https.Agent, target: Target, path: string, rv: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const headers = { accept: 'application/json', authorization: `Bearer ${target.token}` };
      const req = https.get({ agent, host: target.host, port: target.port, path: `${path}?watch=1&resourceVersion=${rv}`, headers }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`watch: HTTP ${res.statusCode}`));
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.onData(chunk, performance.now()));
        res.on('end', () => (this.ended = true));
        res.on('error', () => (this.ended = true));
        resolve();
      });
      req.on('error', (err) => (this.req ? (this.ended = true) : reject(err)));
      this.req = req;
    });
  }

  /** Finds seq and resourceVersion by position: a thousand watchers parse in this process. */
  private onData(chunk: string, now: number): void {
    const data = this.partial + chunk;
    let start = 0;
    for (let nl = data.indexOf('\n', start); nl >= 0; nl = data.indexOf('\n', start)) {
      const line = data.slice(start, nl);
      start = nl + 1;
      const s = line.indexOf(SEQ);
      const r = line.indexOf(RV);
      if (!line.startsWith('{"type":"MODIFIED"') || s < 0 || r < 0) {
        this.other.push(line.slice(0, 200));
        continue;
      }
      this.seqs.push(Number(line.slice(s + SEQ.length, line.indexOf('"', s + SEQ.length))));
      this.rvs.push(Number(line.slice(r + RV.length, line.indexOf('"', r + RV.length))));
      this.times.push(now);
    }
    this.partial = data.slice(start);
  }

  close(): void {
    this.req?.destroy();
  }
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) return false;
    await sleep(10);
  }
  return true;
}

const seqText = (i: number): string => String(i).padStart(6, '0');

childMain<FanoutSpec>(async (spec, window) => {
  const { target, path, writes: W } = spec;
  const writer = agentFor(target, 16);
  const watchAgent = new https.Agent({ keepAlive: true, maxSockets: Infinity, ca: target.ca });
  const watchers = Array.from({ length: spec.watchers }, () => new Watcher());
  const list = await send(writer, target, 'GET', path);
  expectStatus('LIST', list, 200);
  const rv = (JSON.parse(list.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const t0 = performance.now();
  for (let i = 0; i < watchers.length; i += 100) await Promise.all(watchers.slice(i, i + 100).map((w) => w.open(watchAgent, target, path, rv)));
  const openMs = performance.now() - t0;
  // The server registers a watch before its 200; give the last ones a moment anyway.
  await sleep(200);

  await window(`fanout-${spec.watchers}`, async (): Promise<FanoutResult> => {
    const starts = new Float64Array(W), acks = new Float64Array(W), ackRvs = new Array<number>(W);
    const writeErrors: string[] = [];
    const wall0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < W; i++) {
      const wait = wall0 + (i * 1000) / spec.rate - performance.now();
      if (wait > 1) await sleep(wait);
      starts[i] = performance.now();
      const name = spec.objects[i % spec.objects.length];
      const body = fill(spec.template, name).replace(`${SEQ}000000"`, `${SEQ}${seqText(i)}"`);
      pending.push(
        send(writer, target, 'PUT', `${path}/${name}`, body).then(
          (r) => {
            acks[i] = performance.now();
            if (r.status !== 200) writeErrors.push(`PUT ${name}: HTTP ${r.status}`);
            else ackRvs[i] = Number((JSON.parse(r.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
          },
          (err: Error) => void writeErrors.push(err.message),
        ),
      );
    }
    await Promise.all(pending);
    if (writeErrors.length) throw new Error(`writes failed: ${writeErrors.slice(0, 3).join('; ')}`);
    const lastAck = Math.max(...acks);
    const writeSeconds = (starts[W - 1] - starts[0]) / 1000;
    await waitFor(() => watchers.every((w) => w.seqs.length >= W || w.ended), spec.drainTimeoutMs);
    await sleep(200); // duplicates or stray events would show
    const history = [...ackRvs].sort((a, b) => a - b);
    const problems: string[] = [];
    const delivery = new Recorder();
    let complete = 0;
    let last = 0;
    for (const [wi, w] of watchers.entries()) {
      let ok = w.other.length === 0 && w.rvs.length === history.length && !w.ended;
      for (let k = 0; ok && k < history.length; k++) if (w.rvs[k] !== history[k] || ackRvs[w.seqs[k]] !== w.rvs[k]) ok = false;
      if (ok) complete++;
      else if (problems.length < 5) problems.push(`watcher ${wi}: ${w.rvs.length}/${history.length} events, ${w.other.length} other lines${w.ended ? ', ended' : ''}${w.other[0] ? `: ${w.other[0].slice(0, 120)}` : ''}`);
      for (let k = 0; k < w.seqs.length; k++) {
        delivery.add(w.times[k] - starts[w.seqs[k]]);
        last = Math.max(last, w.times[k]);
      }
    }
    const write = new Recorder();
    for (let i = 0; i < W; i++) write.add(acks[i] - starts[i]);
    return {
      watchers: spec.watchers, writes: W, openMs, achievedRate: (W - 1) / writeSeconds, write: write.summary(), delivery: delivery.summary(),
      deliveries: delivery.count, complete, lastDeliveredAfterLastAckMs: last - lastAck, problems,
    };
  });
  for (const w of watchers) w.close();
  watchAgent.destroy();
  writer.destroy();
});
