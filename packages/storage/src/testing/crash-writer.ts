/**
 * Child process for the embedded crash test: create keys in a loop and print each one
 * only after create() resolved. The test SIGKILLs us and checks every printed key.
 * With several writers their creates arrive together and share group commits.
 * Usage: node crash-writer.js <db-path> [writers=1]
 */
import { EmbeddedStorage } from '../embedded.js';

const path = process.argv[2];
const writers = Number(process.argv[3] ?? 1);
if (!path || !(writers >= 1)) throw new Error('usage: crash-writer.js <db-path> [writers]');
const storage = new EmbeddedStorage({ path, progressIntervalMs: 0 });
// Bounded, so an orphan (parent died before killing us) ends by itself.
const perWriter = Math.ceil(100_000 / writers);

async function write(w: number): Promise<void> {
  for (let i = 0; i < perWriter; i++) {
    const key = `/registry/crash/w${String(w).padStart(3, '0')}-k${String(i).padStart(6, '0')}`;
    // The value is the key, so the test can check it without being told.
    await storage.create(key, Buffer.from(key));
    // Pipes are synchronous on Linux: the line is in the pipe before the next write starts.
    process.stdout.write(`${key}\n`);
    // Let I/O run, so a closed pipe (parent gone) is noticed.
    await new Promise((r) => setImmediate(r));
  }
}

await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
await storage.close();
