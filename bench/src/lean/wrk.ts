/** GETs with wrk (Debian package `wrk`): a Lua `done` hook prints the summary as JSON. */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Latency, Target } from './http.js';
import type { LoadResult } from './loadgen.js';

let available: boolean | undefined;

export function hasWrk(): boolean {
  if (available === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      available = true;
    } catch (err) {
      // wrk --version exits 1 after printing its version.
      available = (err as { code?: string }).code !== 'ENOENT';
    }
  }
  return available;
}

const SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"mean_us":%f,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;

let scriptFile: string | undefined;

export interface WrkOptions {
  target: Target;
  path: string;
  clients: number;
  threads: number;
  durationMs: number;
}

/** One wrk run; `ops` counts 2xx/3xx answers only (wrk counts others as status errors). */
export function runWrk(o: WrkOptions): Promise<LoadResult> {
  if (!scriptFile) {
    const file = join(mkdtempSync(join(tmpdir(), 'windlass-wrk-')), 'summary.lua');
    writeFileSync(file, SCRIPT);
    process.once('exit', () => rmSync(dirname(file), { recursive: true, force: true }));
    scriptFile = file;
  }
  const url = `https://${o.target.host}:${o.target.port}${o.path}`;
  const args = [
    '-t', String(Math.min(o.threads, o.clients)), '-c', String(o.clients), '-d', `${Math.max(1, Math.round(o.durationMs / 1000))}s`, '--timeout', '10s',
    '-s', scriptFile, '-H', `Authorization: Bearer ${o.target.token}`, '-H', 'Accept: application/json', url,
  ];
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const m = /WRKJSON (\{.*\})/.exec(stdout);
      if (err || !m) return reject(new Error(`wrk failed: ${err?.message ?? 'no summary'}\n${stdout}\n${stderr}`));
      const j = JSON.parse(m[1]) as Record<string, number>;
      const ms = (us: number): number => us / 1000;
      const errors = j.connect + j.read + j.write + j.timeout;
      const ok = j.requests - j.status;
      const latency: Latency = { count: j.requests, mean: ms(j.mean_us), p50: ms(j.p50_us), p90: ms(j.p90_us), p99: ms(j.p99_us), max: ms(j.max_us) };
      resolve({
        ops: ok, requests: j.requests, seconds: j.duration_us / 1e6, latency, statuses: { '2xx/3xx': ok, other: j.status },
        errors: errors + j.status, firstError: errors + j.status ? `wrk: ${j.status} non-2xx, ${errors} socket errors` : undefined, conflicts: 0,
      });
    });
  });
}
