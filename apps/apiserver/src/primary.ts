/**
 * The primary of `windlass start --workers N` (N > 1): it serves nothing itself. It makes
 * the credentials once, forks N workers that share the listening socket through
 * node:cluster (round-robin on Linux: the primary accepts, each connection then belongs
 * to one worker), prints the address once every worker listens, and supervises them:
 * - a worker that fails before the first N all listen stops the server with its exit
 *   code (etcd unreachable is exit 1, as without workers), rather than a restart loop;
 * - later, a worker that dies is logged and replaced, after a growing delay if its
 *   replacements keep dying young (a crash loop must not spin the CPU);
 * - SIGTERM or SIGINT is forwarded to every worker, and the primary exits once all have.
 */
import cluster, { type Worker } from 'node:cluster';
import type { ServerOptions } from './flags.js';
import { announce, type Credentials } from './replica.js';
import { aggregateMetrics, type MetricsJSON } from '@windlass/server';
import { isConfigRequest, isListeningMessage, isMetricsMessage, type ConfigMessage, type MetricsMessage } from './worker.js';

/** A worker that lived this long counts as healthy: the restart delay starts over. */
const healthyAfterMs = 30_000;
const maxRestartDelayMs = 30_000;
/** Workers still running this long after SIGTERM (beyond their shutdown delay and request timeout) are killed. */
const stopGraceMs = 30_000;
/** How long a scrape waits for the workers' metrics. */
const metricsCollectTimeoutMs = 3_000;

interface WorkerState {
  startedAt: number;
  listening: boolean;
  /**
   * The port the worker passes to listen(). The primary keeps one listening socket per
   * (address, port argument): workers that pass 0 share the socket the first of them got,
   * while a worker passing that socket's actual port would ask for a second bind and get
   * EADDRINUSE. So a replacement passes what the listening workers passed.
   */
  listenArg: number;
}

export async function runPrimary(o: ServerOptions, creds: Credentials): Promise<void> {
  // Workers run this same program with the same argv; they get the rest over IPC.
  const workers = new Map<Worker, WorkerState>();
  /** The port every worker serves on; 0 until the first one listens with --secure-port 0. */
  let port = o.securePort;
  let announced = false;
  let stopping = false;
  let exitCode = 0;
  let youngDeaths = 0;

  const fork = (listenArg: number) => {
    const w = cluster.fork();
    workers.set(w, { startedAt: Date.now(), listening: false, listenArg });
    const config: ConfigMessage = { windlass: 'config', config: { tls: { cert: creds.tls.cert, key: creds.tls.key }, tokens: creds.tokens, authentication: creds.authentication, frontProxy: creds.frontProxy, port: listenArg } };
    // A send to a worker that just died fails; its exit event tells the story.
    w.on('error', () => undefined);
    w.on('message', (m: unknown) => {
      if (isConfigRequest(m)) w.send(config);
      else if (isListeningMessage(m)) onListening(w, m.port);
      else if (isMetricsMessage(m, 'metrics?')) void answerMetrics(w, m.id);
      else if (isMetricsMessage(m, 'collected')) collecting.get(m.id)?.(w, m.metrics);
    });
  };

  // A scrape's collection: every listening worker's families, summed. A worker that does not
  // answer in time (busy, or dying) is left out rather than failing the scrape.
  let nextCollection = 0;
  const collecting = new Map<number, (w: Worker, metrics: MetricsJSON) => void>();
  const answerMetrics = async (asker: Worker, id: number) => {
    const targets = [...workers].filter(([, s]) => s.listening).map(([w]) => w);
    const got = new Map<Worker, MetricsJSON>();
    const collection = nextCollection++;
    let reply: MetricsMessage;
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, metricsCollectTimeoutMs);
        collecting.set(collection, (w, metrics) => {
          got.set(w, metrics);
          if (targets.every((t) => got.has(t))) {
            clearTimeout(timer);
            resolve();
          }
        });
        const ask: MetricsMessage = { windlass: 'collect', id: collection };
        for (const w of targets) w.send(ask);
      });
      reply = { windlass: 'metrics', id, text: await aggregateMetrics([...got.values()]) };
    } catch (err) {
      reply = { windlass: 'metrics', id, error: (err as Error).message };
    } finally {
      collecting.delete(collection);
    }
    if (asker.isConnected()) asker.send(reply);
  };

  const onListening = (w: Worker, workerPort: number) => {
    const state = workers.get(w);
    if (!state || stopping) return;
    if (port === 0) port = workerPort;
    if (workerPort !== port) {
      // Only if every other worker's socket closed while this one started: it got a fresh
      // port. Its replacement binds the right one, since no worker holds it now.
      console.error(`windlass: worker ${w.id} (pid ${w.process.pid}) listens on port ${workerPort}, not ${port}`);
      if (!announced) return stop(1);
      w.process.kill('SIGTERM');
      return;
    }
    state.listening = true;
    if (announced || [...workers.values()].some((s) => !s.listening)) return;
    announced = true;
    announce(o, port, creds).catch((err) => {
      console.error(`windlass: ${(err as Error).message}`);
      stop(1);
    });
  };

  const replace = () => {
    if (stopping) return;
    const holder = [...workers.values()].find((s) => s.listening);
    fork(holder ? holder.listenArg : port);
  };

  const stop = (code: number) => {
    if (!stopping) exitCode = code;
    stopping = true;
    if (workers.size === 0) process.exit(exitCode);
    for (const w of workers.keys()) w.process.kill('SIGTERM');
    setTimeout(() => {
      for (const w of workers.keys()) w.process.kill('SIGKILL');
    }, stopGraceMs + o.shutdownDelayDurationMs + o.requestTimeoutMs).unref();
  };

  cluster.on('exit', (w, code, signal) => {
    const state = workers.get(w);
    workers.delete(w);
    if (stopping) {
      if (workers.size === 0) process.exit(exitCode);
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!announced) {
      // Failing at start is the server failing at start: a restart would fail the same way.
      console.error(`windlass: worker ${w.id} (pid ${w.process.pid}) exited with ${how} before the server was up`);
      return stop(code || 1);
    }
    const lived = Date.now() - (state?.startedAt ?? 0);
    youngDeaths = state?.listening && lived >= healthyAfterMs ? 0 : youngDeaths + 1;
    const delay = youngDeaths <= 1 ? 0 : Math.min(maxRestartDelayMs, 500 * 2 ** (youngDeaths - 2));
    console.error(`windlass: worker ${w.id} (pid ${w.process.pid}) exited with ${how}; starting another${delay ? ` in ${delay} ms` : ''}`);
    setTimeout(replace, delay);
  });

  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  for (let i = 0; i < o.workers; i++) fork(o.securePort);
}
