/**
 * An informer from @kubernetes/client-node (its own list, watch, resume from the last
 * resourceVersion and relist on 410) follows a namespace through a restart of the server it
 * is connected to: on the embedded backend (same port and data dir) and on etcd, where a
 * second replica keeps taking writes while the first is down. Stopped with SIGTERM and with
 * SIGKILL (then in the middle of writes). Afterwards the informer's cache must be exactly
 * what the server lists: names, uids, resourceVersions, labels and data.
 */
import * as k8s from '@kubernetes/client-node';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { adminToken, eventually, removeDir, restartWindlass, startReplicas, startWindlass, tempDir } from './harness.js';
import { KubeHttp, sortedStates } from './kubehttp.js';

const NS = 'ns';
const token = 'informer-restart-token-0123456789';

interface Harness {
  informer: k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap>;
  /** While false, the informer's error handler waits instead of reconnecting. */
  setReconnect(allowed: boolean): void;
  errors: () => number;
  /** How many times it listed (1 + relists after 410). */
  lists: () => number;
  stop(): Promise<void>;
}

/**
 * An informer with the usual reconnection: client-node's ListWatch stops on an error and
 * the application restarts it; start() resumes the watch from the last resourceVersion.
 */
function startInformer(kubeconfig: string): Harness {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let lists = 0;
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/configmaps`, () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace: NS });
  });
  let allowed = true;
  let stopped = false;
  let errors = 0;
  let timer: NodeJS.Timeout | undefined;
  const retry = () => {
    timer = setTimeout(() => {
      if (stopped) return;
      if (!allowed) return retry();
      void informer.start();
    }, 200);
  };
  informer.on('error', () => {
    errors++;
    if (!stopped) retry();
  });
  void informer.start();
  return {
    informer,
    setReconnect(v) {
      allowed = v;
    },
    errors: () => errors,
    lists: () => lists,
    async stop() {
      if (process.env.WINDLASS_E2E_VERBOSE) console.log(`informer: ${errors} errors, ${lists} lists`);
      stopped = true;
      if (timer) clearTimeout(timer);
      await informer.stop();
    },
  };
}

/** Writes through plain HTTPS, so they work against a replica the informer is not on. */
class Writer {
  constructor(private c: KubeHttp) {}
  private path = (name?: string) => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
  async create(name: string, data: Record<string, string>, labels: Record<string, string> = {}): Promise<void> {
    const r = await this.c.request('POST', this.path(), { metadata: { name, labels }, data });
    if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
  }
  async patch(name: string, data: Record<string, string | null>, labels?: Record<string, string | null>): Promise<void> {
    const r = await this.c.request('PATCH', this.path(name), { ...(labels ? { metadata: { labels } } : {}), data }, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`patch ${name}: ${r.status} ${r.text}`);
  }
  async update(name: string, data: Record<string, string>): Promise<void> {
    const cur = await this.c.request('GET', this.path(name));
    const r = await this.c.request('PUT', this.path(name), { ...cur.body, data });
    if (r.status !== 200) throw new Error(`update ${name}: ${r.status} ${r.text}`);
  }
  async remove(name: string): Promise<void> {
    const r = await this.c.request('DELETE', this.path(name));
    if (r.status !== 200) throw new Error(`delete ${name}: ${r.status} ${r.text}`);
  }
  async list(): Promise<any[]> {
    const r = await this.c.request('GET', this.path());
    if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
    return r.body.items;
  }
  /** Writes until stopped, ignoring failures (the server may die under it). Returns how many were acknowledged. */
  background(prefix: string): { stop(): Promise<number> } {
    let stop = false;
    let acked = 0;
    const run = (async () => {
      for (let i = 0; !stop; i++) {
        try {
          await this.create(`${prefix}-${i}`, { i: String(i) });
          acked++;
          if (i % 3 === 0) {
            await this.patch(`${prefix}-${i}`, { i: `${i}-patched` }, { touched: 'yes' });
            acked++;
          }
          if (i % 4 === 1) {
            await this.remove(`${prefix}-${i - 1}`);
            acked++;
          }
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    return {
      async stop() {
        stop = true;
        await run;
        return acked;
      },
    };
  }
}

/** The informer's cache and the server's list, in comparable form. */
async function compare(h: Harness, w: Writer): Promise<{ cache: unknown; server: unknown }> {
  return { cache: sortedStates(h.informer.list(NS)), server: sortedStates(await w.list()) };
}

async function converge(h: Harness, w: Writer): Promise<void> {
  await eventually(async () => {
    const { cache, server } = await compare(h, w);
    return JSON.stringify(cache) === JSON.stringify(server);
  }, 30000, 100);
  const { cache, server } = await compare(h, w);
  expect(cache).toEqual(server);
}

/** Changes of every kind, including a name deleted and created again (a new uid). */
async function churn(w: Writer, round: string): Promise<void> {
  for (let i = 0; i < 6; i++) await w.create(`${round}-${i}`, { round, i: String(i) }, { round });
  await w.update(`${round}-0`, { round, updated: 'yes' });
  await w.patch(`${round}-1`, { i: null, patched: 'yes' }, { round: null, extra: 'x' });
  await w.remove(`${round}-2`);
  await w.remove(`${round}-3`);
  await w.create(`${round}-3`, { again: 'yes' });
}

async function setupNamespace(w: KubeHttp): Promise<void> {
  const r = await w.request('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  expect(r.status).toBe(201);
}

describe.each(['SIGTERM', 'SIGKILL'] as const)('informer through a restart (%s)', (signal) => {
  test('embedded backend: restart on the same port and data dir', async () => {
    const dir = tempDir();
    let s = await startWindlass([], dir);
    const client = () => KubeHttp.forDataDir(s.url, dir, adminToken(s));
    let c = client();
    let h: Harness | undefined;
    try {
      await setupNamespace(c);
      let w = new Writer(c);
      await churn(w, 'before');
      h = startInformer(s.kubeconfig);
      await churn(w, 'live');
      await converge(h, w);

      h.setReconnect(false);
      if (signal === 'SIGKILL') {
        // Killed in the middle of writes: whatever was committed must reach the informer.
        const bg = w.background('inflight');
        await new Promise((r) => setTimeout(r, 300));
        await s.stop('SIGKILL');
        await bg.stop();
      }
      s = await restartWindlass(s);
      c.destroy();
      c = client();
      w = new Writer(c);
      // Changes the informer has not seen: it must get them from its last resourceVersion.
      await churn(w, 'after');
      await w.patch('live-0', { late: 'yes' });
      await w.remove('live-4');
      await w.remove('before-5');
      h.setReconnect(true);
      await converge(h, w);
      expect(h.errors()).toBeGreaterThan(0); // it really lost its connection

      // And it keeps following.
      await churn(w, 'later');
      await converge(h, w);
    } finally {
      await h?.stop();
      c.destroy();
      await s.stop();
      removeDir(dir);
    }
  }, 120000);

  test('etcd: writes go on through a second replica while the first is down', async () => {
    const etcd: EtcdServer = await startEtcd();
    const started = await startReplicas(etcd.endpoints, 2, token);
    let [a] = started.replicas;
    const b = started.replicas[1];
    const argsA = started.args;
    const dirA = a.dataDir;
    let ca = KubeHttp.forDataDir(a.url, dirA, token);
    const cb = KubeHttp.forDataDir(b.url, dirA, token);
    let h: Harness | undefined;
    try {
      await setupNamespace(ca);
      let wa = new Writer(ca);
      const wb = new Writer(cb);
      await churn(wa, 'before');
      h = startInformer(a.kubeconfig); // connected to A
      await churn(wa, 'live');
      await churn(wb, 'liveb');
      await converge(h, wb);

      h.setReconnect(false);
      const bg = wb.background('through-b'); // B keeps writing across A's stop and restart
      if (signal === 'SIGKILL') {
        const bgA = wa.background('inflight-a');
        await new Promise((r) => setTimeout(r, 300));
        await a.stop('SIGKILL');
        await bgA.stop();
      } else {
        await a.stop('SIGTERM');
      }
      // While A is down: changes through B to objects the informer holds, and new ones.
      await churn(wb, 'down');
      await wb.patch('live-0', { whileDown: 'yes' });
      await wb.remove('live-4');
      await wb.remove('liveb-5');
      await wb.update('before-1', { replaced: 'yes' });
      a = await restartWindlass(a, argsA);
      ca.destroy();
      ca = KubeHttp.forDataDir(a.url, dirA, token);
      wa = new Writer(ca);
      await churn(wa, 'after');
      h.setReconnect(true);
      await new Promise((r) => setTimeout(r, 500));
      expect(await bg.stop()).toBeGreaterThan(0);
      await converge(h, wa);
      await converge(h, wb);
      expect(h.errors()).toBeGreaterThan(0);

      await churn(wb, 'later');
      await converge(h, wa);
    } finally {
      await h?.stop();
      ca.destroy();
      cb.destroy();
      await Promise.all([a.stop(), b.stop()]);
      await etcd.stop();
      [dirA, b.dataDir, started.tokenDir].forEach(removeDir);
    }
  }, 120000);
});
