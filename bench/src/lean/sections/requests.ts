/**
 * Single-object request rows: creates at 1/16/64 clients, GET by name at 16 (no
 * resourceVersion and resourceVersion=0), 16 clients contending on one object, and the same
 * create/GET rows with --workers N. Every create run and every server gets a fresh store.
 * With BENCH_BASELINE_ROOT, create@16, the GETs and contention also run against the baseline
 * checkout, right after the same row of this one.
 */
import { config, want } from '../config.js';
import { getClients, getWindow, load, log, rowFrom, roots, withServer, type RunCtx } from '../harness.js';
import { agentFor, expectStatus, send, type Target } from '../http.js';
import { CM_PATH, configMapTemplate, fill, objectName } from '../objects.js';
import { supportsWorkers } from '../targets.js';

const template = (): string => configMapTemplate(config.objectBytes);

/** Creates one ConfigMap through the API; its path. */
export async function seedOne(target: Target, name: string): Promise<string> {
  const agent = agentFor(target, 1);
  try {
    expectStatus(`POST ${name}`, await send(agent, target, 'POST', CM_PATH, fill(template(), name)), 201);
    return `${CM_PATH}/${name}`;
  } finally {
    agent.destroy();
  }
}

async function createRow(ctx: RunCtx, root: string, label: string, backend: string, clients: number, workers = 1): Promise<void> {
  log(`${label} ${backend}: create, ${clients} clients${workers > 1 ? `, ${workers} workers` : ''}`);
  const profile = clients === config.getClients ? `create-${clients}${workers > 1 ? `-workers-${workers}` : ''}` : undefined;
  await withServer({ root, label, backend, workers, profile }, async ({ server, meters }) => {
    const w = await load({ target: server.target, mode: 'create', clients, path: CM_PATH, template: template(), namePrefix: `c${clients}-`, expect: 201, windowName: 'create' }, meters);
    ctx.rows.push(rowFrom({ section: 'create', backend, server: label, op: 'create', clients, client: 'node', workers }, w, w.result));
  }, ctx.profiles);
}

async function getRows(ctx: RunCtx, root: string, label: string, backend: string, workers = 1): Promise<void> {
  const clients = config.getClients;
  log(`${label} ${backend}: GET, ${clients} clients${workers > 1 ? `, ${workers} workers` : ''}`);
  await withServer({ root, label, backend, workers, profile: workers === 1 ? 'get' : `get-workers-${workers}` }, async ({ server, meters }) => {
    const path = await seedOne(server.target, objectName('get-', 1));
    const variants = workers === 1 ? [['get', path], ['get rv=0', `${path}?resourceVersion=0`]] : [['get', path]];
    for (const client of getClients()) {
      for (const [op, p] of variants) {
        const w = await getWindow(client, server.target, p, clients, meters);
        ctx.rows.push(rowFrom({ section: 'get', backend, server: label, op, clients, client, workers }, w, w.result));
      }
    }
  }, ctx.profiles);
}

async function contendRow(ctx: RunCtx, root: string, label: string, backend: string): Promise<void> {
  const clients = config.contendClients;
  log(`${label} ${backend}: ${clients} clients contending on one object`);
  await withServer({ root, label, backend, profile: 'contend' }, async ({ server, meters }) => {
    const path = await seedOne(server.target, objectName('hot-', 1));
    const w = await load({ target: server.target, mode: 'contend', clients, path, windowName: 'contend' }, meters);
    ctx.rows.push(rowFrom({ section: 'contend', backend, server: label, op: 'update (GET, PUT, retry on 409)', clients, client: 'node' }, w, w.result));
  }, ctx.profiles);
}

export async function runRequestSections(ctx: RunCtx, backend: string): Promise<void> {
  if (want('create')) {
    for (const clients of config.createClients) {
      for (const { root, label } of roots(clients === config.getClients)) await createRow(ctx, root, label, backend, clients);
    }
  }
  if (want('get')) for (const { root, label } of roots(true)) await getRows(ctx, root, label, backend);
  if (want('contend')) for (const { root, label } of roots(true)) await contendRow(ctx, root, label, backend);
  if (want('workers') && backend === 'etcd') {
    const extra = config.workers.filter((n) => n > 1);
    if (extra.length && !supportsWorkers(config.serverRoot)) {
      ctx.notes.push(`--workers rows skipped: \`windlass start --help\` of ${config.serverRoot} has no --workers flag.`);
      return;
    }
    for (const n of extra) {
      await createRow(ctx, config.serverRoot, 'windlass', backend, config.getClients, n);
      await getRows(ctx, config.serverRoot, 'windlass', backend, n);
    }
  }
}
