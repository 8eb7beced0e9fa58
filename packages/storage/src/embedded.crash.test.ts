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
// Prime: a writer that acknowledged a batch before committing it is then rarely killed just after a commit.
const ACKS_BEFORE_KILL = 211;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'windlass-crash-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('every key acknowledged before SIGKILL is in the reopened file', async () => {
  const path = join(dir, 'db', 'state.db');
  const child = spawn(process.execPath, [WRITER, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: string[] = [];
  let partial = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    // Only newline-terminated lines are acknowledgements; a torn last line is not.
    partial = lines.pop() ?? '';
    acked.push(...lines);
    if (acked.length >= ACKS_BEFORE_KILL && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // 'close' waits for stdout to drain, so lines written just before the kill count too.
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  if (signal !== 'SIGKILL') throw new Error(`writer ended by itself (code ${code}): ${stderr}`);
  expect(acked.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);

  const s = new EmbeddedStorage({ path });
  const missing: string[] = [];
  for (const key of acked) if (!(await s.get(key))) missing.push(key);
  expect(missing).toEqual([]);
  // Revisions were not reused or lost either: one revision per create, after the initial 1.
  expect(await s.currentRevision()).toBeGreaterThanOrEqual(acked.length + 1);
  const res = await s.range('/registry/crash/', { prefix: true });
  expect(res.count).toBeGreaterThanOrEqual(acked.length);
  await s.close();
});
