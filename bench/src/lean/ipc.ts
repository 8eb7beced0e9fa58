/**
 * Load generators run as child processes of the bench (never in the server's process). The
 * protocol lets the parent read /proc CPU right before and after each timed window:
 *
 *   parent → child  {t:'spec', spec}
 *   child  → parent {t:'ready', name}           (warm-up done, window `name` about to start)
 *   parent → child  {t:'go'}                    (after sampling CPU)
 *   child  → parent {t:'result', name, result}  (window over, nothing in flight; parent samples again)
 *   … more windows …
 *   child  → parent {t:'done'}
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { delta, resolveMeters, sample, type Meters, type Sample } from './proc.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface WindowOutcome<R> {
  name: string;
  result: R;
  wallMs: number;
  /** CPU ms per meter over the window ('client' is the load generator itself). */
  cpuMs: Record<string, number>;
}

type ChildMsg = { t: 'ready'; name: string } | { t: 'result'; name: string; result: unknown } | { t: 'done' } | { t: 'error'; message: string };

const CHILD_TIMEOUT_MS = Number(process.env.BENCH_CHILD_TIMEOUT ?? 15 * 60) * 1000;

/** Forks `script` (a file next to this one in dist/lean), gives it `spec` and measures each window it announces. */
export function runChild<R>(script: string, spec: unknown, meters: Meters): Promise<WindowOutcome<R>[]> {
  const child = fork(join(here, script), [], { stdio: ['ignore', 2, 2, 'ipc'], execArgv: [] });
  const all: Meters = { ...meters, client: () => [child.pid!] };
  const out: WindowOutcome<R>[] = [];
  return new Promise((resolve, reject) => {
    let before: { groups: Record<string, number[]>; s: Sample } | undefined;
    let settled = false;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        child.kill('SIGKILL');
        reject(err);
      } else resolve(out);
    };
    const timer = setTimeout(() => finish(new Error(`${script}: no result within ${CHILD_TIMEOUT_MS / 1000} s`)), CHILD_TIMEOUT_MS);
    child.on('message', (m: ChildMsg) => {
      if (m.t === 'ready') {
        const groups = resolveMeters(all);
        before = { groups, s: sample(groups) };
        child.send({ t: 'go' });
      } else if (m.t === 'result') {
        if (!before) return finish(new Error(`${script}: result without ready`));
        const d = delta(before.s, sample(before.groups));
        out.push({ name: m.name, result: m.result as R, ...d });
        before = undefined;
      } else if (m.t === 'done') {
        child.disconnect();
        finish();
      } else if (m.t === 'error') {
        finish(new Error(`${script}: ${m.message}`));
      }
    });
    child.on('exit', (code, sig) => finish(settled ? undefined : new Error(`${script} exited (${code ?? sig}) before it was done`)));
    child.on('error', (err) => finish(err));
    child.send({ t: 'spec', spec });
  });
}

/** The window function a child's main receives: announce, wait for the parent's go, run, report. */
export type WindowFn = <R>(name: string, run: () => Promise<R>) => Promise<R>;

/** Entry point of a child script. */
export function childMain<S>(main: (spec: S, window: WindowFn) => Promise<void>): void {
  let go: (() => void) | undefined;
  process.on('message', (m: { t: string; spec?: unknown }) => {
    if (m.t === 'go') go?.();
    else if (m.t === 'spec') {
      const window: WindowFn = async (name, run) => {
        await new Promise<void>((r) => {
          go = r;
          process.send!({ t: 'ready', name });
        });
        const result = await run();
        process.send!({ t: 'result', name, result });
        return result;
      };
      main(m.spec as S, window).then(
        () => process.send!({ t: 'done' }, () => process.exit(0)),
        (err: Error) => process.send!({ t: 'error', message: err.stack ?? String(err) }, () => process.exit(1)),
      );
    }
  });
}
