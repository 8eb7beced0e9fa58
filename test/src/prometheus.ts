/**
 * A real Prometheus (Debian's `prometheus` package, or $PROMETHEUS_BIN) for tests: started
 * on a free loopback port with a scrape job and rule files, queried through its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@windlass/storage/testing';

export interface ScrapeJob {
  job: string;
  /** host:port */
  target: string;
  caFile: string;
  serverName: string;
  tokenFile: string;
  intervalSeconds: number;
  /** Paths scraped on the target, all labelled job=`job` (kube-prometheus scrapes /metrics and /metrics/slis). */
  paths: string[];
}

export interface PromSample {
  metric: Record<string, string>;
  value?: [number, string];
  values?: [number, string][];
}

export interface PromRule {
  type: 'recording' | 'alerting';
  name: string;
  query: string;
  labels?: Record<string, string>;
  health: string;
  lastError?: string;
  lastEvaluation: string;
  state?: string;
  alerts?: unknown[];
}

export interface PromRuleGroup {
  name: string;
  file: string;
  interval: number;
  rules: PromRule[];
}

export class Prometheus {
  private constructor(readonly url: string, private readonly proc: ChildProcess, readonly output: () => string) {}

  /** Starts Prometheus in `dir` (config and TSDB there) and waits until it is ready. */
  static async start(dir: string, scrape: ScrapeJob, ruleFiles: string[], evaluationSeconds: number): Promise<Prometheus> {
    const config = {
      global: { scrape_interval: `${scrape.intervalSeconds}s`, scrape_timeout: `${scrape.intervalSeconds}s`, evaluation_interval: `${evaluationSeconds}s` },
      rule_files: ruleFiles,
      scrape_configs: scrape.paths.map((path, i) => ({
        // Job names must differ; every path's series carry the one job label, as a ServiceMonitor's
        // endpoints do, and the path as `metrics_path`, as kube-prometheus labels kubelet's paths.
        job_name: i === 0 ? scrape.job : `${scrape.job}${path.replaceAll('/', '-')}`,
        metrics_path: path,
        scheme: 'https',
        authorization: { credentials_file: scrape.tokenFile },
        tls_config: { ca_file: scrape.caFile, server_name: scrape.serverName },
        static_configs: [{ targets: [scrape.target] }],
        relabel_configs: [{ target_label: 'job', replacement: scrape.job }, { source_labels: ['__metrics_path__'], target_label: 'metrics_path' }],
      })),
    };
    const configFile = join(dir, 'prometheus.yml');
    // JSON is YAML: Prometheus reads it as its config.
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    let lastError: unknown;
    // The free port can be taken before Prometheus binds it: then try another.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await Prometheus.startOnce(dir, configFile, await freePort());
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  }

  private static async startOnce(dir: string, configFile: string, port: number): Promise<Prometheus> {
    const bin = process.env.PROMETHEUS_BIN ?? 'prometheus';
    const proc = spawn(bin, [
      `--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, `data-${port}`)}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<Error>((resolve) => {
      proc.once('error', (err) => resolve(new Error(`${bin} could not run (apt-get install prometheus): ${err.message}`)));
      proc.once('exit', (code) => resolve(new Error(`prometheus exited with ${code}:\n${out}`)));
    });
    const p = new Prometheus(`http://127.0.0.1:${port}`, proc, () => out);
    const ready = (async () => {
      const deadline = Date.now() + 20000;
      while (Date.now() < deadline) {
        try {
          if ((await fetch(`${p.url}/-/ready`)).status === 200) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`prometheus not ready after 20 s:\n${out}`);
    })();
    const first = await Promise.race([ready.then(() => undefined), exited]);
    if (first instanceof Error) throw first;
    return p;
  }

  private async api<T>(path: string, params: Record<string, string | string[]> = {}): Promise<T> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
    const res = await fetch(`${this.url}/api/v1/${path}?${q}`);
    const body = (await res.json()) as { status: string; data: T; error?: string; errorType?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path} ${JSON.stringify(params)}: ${body.errorType}: ${body.error}`);
    return body.data;
  }

  /** An instant query; throws when Prometheus reports an error. */
  async query(expr: string): Promise<PromSample[]> {
    const data = await this.api<{ resultType: string; result: PromSample[] | [number, string] }>('query', { query: expr });
    if (data.resultType === 'scalar') return [{ metric: {}, value: data.result as [number, string] }];
    return data.result as PromSample[];
  }

  async queryRange(expr: string, startSeconds: number, endSeconds: number, stepSeconds: number): Promise<PromSample[]> {
    const data = await this.api<{ result: PromSample[] }>('query_range', { query: expr, start: String(startSeconds), end: String(endSeconds), step: String(stepSeconds) });
    return data.result;
  }

  async labelValues(label: string, match: string): Promise<string[]> {
    return this.api<string[]>(`label/${label}/values`, { 'match[]': match });
  }

  async ruleGroups(): Promise<PromRuleGroup[]> {
    return (await this.api<{ groups: PromRuleGroup[] }>('rules')).groups;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
