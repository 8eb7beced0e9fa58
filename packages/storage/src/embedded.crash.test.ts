import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedStorage } from './embedded.js';

/**
 * An acknowledged write survives kill -9: a child process creates keys and prints each
 * after create() resolved; we SIGKILL it mid-stream and look for every printed key.
 */

const WRITER = fileURLToPath(new URL('./testing/crash-writer.js', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'windlass-crash-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run the writer with `writers` concurrent loops, SIGKILL it after `acksBeforeKill` acknowledgements, return every acknowledged key. */
async function ackedBeforeKill(path: string, writers: number, acksBeforeKill: number): Promise<string[]> {
  const child = spawn(process.execPath, [WRITER, path, String(writers)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: string[] = [];
  let partial = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    // Only newline-terminated lines are acknowledgements; a torn last line is not.
    partial = lines.pop() ?? '';
    acked.push(...lines);
    if (acked.length >= acksBeforeKill && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // 'close' waits for stdout to drain, so lines written just before the kill count too.
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  if (signal !== 'SIGKILL') throw new Error(`writer ended by itself (code ${code}): ${stderr}`);
  expect(acked.length).toBeGreaterThanOrEqual(acksBeforeKill);
  return acked;
}

async function expectAllDurable(path: string, acked: string[]): Promise<void> {
  const s = new EmbeddedStorage({ path });
  const missing: string[] = [];
  for (const key of acked) {
    const kv = await s.get(key);
    if (kv?.value.toString() !== key) missing.push(key);
  }
  expect(missing).toEqual([]);
  // Revisions were not reused or lost either: one revision per create, after the initial 1.
  expect(await s.currentRevision()).toBeGreaterThanOrEqual(acked.length + 1);
  const res = await s.range('/registry/crash/', { prefix: true, countOnly: true });
  expect(res.count).toBe((await s.currentRevision()) - 1);
  await s.close();
}

// Primes: a writer that acknowledged writes before committing them is then rarely
// killed just after a commit, whatever its batch sizes.
test('every key acknowledged before SIGKILL is in the reopened file', async () => {
  const path = join(dir, 'db', 'state.db');
  await expectAllDurable(path, await ackedBeforeKill(path, 1, 211));
});

test('with concurrent writers sharing group commits, every acknowledged key survives SIGKILL', async () => {
  const path = join(dir, 'db', 'state.db');
  const acked = await ackedBeforeKill(path, 32, 1009);
  // Acknowledgements came from many writers, not one after another.
  expect(new Set(acked.map((k) => k.split('-')[0])).size).toBe(32);
  await expectAllDurable(path, acked);
});
