/**
 * `windlass compact --revision R [--kubeconfig K]`: asks a running server to compact its
 * store up to R (POST /windlass/v1/compact, see packages/server/src/compactendpoint.ts),
 * with the cluster, CA and token of the kubeconfig's current context, as kubectl would.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, resolve } from 'node:path';
import yaml from 'js-yaml';

export const compactPath = '/windlass/v1/compact';

export interface CompactCommand {
  /** Unset: $KUBECONFIG, else ./.windlass/kubeconfig (what `windlass start` writes). */
  kubeconfig?: string;
  revision: number;
}

export interface ClusterAccess {
  server: string;
  ca?: Buffer;
  insecureSkipTLSVerify?: boolean;
  token?: string;
}

/** The fields of a Status that matter here. */
export interface StatusReply {
  httpStatus: number;
  status?: string;
  reason?: string;
  message?: string;
}

export function kubeconfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  // KUBECONFIG is a path list; kubectl merges it, the first file is enough for our own kubeconfigs.
  const first = (env.KUBECONFIG ?? '').split(':').find((p) => p !== '');
  return first ?? './.windlass/kubeconfig';
}

/** The `field` of the entry called `name` in a kubeconfig list (contexts, clusters, users). */
function entry(list: unknown, name: string, field: string, path: string): Record<string, unknown> {
  const found = Array.isArray(list) ? (list as Record<string, unknown>[]).find((e) => e?.name === name) : undefined;
  const value = found?.[field];
  if (typeof value !== 'object' || value === null) throw new Error(`${path}: no ${field} named ${JSON.stringify(name)}`);
  return value as Record<string, unknown>;
}

/** The current context's server, CA and bearer token. */
export function loadClusterAccess(path: string): ClusterAccess {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read kubeconfig ${path}: ${(err as Error).message}`);
  }
  const doc = yaml.load(text) as Record<string, unknown> | null;
  if (typeof doc !== 'object' || doc === null) throw new Error(`${path} is not a kubeconfig`);
  const current = doc['current-context'];
  if (typeof current !== 'string' || current === '') throw new Error(`${path}: current-context is not set`);
  const context = entry(doc.contexts, current, 'context', path);
  const clusterName = String(context.cluster ?? '');
  const cluster = entry(doc.clusters, clusterName, 'cluster', path);
  const user = typeof context.user === 'string' && context.user ? entry(doc.users, context.user, 'user', path) : {};
  if (typeof cluster.server !== 'string' || cluster.server === '') throw new Error(`${path}: cluster ${JSON.stringify(clusterName)} has no server`);
  const access: ClusterAccess = { server: cluster.server };
  if (typeof cluster['certificate-authority-data'] === 'string') access.ca = Buffer.from(cluster['certificate-authority-data'], 'base64');
  // A relative path in a kubeconfig is relative to the kubeconfig's directory, as in client-go.
  else if (typeof cluster['certificate-authority'] === 'string') access.ca = readFileSync(resolve(dirname(path), cluster['certificate-authority']));
  if (cluster['insecure-skip-tls-verify'] === true) access.insecureSkipTLSVerify = true;
  if (typeof user.token === 'string') access.token = user.token;
  return access;
}

/** POSTs the request; resolves with whatever Status the server answered, rejects only when it cannot be reached. */
export function requestCompaction(access: ClusterAccess, revision: number): Promise<StatusReply> {
  const body = JSON.stringify({ revision });
  const url = new URL(compactPath, access.server.endsWith('/') ? access.server : `${access.server}/`);
  return new Promise((resolvePromise, reject) => {
    const req = https.request(url, {
      method: 'POST',
      ca: access.ca,
      rejectUnauthorized: !access.insecureSkipTLSVerify,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(access.token ? { authorization: `Bearer ${access.token}` } : {}),
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const reply: StatusReply = { httpStatus: res.statusCode ?? 0 };
        try {
          const s = JSON.parse(text) as { kind?: string; status?: string; reason?: string; message?: string };
          if (s?.kind === 'Status') Object.assign(reply, { status: s.status, reason: s.reason, message: s.message });
        } catch {
          // Not a Status (a proxy's page, an older server's 404): report the text.
        }
        if (reply.message === undefined) reply.message = text.trim() || `HTTP ${reply.httpStatus}`;
        resolvePromise(reply);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface Output {
  log(line: string): void;
  error(line: string): void;
}

/** Runs the command; returns the process exit code. */
export async function runCompact(cmd: CompactCommand, out: Output = console, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const path = kubeconfigPath(cmd.kubeconfig, env);
  let access: ClusterAccess;
  try {
    access = loadClusterAccess(path);
  } catch (err) {
    out.error(`error: ${(err as Error).message}`);
    return 1;
  }
  let reply: StatusReply;
  try {
    reply = await requestCompaction(access, cmd.revision);
  } catch (err) {
    out.error(`error: cannot reach ${access.server}: ${(err as Error).message}`);
    return 1;
  }
  if (reply.httpStatus === 200 && reply.status === 'Success') {
    out.log(reply.message ?? `compacted up to revision ${cmd.revision}`);
    return 0;
  }
  // kubectl's way of showing a failure Status.
  out.error(`Error from server${reply.reason ? ` (${reply.reason})` : ''}: ${reply.message}`);
  return 1;
}
