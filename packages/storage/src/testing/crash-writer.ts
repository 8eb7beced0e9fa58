/**
 * Child process for the embedded crash test: create keys in a loop and print each one
 * only after create() resolved. The test SIGKILLs us and checks every printed key.
 * Usage: node crash-writer.js <db-path>
 */
import { EmbeddedStorage } from '../embedded.js';

const path = process.argv[2];
if (!path) throw new Error('usage: crash-writer.js <db-path>');
const storage = new EmbeddedStorage({ path, progressIntervalMs: 0 });
// Bounded, so an orphan (parent died before killing us) ends by itself.
for (let i = 0; i < 100_000; i++) {
  const key = `/registry/crash/k${String(i).padStart(6, '0')}`;
  await storage.create(key, Buffer.from(`value-${i}`));
  // Pipes are synchronous on Linux: the line is in the pipe before the next write starts.
  process.stdout.write(`${key}\n`);
  // Let I/O run, so a closed pipe (parent gone) is noticed.
  await new Promise((r) => setImmediate(r));
}
await storage.close();
