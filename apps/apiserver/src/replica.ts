/**
 * The pieces of `windlass start` shared by the single-process server and the workers of
 * `--workers N`: the one-time setup (credentials, kubeconfig, the lines scripts parse)
 * and one replica (a storage connection and an APIServer with its own watch cache).
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  Authentication, ServiceAccountTokens, adminTokenEntry, ensureAdminClientCert, ensureAdminToken, ensureServiceAccountSigningKey,
  ensureFrontProxyCredentials, ensureServingCredentials, loadServingCredentialsFromFiles, FRONT_PROXY_CLIENT_NAME, loadTokenAuthFile, readDataDirCA, writeKubeconfig,
  type KeyPairPem, type ServiceAccountTokenConfig, type TokenEntry,
} from '@windlass/auth';
import { APIServer, defaultRequestHeaders, serverVersion } from '@windlass/server';
import { createStorage, type EtcdTLS, type Storage } from '@windlass/storage';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, advertiseAddress, type ServerOptions } from './flags.js';

/** What every replica serves with; plain data, so the primary can hand it to its workers. */
export interface Credentials {
  /** ca: unset when --tls-cert-file carries no CA after the serving certificate. */
  tls: { cert: string; key: string; ca?: string };
  tokens: TokenEntry[];
  /** The token written into the kubeconfig. */
  kubeconfigToken: string;
  /** Client CAs and service account keys, read (or generated) once: plain data a primary hands its workers. */
  authentication: AuthenticationFiles;
  /** The system:masters client certificate for admin.conf, when the client CA is the generated one. */
  adminCert?: KeyPairPem;
  /** The aggregation layer's client certificate and the front-proxy trust published for aggregated servers. */
  frontProxy: FrontProxyFiles;
}

export interface FrontProxyFiles {
  /** --proxy-client-cert-file and --proxy-client-key-file, or the generated front-proxy client. */
  client?: { cert: string; key: string };
  /** --requestheader-client-ca-file, or the generated front-proxy CA. */
  requestHeaderCA?: string;
  /** --requestheader-allowed-names (the generated client's name when the CA is the generated one). */
  allowedNames: string[];
  /** The --requestheader-*-headers flags, kubeadm's names where unset. */
  headers: typeof defaultRequestHeaders;
}

export interface AuthenticationFiles {
  /** PEM of --client-ca-file, or of the generated CA. */
  clientCA?: string;
  serviceAccounts: ServiceAccountTokenConfig;
}

/** Where `start` writes the client-certificate kubeconfig, as kubeadm names it. */
export const ADMIN_CONF = 'admin.conf';

const unspecified = new Set(['0.0.0.0', '::', '']);

/** Makes --data-dir absolute (workers and kubeconfig paths must not depend on a later cwd) and creates it. */
export async function ensureDataDir(o: ServerOptions): Promise<void> {
  o.dataDir = isAbsolute(o.dataDir) ? o.dataDir : resolve(o.dataDir);
  await mkdir(o.dataDir, { recursive: true, mode: 0o700 });
}

/** Opens the storage, or exits 1 with the reason: nothing can be served without it. */
export async function openStorageOrExit(o: ServerOptions): Promise<Storage> {
  try {
    if (o.storage === 'etcd') return await createStorage({ backend: 'etcd', endpoints: o.etcdServers, tls: await etcdTLS(o), unavailableWaitMs: o.requestTimeoutMs || undefined });
    return await createStorage({ backend: 'embedded', path: embeddedPath(o) });
  } catch (err) {
    console.error(`windlass: cannot open ${o.storage} storage: ${(err as Error).message}`);
    process.exit(1);
  }
}

/** The files of --etcd-cafile, --etcd-certfile and --etcd-keyfile, read once at start. */
async function etcdTLS(o: ServerOptions): Promise<EtcdTLS> {
  const read = (file: string | undefined, flag: string) =>
    file === undefined ? undefined : readFile(file).catch((err: Error) => Promise.reject(new Error(`--${flag}: ${err.message}`)));
  const [ca, cert, key] = await Promise.all([read(o.etcdCAFile, 'etcd-cafile'), read(o.etcdCertFile, 'etcd-certfile'), read(o.etcdKeyFile, 'etcd-keyfile')]);
  return { ca, cert, key };
}

function embeddedPath(o: ServerOptions): string {
  return o.embeddedPath ?? join(o.dataDir, 'windlass.db');
}

async function servingCredentials(o: ServerOptions): Promise<Credentials['tls']> {
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
async function tokens(o: ServerOptions): Promise<Pick<Credentials, 'tokens' | 'kubeconfigToken'>> {
  if (o.tokenAuthFile) {
    const entries = await loadTokenAuthFile(o.tokenAuthFile, { onWarning: (m) => console.error(`warning: ${m}`) });
    if (entries.length === 0) throw new Error(`--token-auth-file ${o.tokenAuthFile} holds no tokens`);
    const admin = entries.find((e) => e.user.groups.includes('system:masters')) ?? entries[0]!;
    return { tokens: entries, kubeconfigToken: admin.token };
  }
  const token = await ensureAdminToken(o.dataDir);
  return { tokens: [adminTokenEntry(token)], kubeconfigToken: token };
}

const readFlagFile = (file: string, flag: string) => readFile(file, 'utf8').catch((err: Error) => Promise.reject(new Error(`--${flag}: ${err.message}`)));

/**
 * kube's service account options, with Windlass's defaults for what kube requires: kubeadm's
 * issuer and a signing key generated in the data directory.
 */
async function serviceAccountConfig(o: ServerOptions, rootCA: string | undefined): Promise<ServiceAccountTokenConfig> {
  const signingKeyPem = o.serviceAccountSigningKeyFile
    ? await readFlagFile(o.serviceAccountSigningKeyFile, 'service-account-signing-key-file')
    : (await ensureServiceAccountSigningKey(o.dataDir)).keyPem;
  const publicKeyPems = await Promise.all(o.serviceAccountKeyFiles.map((f) => readFlagFile(f, 'service-account-key-file')));
  const config: ServiceAccountTokenConfig = {
    issuers: o.serviceAccountIssuers.length > 0 ? o.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    signingKeyPem, publicKeyPems, apiAudiences: o.apiAudiences,
    maxExpirationSeconds: Math.floor(o.serviceAccountMaxTokenExpirationMs / 1000),
    extendExpiration: o.serviceAccountExtendTokenExpiration, jwksURI: o.serviceAccountJWKSURI, rootCA,
  };
  try {
    new ServiceAccountTokens(config);
  } catch (err) {
    throw new Error(`service account keys: ${(err as Error).message}`);
  }
  return config;
}

/**
 * kubeadm's front-proxy setup: with generated credentials and no --proxy-client-cert-file, a
 * front-proxy CA and client certificate of the data directory; the flags replace either part.
 */
async function frontProxy(o: ServerOptions): Promise<FrontProxyFiles> {
  const headers = {
    usernameHeaders: o.requestHeaderUsernameHeaders ?? defaultRequestHeaders.usernameHeaders,
    uidHeaders: o.requestHeaderUIDHeaders ?? defaultRequestHeaders.uidHeaders,
    groupHeaders: o.requestHeaderGroupHeaders ?? defaultRequestHeaders.groupHeaders,
    extraHeaderPrefixes: o.requestHeaderExtraHeaderPrefixes ?? defaultRequestHeaders.extraHeaderPrefixes,
  };
  const flagCA = o.requestHeaderClientCAFile !== undefined ? await readFlagFile(o.requestHeaderClientCAFile, 'requestheader-client-ca-file') : undefined;
  if (o.proxyClientCertFile !== undefined && o.proxyClientKeyFile !== undefined) {
    // The certificate first, as kube's tls.LoadX509KeyPair reads them: when both are missing, its error is the one reported.
    const cert = await readFlagFile(o.proxyClientCertFile, 'proxy-client-cert-file');
    const key = await readFlagFile(o.proxyClientKeyFile, 'proxy-client-key-file');
    return { client: { cert, key }, requestHeaderCA: flagCA, allowedNames: o.requestHeaderAllowedNames, headers };
  }
  if (o.tlsCertFile !== undefined) return { requestHeaderCA: flagCA, allowedNames: o.requestHeaderAllowedNames, headers };
  const generated = await ensureFrontProxyCredentials(o.dataDir);
  return {
    client: { cert: generated.client.certPem, key: generated.client.keyPem },
    requestHeaderCA: flagCA ?? generated.caCertPem,
    allowedNames: o.requestHeaderAllowedNames.length > 0 || flagCA !== undefined ? o.requestHeaderAllowedNames : [FRONT_PROXY_CLIENT_NAME],
    headers,
  };
}

/** Loads or generates the serving certificate, tokens and authentication keys (generation happens once, here). */
export async function credentials(o: ServerOptions): Promise<Credentials> {
  const [tls, auth, proxy] = await Promise.all([servingCredentials(o), tokens(o), frontProxy(o)]);
  // Like kubeadm, a generated CA is the client CA too, and the admin gets a certificate from it.
  const ownCA = o.clientCAFile === undefined && o.tlsCertFile === undefined ? await readDataDirCA(o.dataDir) : null;
  const clientCA = o.clientCAFile !== undefined ? await readFlagFile(o.clientCAFile, 'client-ca-file') : ownCA?.certPem;
  const [serviceAccounts, adminCert] = await Promise.all([serviceAccountConfig(o, tls.ca), ownCA ? ensureAdminClientCert(o.dataDir, ownCA) : undefined]);
  return { tls, ...auth, authentication: { clientCA, serviceAccounts }, adminCert, frontProxy: proxy };
}

/** `gatherMetrics`: for a worker of several, the whole server's /metrics (from the primary). */
export function newAPIServer(o: ServerOptions, storage: Storage, creds: { tls: { cert: string; key: string }; tokens: TokenEntry[]; authentication?: AuthenticationFiles; frontProxy?: FrontProxyFiles }, gatherMetrics?: () => Promise<string>): APIServer {
  const fp = creds.frontProxy;
  // What a front proxy (this server's aggregator, or another) sends, as the --requestheader-* flags name it.
  const requestHeader = fp?.requestHeaderCA ? { ...fp.headers, clientCA: fp.requestHeaderCA, allowedNames: fp.allowedNames } : undefined;
  return new APIServer({
    storage,
    registryPrefix: o.etcdPrefix,
    authenticator: new Authentication({ tokens: creds.tokens, clientCA: creds.authentication?.clientCA, serviceAccounts: creds.authentication?.serviceAccounts, requestHeader }),
    tls: { cert: creds.tls.cert, key: creds.tls.key },
    compactionIntervalMs: o.etcdCompactionIntervalMs,
    compression: o.featureGates.APIResponseCompression,
    cbor: o.featureGates.CBORServingAndStorage,
    cacher: { historyWindowMs: o.watchCacheHistoryWindowMs, snapshotWindowMs: o.watchCacheSnapshotWindowMs },
    services: { clusterIPRange: o.serviceClusterIPRange, nodePortRange: o.serviceNodePortRange },
    admissionControlConfigFile: o.admissionControlConfigFile,
    kubeletClient: { certificateAuthority: o.kubeletCertificateAuthority, clientCertificate: o.kubeletClientCertificate, clientKey: o.kubeletClientKey },
    authorization: { modes: o.authorizationModes, anonymous: o.anonymousAuth },
    // The kubernetes Endpoints, the identity Lease, the automanaged APIServices and the
    // extension-apiserver-authentication ConfigMap, as kube-apiserver keeps them.
    controlPlane: {
      advertiseAddress: advertiseAddress(o), endpointReconcilerType: o.endpointReconcilerType,
      authenticationTrust: {
        clientCA: creds.authentication?.clientCA,
        requestHeader,
      },
    },
    aggregator: { proxyClient: fp?.client },
    operations: {
      maxRequestsInflight: o.maxRequestsInflight,
      maxMutatingRequestsInflight: o.maxMutatingRequestsInflight,
      requestTimeoutMs: o.requestTimeoutMs,
      storageSize: () => storageSize(o),
      gatherMetrics,
    },
  });
}

/** The store's size on disk for apiserver_storage_size_bytes: etcd's dbSize per member, or the SQLite file and its WAL. */
async function storageSize(o: ServerOptions): Promise<{ endpoint: string; bytes: number }[]> {
  if (o.storage === 'etcd') {
    const sizes = await Promise.all(o.etcdServers.map(async (endpoint) => {
      try {
        // etcd's gRPC gateway: the same Status call etcdctl endpoint status makes.
        const res = await fetch(new URL('/v3/maintenance/status', endpoint), { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { dbSize?: string };
        return body.dbSize === undefined ? null : { endpoint, bytes: Number(body.dbSize) };
      } catch {
        return null;
      }
    }));
    return sizes.filter((s): s is { endpoint: string; bytes: number } => s !== null);
  }
  const path = embeddedPath(o);
  if (path === ':memory:') return [];
  let bytes = 0;
  for (const file of [path, `${path}-wal`]) bytes += await stat(file).then((s) => s.size, () => 0);
  return [{ endpoint: path, bytes }];
}

/** Writes the kubeconfig and prints where the server is; tests and scripts parse "secure port: N". */
export async function announce(o: ServerOptions, port: number, creds: Credentials): Promise<void> {
  const host = unspecified.has(o.bindAddress) ? '127.0.0.1' : o.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfig = join(o.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, { server: url, caCertPem: creds.tls.ca, token: creds.kubeconfigToken });
  const adminConf = join(o.dataDir, ADMIN_CONF);
  if (creds.adminCert) {
    await writeKubeconfig(adminConf, { server: url, caCertPem: creds.tls.ca, clientCertPem: creds.adminCert.certPem, clientKeyPem: creds.adminCert.keyPem, userName: 'windlass-admin' });
  }
  const where = o.storage === 'etcd' ? `etcd ${o.etcdServers.join(',')}` : `embedded ${embeddedPath(o)}`;
  const workers = o.workers > 1 ? `, workers: ${o.workers}` : '';
  console.log(`Windlass ${serverVersion.gitVersion} serving on ${url} (storage: ${where}${workers})`);
  console.log(`secure port: ${port}`);
  console.log(`Point kubectl at it:\n  kubectl --kubeconfig ${kubeconfig} get namespaces\n  export KUBECONFIG=${kubeconfig}`);
  if (creds.adminCert) console.log(`With a client certificate instead of the token (as kubeadm's admin.conf): ${adminConf}`);
  // bin/windlass.js writes the bundle's code cache then, holding everything start-up compiled.
  process.emit('windlass:serving' as never);
}

/**
 * On the first SIGINT or SIGTERM: shuts the server down gracefully (readyz fails for
 * --shutdown-delay-duration, then in-flight requests finish and watches end cleanly),
 * closes storage and exits 0.
 */
export function exitOnSignals(replica: () => { server?: APIServer; storage?: Storage }, shutdownDelayMs = 0): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const { server, storage } = replica();
    await server?.shutdown(shutdownDelayMs);
    await storage?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
