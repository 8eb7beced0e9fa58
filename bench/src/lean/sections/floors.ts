/**
 * The floors, measured in the same run:
 *  - bare: a plain Node HTTPS server (bare-server.js) with the certificate and key of a Windlass
 *    data dir, answering GET and POST with the exact bytes a Windlass (this checkout, embedded)
 *    answered for the same ConfigMap; driven by the same clients at the same concurrency.
 *  - etcd3: the etcd3 client alone (etcdfloor.js) at each BENCH_ETCD_CLIENTS level, each level on
 *    a fresh etcd: create transactions, then range reads by key; CPU per op of the client process.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CannedReply } from '../bare-server.js';
import { config, want } from '../config.js';
import { getClients, getWindow, load, log, rowFrom, withServer, type RunCtx } from '../harness.js';
import type { EtcdFloorResult, EtcdFloorSpec } from '../etcdfloor.js';
import { agentFor, expectStatus, send, type Reply } from '../http.js';
import { runChild } from '../ipc.js';
import { CM_PATH, configMapTemplate, fill, objectName } from '../objects.js';
import { freshEtcd, startBare } from '../targets.js';

const DROP = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function canned(r: Reply): CannedReply {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && !DROP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: r.status, headers, body: r.body.toString('base64') };
}

export interface Captured {
  get: CannedReply;
  post: CannedReply;
  certFile: string;
  keyFile: string;
  ca: string;
  /** JSON size of the ConfigMap as the server returns it. */
  jsonBytes: number;
}

/** What Windlass answers to POST and GET of the bench's ConfigMap, and its TLS files (copied out of its data dir). */
export async function capture(): Promise<Captured> {
  return withServer({ root: config.serverRoot, label: 'windlass', backend: 'embedded' }, async ({ server }) => {
    const agent = agentFor(server.target, 1);
    const name = objectName('get-', 1);
    const post = await send(agent, server.target, 'POST', CM_PATH, fill(configMapTemplate(config.objectBytes), name));
    expectStatus('POST', post, 201);
    const get = await send(agent, server.target, 'GET', `${CM_PATH}/${name}`);
    expectStatus('GET', get, 200);
    agent.destroy();
    const dir = await mkdtemp(join(tmpdir(), 'windlass-bare-'));
    await copyFile(server.certFile, join(dir, 'tls.crt'));
    await copyFile(server.keyFile, join(dir, 'tls.key'));
    return { get: canned(get), post: canned(post), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), ca: server.target.ca, jsonBytes: get.body.length };
  });
}

async function bareRows(ctx: RunCtx, cap: Captured): Promise<void> {
  log('bare HTTPS server: GET and POST');
  const bare = await startBare({ certFile: cap.certFile, keyFile: cap.keyFile, get: cap.get, post: cap.post }, 'unused', cap.ca);
  try {
    const meters = { server: () => bare.pids() };
    const path = `${CM_PATH}/${objectName('get-', 1)}`;
    for (const client of getClients()) {
      const w = await getWindow(client, bare.target, path, config.getClients, meters);
      ctx.rows.push(rowFrom({ section: 'bare', backend: '', server: 'bare', op: 'get', clients: config.getClients, client }, w, w.result));
    }
    const w = await load({ target: bare.target, mode: 'create', clients: config.getClients, path: CM_PATH, template: configMapTemplate(config.objectBytes), namePrefix: 'b-', expect: 201, windowName: 'post' }, meters);
    ctx.rows.push(rowFrom({ section: 'bare', backend: '', server: 'bare', op: 'post', clients: config.getClients, client: 'node' }, w, w.result));
  } finally {
    await bare.stop();
  }
}

async function etcdRows(ctx: RunCtx): Promise<void> {
  for (const clients of config.etcdClients) {
    log(`etcd3 client alone: ${clients} clients, fresh etcd`);
    const etcd = await freshEtcd();
    try {
      const spec: EtcdFloorSpec = { endpoints: etcd.endpoints, clients, durationMs: config.durationMs, warmupMs: config.warmupMs, objectBytes: config.objectBytes, modes: ['create', 'range'] };
      for (const w of await runChild<EtcdFloorResult>('etcdfloor.js', spec, { etcd: () => etcd.pids() })) {
        const r = { ...w.result, requests: w.result.ops, statuses: {}, conflicts: 0 };
        ctx.rows.push(rowFrom({ section: 'etcd3', backend: 'etcd', server: 'etcd3', op: w.name === 'create' ? 'txn create' : 'range by key', clients, client: 'etcd3' }, w, r, 'client'));
      }
    } finally {
      await etcd.stop();
    }
  }
}

/** The floors; returns what was captured from Windlass (also used for the object's JSON size). */
export async function runFloors(ctx: RunCtx): Promise<Captured | undefined> {
  if (!want('floors')) return undefined;
  const cap = await capture();
  try {
    await bareRows(ctx, cap);
  } finally {
    await rm(dirname(cap.certFile), { recursive: true, force: true });
  }
  if (config.backends.includes('etcd')) await etcdRows(ctx);
  return cap;
}
