/**
 * kubernetes-mixin's apiserver recording rules, SLO alerts and API server dashboard, as
 * kube-prometheus renders them (test/mixin/), evaluated by a real Prometheus scraping a
 * Windlass server after a known request mix. Prometheus is told nothing about Windlass but
 * the scrape target: the job is named `apiserver`, as the rules' selectors expect, and the
 * rules are loaded unchanged except that every group evaluates each second (the
 * availability group's 3m would outlast the test; its 30d windows still evaluate).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { adminToken, httpsCall, removeDir, startWindlass, tempDir, type RunningServer } from './harness.js';
import { KubeHttp } from './kubehttp.js';
import { Prometheus, type PromRule } from './prometheus.js';

// js-yaml's types are not a dependency of this package.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };
const mixinDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'mixin');
const scrapeSeconds = 1;
const rounds = 4;

/** Recording rules that have no series after this mix on any kube-apiserver either. */
const emptyRecordingRules: { record: string; queryIncludes: string; why: string }[] = [
  {
    record: 'code_verb:apiserver_request_total:increase1h', queryIncludes: 'code=~"3.."',
    why: 'no request of the mix is answered with a 3xx (kube counts 3xx only for 304s of /openapi/v3 to clients sending If-None-Match)',
  },
];

/** Dashboard panels whose metrics a single Windlass replica cannot have. */
const emptyPanels: Record<string, string> = {
  'Work Queue Add Rate': "workqueue_* are client-go workqueue metrics of kube-apiserver's controllers; Windlass's controllers use no work queues",
  'Work Queue Depth': 'as Work Queue Add Rate',
  'Work Queue Latency': 'as Work Queue Add Rate',
  Goroutines: 'go_goroutines is a Go runtime metric; Node has no goroutines',
};

interface Dashboard {
  templating: { list: { name: string; query?: unknown }[] };
  panels: { id: number; title: string; targets: { expr: string }[] }[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function configMap(name: string, data: Record<string, string> = { k: 'v' }): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

const ns = '/api/v1/namespaces/mixin';

async function expectStatus(p: Promise<{ status: number; text: string }>, status: number, what: string): Promise<void> {
  const r = await p;
  if (r.status !== status) throw new Error(`${what}: ${r.status} (want ${status}): ${r.text.slice(0, 300)}`);
}

/**
 * A running pod selected by two PodDisruptionBudgets: kube's eviction answers it 500 ("more
 * than one PodDisruptionBudget"), a server error on a write, as kube would count it.
 */
async function podWithTwoBudgets(k: KubeHttp): Promise<void> {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'guarded', labels: { app: 'guarded' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  await expectStatus(k.request('POST', `${ns}/pods`, pod), 201, 'create pod');
  await expectStatus(k.request('PATCH', `${ns}/pods/guarded/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json'), 200, 'pod running');
  for (const name of ['one', 'two']) {
    const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 0, selector: { matchLabels: { app: 'guarded' } } } };
    await expectStatus(k.request('POST', '/apis/policy/v1/namespaces/mixin/poddisruptionbudgets', pdb), 201, 'create pdb');
  }
}

/**
 * Server errors on reads and writes as kube gives them: a list waiting for a resourceVersion
 * the store never reaches (504 after 3 s), an eviction kube cannot decide (500). The lists go
 * over connections of their own, all at once, so they take 3 s together.
 */
async function serverErrors(server: RunningServer, k: KubeHttp, count: number): Promise<void> {
  const token = adminToken(server);
  const lists = Array.from({ length: count }, () => expectStatus(httpsCall(server, 'GET', `${ns}/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`, { token }), 504, 'list too large RV'));
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded', namespace: 'mixin' } };
  for (let i = 0; i < count; i++) await expectStatus(k.request('POST', `${ns}/pods/guarded/eviction`, eviction), 500, 'evict');
  await Promise.all(lists);
}

/** One round of requests; `round` keeps names apart. Statuses are checked so the mix is what it claims. */
async function requestMix(k: KubeHttp, round: number): Promise<void> {
  const expect = expectStatus;
  const cms = `${ns}/configmaps`;
  // Watches running beside the other requests, ended by the server after a second: long-running requests.
  const watches = [cms, '/api/v1/configmaps'].map((path) => k.request('GET', `${path}?watch=1&timeoutSeconds=1`));
  for (let i = 0; i < 5; i++) await expect(k.request('POST', cms, configMap(`cm-${round}-${i}`)), 201, 'create');
  // A large object: its create and the lists holding it are the mix's slower, bigger requests.
  await expect(k.request('POST', cms, configMap(`big-${round}`, { blob: 'x'.repeat(400_000) })), 201, 'create big');
  for (let i = 0; i < 5; i++) await expect(k.request('GET', `${cms}/cm-${round}-${i}`), 200, 'get');
  await expect(k.request('GET', `${cms}/absent`), 404, 'get absent');
  await expect(k.request('GET', cms), 200, 'list namespace');
  await expect(k.request('GET', '/api/v1/configmaps'), 200, 'list cluster');
  await expect(k.request('GET', '/api/v1/namespaces'), 200, 'list namespaces');
  await expect(k.request('GET', '/apis/apps/v1/namespaces/mixin/deployments'), 200, 'list deployments');
  await expect(k.request('POST', cms, configMap(`cm-${round}-0`)), 409, 'create existing');
  await expect(k.request('PUT', `${cms}/cm-${round}-1`, { ...(configMap(`cm-${round}-1`) as object), metadata: { name: `cm-${round}-1`, resourceVersion: '1' } }), 409, 'stale update');
  await expect(k.request('POST', cms, configMap('Not_A_DNS_Name')), 422, 'invalid create');
  await expect(k.request('PATCH', `${cms}/cm-${round}-2`, { data: { k: 'patched' } }, 'application/merge-patch+json'), 200, 'patch');
  await expect(k.request('DELETE', `${cms}/cm-${round}-3`), 200, 'delete');
  await expect(k.request('PATCH', `${ns}/pods/guarded`, { metadata: { annotations: { round: String(round) } } }, 'application/merge-patch+json'), 200, 'patch pod');
  for (const w of await Promise.all(watches)) if (w.status !== 200) throw new Error(`watch: ${w.status}: ${w.text.slice(0, 300)}`);
}

/** Grafana's substitutions: template variables from Prometheus' label values, $__rate_interval as 4 scrape intervals. */
async function panelQuery(prom: Prometheus, expr: string): Promise<string> {
  const clusters = await prom.labelValues('cluster', 'up{job="apiserver"}');
  const cluster = clusters[0] ?? '';
  const instances = await prom.labelValues('instance', `up{job="apiserver", cluster="${cluster}"}`);
  // includeAll without allValue: Grafana joins every value, regex-escaped, into one alternation;
  // in a PromQL string literal each backslash of the regex is written twice.
  const instance = `(${instances.map((i) => i.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&')).join('|')})`;
  return expr.replaceAll('$cluster', cluster).replaceAll('$instance', instance).replaceAll('$__rate_interval', `${4 * scrapeSeconds}s`);
}

function ruleId(r: PromRule): string {
  return `${r.name}${r.labels && Object.keys(r.labels).length ? JSON.stringify(r.labels) : ''}`;
}

async function checkMixin(server: RunningServer): Promise<void> {
  const work = tempDir('windlass-mixin-');
  let prom: Prometheus | undefined;
  const k = KubeHttp.forDataDir(server.url, server.dataDir, adminToken(server));
  try {
    // The rules as rendered, each group evaluated every second.
    const rules = yaml.load(readFileSync(join(mixinDir, 'apiserver-rules.yaml'), 'utf8')) as { groups: { interval?: string }[] };
    for (const g of rules.groups) g.interval = '1s';
    const rulesFile = join(work, 'rules.yaml');
    writeFileSync(rulesFile, JSON.stringify(rules, null, 2));
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, adminToken(server));
    mkdirSync(join(work, 'prom'));
    // Before monitoring begins the server has answered a few 5xx, as any long-running one has:
    // the burn-rate rules add the 5xx rate without `or vector(0)`, so they have no series until a
    // 5xx series exists (kubernetes-mixin#690; the same on kube-apiserver).
    await expectStatus(k.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mixin' } }), 201, 'create namespace');
    await podWithTwoBudgets(k);
    const pastErrors = serverErrors(server, k, 1);
    prom = await Prometheus.start(join(work, 'prom'), {
      job: 'apiserver', target: `127.0.0.1:${server.port}`, caFile: join(server.dataDir, 'pki', 'ca.crt'), serverName: 'localhost',
      tokenFile, intervalSeconds: scrapeSeconds, paths: ['/metrics', '/metrics/slis'],
    }, [rulesFile], 1);
    await pastErrors;
    const p = prom;

    // Both paths kube-prometheus scrapes on kube-apiserver answer: a failing one is `up == 0`, which KubeAPIInstanceUnreachable alerts on.
    const scraped = async () => (await p.query('up{job="apiserver"} == 1')).length === 2;
    for (let deadline = Date.now() + 15000; !(await scraped()); await sleep(200)) {
      if (Date.now() > deadline) throw new Error(`target never up: ${JSON.stringify(await p.query('up'))}\n${p.output()}`);
    }
    const mixStart = Date.now() / 1000;
    // Rounds a scrape apart, so every counter has risen between samples the rates see.
    for (let round = 0; round < rounds; round++) {
      const started = Date.now();
      await requestMix(k, round);
      await sleep(Math.max(0, scrapeSeconds * 1000 + 100 - (Date.now() - started)));
    }
    const mixEnd = Date.now();

    // Recording rules: wait for two evaluations after the last scrape of the mix (the availability chain reads its own previous output).
    const evaluatedAfter = async (t: number) => (await p.ruleGroups()).every((g) => g.rules.every((r) => Date.parse(r.lastEvaluation) > t));
    for (let deadline = Date.now() + 15000; !(await evaluatedAfter(mixEnd + 2 * scrapeSeconds * 1000)); await sleep(250)) {
      if (Date.now() > deadline) throw new Error('rules not evaluated after the mix');
    }
    const groups = await p.ruleGroups();
    const all = groups.flatMap((g) => g.rules);
    expect(groups.map((g) => g.name).sort()).toEqual(['kube-apiserver-availability.rules', 'kube-apiserver-burnrate.rules', 'kube-apiserver-histogram.rules',
      'kube-apiserver-slos', 'kubernetes-system', 'kubernetes-system-apiserver']);
    expect(all.filter((r) => r.health !== 'ok').map((r) => `${ruleId(r)}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);

    const recording = all.filter((r) => r.type === 'recording');
    expect(recording.length).toBe(32);
    const noSeries: string[] = [];
    const unexpectedSeries: string[] = [];
    for (const r of recording) {
      const exempt = emptyRecordingRules.find((e) => e.record === r.name && r.query.includes(e.queryIncludes));
      const n = (await p.query(r.query)).length;
      if (exempt && n > 0) unexpectedSeries.push(`${ruleId(r)}: ${exempt.why}`);
      if (!exempt && n === 0) noSeries.push(`${ruleId(r)}: ${r.query}`);
    }
    expect(noSeries).toEqual([]);
    expect(unexpectedSeries).toEqual([]);
    // What the rule engine stored, by name and the rule's own labels.
    const notStored: string[] = [];
    for (const r of recording) {
      const exempt = emptyRecordingRules.some((e) => e.record === r.name && r.query.includes(e.queryIncludes));
      const selector = Object.entries(r.labels ?? {}).map(([l, v]) => `${l}="${v}"`).join(',');
      if (!exempt && (await p.query(`${r.name}{${selector}}`)).length === 0) notStored.push(ruleId(r));
    }
    expect(notStored).toEqual([]);

    // The availability of a mix without new 5xx or slow requests is 1 for reads, writes and both.
    const availability = await p.query('apiserver_request:availability30d');
    expect(availability.map((s) => s.metric.verb).sort()).toEqual(['all', 'read', 'write']);
    for (const s of availability) expect(Number(s.value![1])).toBeCloseTo(1, 9);
    // Every burn rate (read and write, 5m to 3d) below the lowest alert threshold (1 × 1% budget).
    const burn = await p.query('{__name__=~"apiserver_request:burnrate.*"}');
    expect(burn.length).toBe(14);
    expect(burn.filter((s) => !(Math.abs(Number(s.value![1])) < 0.01)).map((s) => `${s.metric.__name__}{verb=${s.metric.verb}} = ${s.value![1]}`)).toEqual([]);
    // The SLO alerts (and every other alert of the groups) evaluate and do not fire.
    const alerts = all.filter((r) => r.type === 'alerting');
    expect(alerts.filter((r) => r.name === 'KubeAPIErrorBudgetBurn').length).toBe(4);
    for (const a of alerts.filter((r) => r.name === 'KubeAPIErrorBudgetBurn')) expect(await p.query(a.query)).toEqual([]);
    expect(alerts.filter((r) => r.state !== 'inactive').map((r) => `${r.name}: ${r.state}`)).toEqual([]);
    // KubeVersionMismatch reads kubernetes_build_info: one version, as /version reports it.
    const version = (await k.request('GET', '/version')).body as { gitVersion: string };
    expect((await p.query('kubernetes_build_info{job="apiserver"}')).map((s) => s.metric.git_version)).toEqual([version.gitVersion]);
    // The series behind the SLO: the mix's 404s, 409s and 422s counted beside its successes, the past 5xx at rate 0.
    const rates = async (verb: string) => Object.fromEntries((await p.query(`sum by (code) (code_resource:apiserver_request_total:rate5m{verb="${verb}"})`)).map((s) => [s.metric.code, Number(s.value![1])]));
    const writes = await rates('write');
    expect(Object.keys(writes).sort()).toEqual(['200', '201', '409', '422', '500']);
    expect(writes['500']).toBe(0);
    const reads = await rates('read');
    expect(Object.keys(reads).sort()).toEqual(['200', '404', '504']);
    expect(reads['504']).toBe(0);

    // The API server dashboard: every panel query returns data, but for the metrics Windlass cannot have.
    const dashboard = JSON.parse(readFileSync(join(mixinDir, 'apiserver-dashboard.json'), 'utf8')) as Dashboard;
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'cluster', 'instance']);
    const noData: string[] = [];
    const unexpectedData: string[] = [];
    const end = Date.now() / 1000;
    for (const panel of dashboard.panels) {
      for (const t of panel.targets) {
        const expr = await panelQuery(p, t.expr);
        const result = await p.queryRange(expr, mixStart, end, 1);
        const points = result.reduce((n, s) => n + (s.values ?? []).filter(([, v]) => v !== 'NaN').length, 0);
        const why = emptyPanels[panel.title];
        if (why && points > 0) unexpectedData.push(`${panel.title}: ${why}`);
        if (!why && points === 0) noData.push(`${panel.title}: ${expr}`);
      }
    }
    expect(noData).toEqual([]);
    expect(unexpectedData).toEqual([]);

    // A burst of server errors on reads and writes: the read and the write burn rates both pass
    // the fast-burn threshold (14.4 × 1%) and the four error budget alerts go pending (their
    // `for` outlasts the test).
    await serverErrors(server, k, 20);
    const burning = async () => (await p.query('apiserver_request:burnrate5m > 0.144 and apiserver_request:burnrate1h > 0.144')).map((s) => s.metric.verb).sort();
    const budgetAlerts = async () => (await p.ruleGroups()).flatMap((g) => g.rules).filter((r) => r.name === 'KubeAPIErrorBudgetBurn').map((r) => r.state);
    for (let deadline = Date.now() + 15000; ; await sleep(250)) {
      const [verbs, states] = [await burning(), await budgetAlerts()];
      if (verbs.join() === 'read,write' && states.join() === 'pending,pending,pending,pending') break;
      if (Date.now() > deadline) throw new Error(`after the burst: burning ${verbs}, error budget alerts ${states}; burn rates ${JSON.stringify(await p.query('apiserver_request:burnrate5m'))}`);
    }
  } catch (err) {
    if (prom) (err as Error).message += `\nprometheus output:\n${prom.output().slice(-3000)}\nscrapes of the target: ${JSON.stringify(await prom.query('count_over_time(up[10m])').catch(() => 'unknown'))}`;
    throw err;
  } finally {
    k.destroy();
    await prom?.stop();
    removeDir(work);
  }
}

describe('kubernetes-mixin on Windlass /metrics', () => {
  test('embedded store: apiserver rules, SLO alerts and dashboard evaluate', async () => {
    const server = await startWindlass();
    try {
      await checkMixin(server);
    } finally {
      await server.stop();
      removeDir(server.dataDir);
    }
  }, 60000);

  test('etcd: apiserver rules, SLO alerts and dashboard evaluate', async () => {
    let etcd: EtcdServer | undefined;
    let server: RunningServer | undefined;
    try {
      etcd = await startEtcd();
      // The default for etcd: a worker per core, whose /metrics is the primary's sum over all of them.
      server = await startWindlass(['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')]);
      await checkMixin(server);
    } finally {
      await server?.stop();
      if (server) removeDir(server.dataDir);
      await etcd?.stop();
    }
  }, 60000);
});
