#!/usr/bin/env node
/** The `windlass` binary: `windlass start [flags]` serves the Kubernetes API; `windlass compact` asks a running one to compact its store. */
import cluster from 'node:cluster';
import { startMemoryRelease } from '@windlass/memory';
import { serverVersion } from '@windlass/server';
import { FlagError, parseFlags, usage, type ServerOptions } from './flags.js';
import { runCompact } from './compact.js';
import { announce, credentials, ensureDataDir, exitOnSignals, newAPIServer, openStorageOrExit } from './replica.js';
import { runPrimary } from './primary.js';
import { runWorker } from './worker.js';

async function start(o: ServerOptions): Promise<void> {
  // A worker runs this program again with the primary's argv; the primary did the setup.
  if (cluster.isWorker) return runWorker(o);
  await ensureDataDir(o);
  if (o.workers > 1) return runPrimary(o, await credentials(o));
  // One process, no cluster: the fastest start, which controllers' test suites rely on.
  const storage = await openStorageOrExit(o);
  const creds = await credentials(o);
  const server = newAPIServer(o, storage, creds);
  const port = await server.listen(o.securePort, o.bindAddress);
  await announce(o, port, creds);
  startMemoryRelease();
  exitOnSignals(() => ({ server, storage }), o.shutdownDelayDurationMs);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (err instanceof FlagError) {
      console.error(`Error: ${err.message}\n\n${usage()}`);
      process.exit(2);
    }
    throw err;
  }
  switch (parsed.command) {
    case 'help':
      console.log(usage());
      return;
    case 'version':
      console.log(`windlass ${serverVersion.gitVersion}`);
      return;
    case 'start':
      return start(parsed.options);
    case 'compact':
      process.exitCode = await runCompact(parsed.compact!);
      return;
  }
}

process.on('unhandledRejection', (err) => console.error('unhandled rejection:', err));
main().catch((err) => {
  console.error(`windlass: ${(err as Error).message}`);
  process.exit(1);
});
