#!/usr/bin/env node
/** The `windlass` binary: `windlass start [flags]` serves the Kubernetes API; `windlass compact` asks a running one to compact its store. */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  TokenAuthenticator, adminTokenEntry, ensureAdminToken, ensureServingCredentials, loadServingCredentialsFromFiles,
  loadTokenAuthFile, writeKubeconfig, type TokenEntry,
} from '@windlass/auth';
import { APIServer, serverVersion } from '@windlass/server';
import { createStorage, type Storage } from '@windlass/storage';
import { FlagError, parseFlags, usage, type ServerOptions } from './flags.js';
import { runCompact } from './compact.js';

const unspecified = new Set(['0.0.0.0', '::', '']);

async function openStorage(o: ServerOptions): Promise<Storage> {
  if (o.storage === 'etcd') return createStorage({ backend: 'etcd', endpoints: o.etcdServers });
  const path = o.embeddedPath ?? join(o.dataDir, 'windlass.db');
  return createStorage({ backend: 'embedded', path });
}

async function servingCredentials(o: ServerOptions) {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    const c = await loadServingCredentialsFromFiles(o.tlsCertFile, o.tlsPrivateKeyFile);
    return { cert: c.certPem, key: c.keyPem, ca: c.caCertPem };
  }
  const hosts = ['localhost', '127.0.0.1', '::1', hostname()];
  if (!unspecified.has(o.bindAddress)) hosts.push(o.bindAddress);
  const c = await ensureServingCredentials(o.dataDir, { hosts });
  return { cert: c.certPem, key: c.keyPem, ca: c.caCertPem };
}

/** Tokens from --token-auth-file replace the generated admin token (replicas then share them). */
async function tokens(o: ServerOptions): Promise<{ entries: TokenEntry[]; kubeconfigToken: string }> {
  if (o.tokenAuthFile) {
    const entries = await loadTokenAuthFile(o.tokenAuthFile, { onWarning: (m) => console.error(`warning: ${m}`) });
    if (entries.length === 0) throw new Error(`--token-auth-file ${o.tokenAuthFile} holds no tokens`);
    const admin = entries.find((e) => e.user.groups.includes('system:masters')) ?? entries[0];
    return { entries, kubeconfigToken: admin.token };
  }
  const token = await ensureAdminToken(o.dataDir);
  return { entries: [adminTokenEntry(token)], kubeconfigToken: token };
}

async function start(o: ServerOptions): Promise<void> {
  o.dataDir = isAbsolute(o.dataDir) ? o.dataDir : resolve(o.dataDir);
  await mkdir(o.dataDir, { recursive: true, mode: 0o700 });
  let storage: Storage;
  try {
    storage = await openStorage(o);
  } catch (err) {
    console.error(`windlass: cannot open ${o.storage} storage: ${(err as Error).message}`);
    process.exit(1);
  }
  const [tls, auth] = await Promise.all([servingCredentials(o), tokens(o)]);
  const server = new APIServer({
    storage,
    registryPrefix: o.etcdPrefix,
    authenticator: new TokenAuthenticator(auth.entries),
    tls: { cert: tls.cert, key: tls.key },
    compactionIntervalMs: o.etcdCompactionIntervalMs,
    compression: o.featureGates.APIResponseCompression,
    cacher: { historyWindowMs: o.watchCacheHistoryWindowMs, snapshotWindowMs: o.watchCacheSnapshotWindowMs },
  });
  const port = await server.listen(o.securePort, o.bindAddress);
  const host = unspecified.has(o.bindAddress) ? '127.0.0.1' : o.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfig = join(o.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, { server: url, caCertPem: tls.ca, token: auth.kubeconfigToken });
  const where = o.storage === 'etcd' ? `etcd ${o.etcdServers.join(',')}` : `embedded ${o.embeddedPath ?? join(o.dataDir, 'windlass.db')}`;
  console.log(`Windlass ${serverVersion.gitVersion} serving on ${url} (storage: ${where})`);
  console.log(`secure port: ${port}`);
  console.log(`Point kubectl at it:\n  kubectl --kubeconfig ${kubeconfig} get namespaces\n  export KUBECONFIG=${kubeconfig}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await storage.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
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
