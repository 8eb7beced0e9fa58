#!/usr/bin/env node
// Credentials that several Windlass replicas share behind one address (docker-compose.yml,
// scripts/ha-local.mjs, the Helm chart's Secrets):
//
//   node scripts/ha-credentials.mjs DIR [--hosts name,name,…] [--server URL]
//
// writes into DIR (kept if already there, so re-running is harmless):
//   pki/ca.crt, pki/ca.key               a CA (clients trust ca.crt)
//   tls.crt, tls.key                     the serving certificate (CA appended) for --tls-cert-file/--tls-private-key-file
//   tokens.csv                           --token-auth-file: an admin (system:masters) and a Prometheus token (system:monitoring)
//   admin-token, prometheus-token        the tokens alone (Prometheus' bearer_token_file)
//   pki/sa.key, pki/sa.pub               the service account signing key and its public half, for
//                                        --service-account-signing-key-file / --service-account-key-file:
//                                        every replica must sign and verify tokens with the same key
//   pki/front-proxy-ca.crt, pki/front-proxy-client.crt, pki/front-proxy-client.key
//                                        kubeadm's front-proxy PKI, for --requestheader-client-ca-file and
//                                        --proxy-client-cert-file/--proxy-client-key-file: every replica
//                                        proxies to aggregated API servers with the same client certificate
//   kubeconfig                           for --server URL (default https://127.0.0.1:6443), trusting ca.crt
//
// The certificate names localhost, 127.0.0.1, ::1 and the compose service names (windlass,
// windlass-1…3, haproxy) plus --hosts. Needs the workspace built (packages/auth/dist).
// The Prometheus token is in system:monitoring, which kube's bootstrap RBAC policy lets read
// /metrics, /metrics/slis and the health endpoints, and nothing else.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const defaultHosts = ['localhost', '127.0.0.1', '::1', 'windlass', 'windlass-1', 'windlass-2', 'windlass-3', 'haproxy'];

/** Writes the credentials into `dir`; returns their paths and the tokens. */
export async function ensureHaCredentials(dir, { hosts = [], server = 'https://127.0.0.1:6443' } = {}) {
  const auth = await import(pathToFileURL(join(root, 'packages', 'auth', 'dist', 'index.js')).href);
  dir = resolve(dir);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const serving = await auth.ensureServingCredentials(dir, { hosts: [...new Set([...defaultHosts, ...hosts])] });
  const files = {
    dir,
    ca: join(dir, 'pki', 'ca.crt'),
    cert: join(dir, 'tls.crt'),
    key: join(dir, 'tls.key'),
    tokens: join(dir, 'tokens.csv'),
    adminToken: join(dir, 'admin-token'),
    prometheusToken: join(dir, 'prometheus-token'),
    kubeconfig: join(dir, 'kubeconfig'),
    saKey: join(dir, 'pki', 'sa.key'),
    saPub: join(dir, 'pki', 'sa.pub'),
    frontProxyCA: join(dir, 'pki', 'front-proxy-ca.crt'),
    frontProxyCert: join(dir, 'pki', 'front-proxy-client.crt'),
    frontProxyKey: join(dir, 'pki', 'front-proxy-client.key'),
  };
  // The CA after the serving certificate: replicas then put it into the kubeconfig they write.
  writeFileSync(files.cert, `${serving.certPem.trim()}\n${serving.caCertPem.trim()}\n`, { mode: 0o644 });
  // Readable by the non-root user the image runs as, whatever uid created it (a shared volume).
  writeFileSync(files.key, serving.keyPem, { mode: 0o644 });
  chmodSync(join(dir, 'pki'), 0o755);
  chmodSync(join(dir, 'pki', 'apiserver.key'), 0o644);
  // One signing key for every replica: a token one replica issues must verify on the others.
  await auth.ensureServiceAccountSigningKey(dir);
  chmodSync(files.saKey, 0o644);
  // One front-proxy client for every replica, as kubeadm shares it between control-plane nodes.
  await auth.ensureFrontProxyCredentials(dir);
  chmodSync(files.frontProxyKey, 0o644);
  const token = (file) => {
    if (!existsSync(file)) writeFileSync(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o644 });
    return readFileSync(file, 'utf8').trim();
  };
  const admin = token(files.adminToken);
  const prometheus = token(files.prometheusToken);
  writeFileSync(files.tokens, `${admin},windlass-admin,windlass-admin,"system:masters"\n${prometheus},prometheus,prometheus,"system:monitoring"\n`, { mode: 0o644 });
  await auth.writeKubeconfig(files.kubeconfig, { server, caCertPem: serving.caCertPem, token: admin });
  return { ...files, adminTokenValue: admin, prometheusTokenValue: prometheus };
}

function usage() {
  console.error('usage: node scripts/ha-credentials.mjs DIR [--hosts name,name,…] [--server https://host:port]');
  process.exit(2);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let dir;
  const opts = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--hosts') opts.hosts = (args[++i] ?? usage()).split(',').filter(Boolean);
    else if (args[i] === '--server') opts.server = args[++i] ?? usage();
    else if (args[i].startsWith('-') || dir) usage();
    else dir = args[i];
  }
  if (!dir) usage();
  const c = await ensureHaCredentials(dir, opts);
  console.log(`credentials in ${c.dir}: tls.crt, tls.key, tokens.csv, pki/sa.key, pki/sa.pub, pki/front-proxy-*, kubeconfig (server ${opts.server ?? 'https://127.0.0.1:6443'})`);
}
