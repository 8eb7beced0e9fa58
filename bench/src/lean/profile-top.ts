/**
 * Top self-time entries of V8 CPU profiles (`node --cpu-prof`). Usage:
 *   node bench/dist/lean/profile-top.js <file.cpuprofile | dir> [N]
 * A directory merges every .cpuprofile in it (a server and its workers). Self time per
 * function (name, file, line), as ms and as a share of the non-idle samples.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface TopEntry {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

function files(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(path, f));
}

/** Self time by function over the profiles at `path`; total is the non-idle time. */
export function topEntries(path: string, n = 25): { entries: TopEntry[]; totalMs: number; idleMs: number; profiles: number } {
  const self = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  let idle = 0;
  const list = files(path);
  for (const file of list) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(p.nodes.map((node) => [node.id, node]));
    for (let i = 0; i < p.samples.length; i++) {
      const node = byId.get(p.samples[i]);
      const dt = p.timeDeltas[i] ?? 0;
      if (!node || dt <= 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)') {
        idle += dt;
        continue;
      }
      total += dt;
      const short = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*\/(packages|apps)\//, '$1/');
      const where = url ? `${short}:${lineNumber + 1}` : '';
      const key = `${functionName}@${where}`;
      const e = self.get(key) ?? { name: functionName || '(anonymous)', where, us: 0 };
      e.us += dt;
      self.set(key, e);
    }
  }
  const entries = [...self.values()].sort((a, b) => b.us - a.us).slice(0, n).map((e) => ({ name: e.name, where: e.where, selfMs: e.us / 1000, share: e.us / Math.max(1, total) }));
  return { entries, totalMs: total / 1000, idleMs: idle / 1000, profiles: list.length };
}

export function topTable(path: string, n = 25): string {
  const t = topEntries(path, n);
  return [
    `${t.profiles} profile(s), ${(t.totalMs / 1000).toFixed(2)} s non-idle (+ ${(t.idleMs / 1000).toFixed(2)} s idle):`,
    '',
    '| self ms | share | function | where |',
    '|---:|---:|---|---|',
    ...t.entries.map((e) => `| ${e.selfMs.toFixed(1)} | ${(e.share * 100).toFixed(1)} % | \`${e.name}\` | ${e.where} |`),
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [path, n] = process.argv.slice(2);
  if (!path) {
    console.error(`usage: node ${basename(process.argv[1])} <file.cpuprofile | dir> [N]`);
    process.exit(2);
  }
  console.log(topTable(path, Number(n ?? 25)));
}
