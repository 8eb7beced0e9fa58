/**
 * Creates/s on a file-backed embedded store (WAL, synchronous=FULL): C concurrent writers
 * share N creates of 1.5 KB values. Run after `pnpm --filter @windlass/storage build`:
 *   node packages/storage/scripts/bench-creates.mjs [N=20000] [C=1,16,64,256]
 * Each concurrency level gets a fresh file in a fresh temp directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage } from '../dist/index.js';

const total = Number(process.argv[2] ?? 20000);
const levels = (process.argv[3] ?? '1,16,64,256').split(',').map(Number);
const value = Buffer.alloc(1536, 'x');

for (const c of levels) {
  const dir = mkdtempSync(join(tmpdir(), 'windlass-bench-'));
  const s = new EmbeddedStorage({ path: join(dir, 'state.db'), progressIntervalMs: 0 });
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      for (let i = next++; i < total; i = next++) await s.create(`/registry/configmaps/default/cm-${i}`, value);
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const rev = await s.currentRevision();
  await s.close();
  rmSync(dir, { recursive: true, force: true });
  if (rev !== total + 1) throw new Error(`expected revision ${total + 1}, got ${rev}`);
  console.log(
    `clients=${String(c).padStart(3)}  ${String(Math.round((total / ms) * 1000)).padStart(6)} creates/s` +
      `  cpu ${(((cpu.user + cpu.system) / 1000) / total * 1000).toFixed(1)} µs/create  (${total} in ${Math.round(ms)} ms)`,
  );
}
