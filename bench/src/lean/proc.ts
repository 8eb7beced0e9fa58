/**
 * Process CPU and memory from /proc: utime+stime (clock ticks, `getconf CLK_TCK`) of a process
 * and all its descendants (cluster workers), RSS from /proc/<pid>/status. Linux only.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

let ticks: number | undefined;

/** Clock ticks per second (USER_HZ). */
export function clkTck(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

interface Stat {
  ppid: number;
  /** utime + stime, in ticks. */
  cpu: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]) };
}

/** The pid and every live descendant of it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = readStat(Number(d));
    if (!s) continue;
    const list = children.get(s.ppid);
    if (list) list.push(Number(d));
    else children.set(s.ppid, [Number(d)]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/** CPU time of the given processes, in ms. */
export function cpuMs(pids: number[]): number {
  let t = 0;
  for (const p of pids) t += readStat(p)?.cpu ?? 0;
  return (t * 1000) / clkTck();
}

/** Resident set size summed over the processes, in bytes. */
export function rssBytes(pids: number[]): number {
  let kb = 0;
  for (const p of pids) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      /* gone */
    }
  }
  return kb * 1024;
}

/** Pids whose command line contains `needle` (e.g. an etcd's data dir). */
export function pidsByCmdline(needle: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Named groups of processes whose CPU is read around a window; each resolves its pids once, before the window. */
export type Meters = Record<string, () => number[]>;

export interface Sample {
  wallMs: number;
  cpu: Record<string, number>;
}

export function sample(groups: Record<string, number[]>): Sample {
  const cpu: Record<string, number> = {};
  for (const [k, pids] of Object.entries(groups)) cpu[k] = cpuMs(pids);
  return { wallMs: performance.now(), cpu };
}

export function resolveMeters(meters: Meters): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [k, f] of Object.entries(meters)) out[k] = f();
  return out;
}

/** CPU ms per group between two samples. */
export function delta(a: Sample, b: Sample): { wallMs: number; cpuMs: Record<string, number> } {
  const cpu: Record<string, number> = {};
  for (const k of Object.keys(a.cpu)) cpu[k] = (b.cpu[k] ?? 0) - a.cpu[k];
  return { wallMs: b.wallMs - a.wallMs, cpuMs: cpu };
}

/** Runs fn between two CPU samples of the meters' processes. */
export async function measured<T>(meters: Meters, fn: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: Record<string, number> }> {
  const groups = resolveMeters(meters);
  const a = sample(groups);
  const value = await fn();
  const b = sample(groups);
  return { value, ...delta(a, b) };
}
