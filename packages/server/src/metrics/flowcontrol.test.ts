/**
 * apiserver_flowcontrol_read_vs_write_current_requests as kube's max-in-flight filter records
 * it (component-base's timing ratio histogram: nanoseconds spent at each fraction of the
 * limit), on a fake clock and on a real server under concurrent requests.
 */
import { EmbeddedStorage } from '@windlass/storage';
import { Registry } from 'prom-client';
import { InflightLimiter } from '../filters/inflight.js';
import { startTestServer, type TestServer } from '../testing/client.js';
import { samples, value } from '../testing/scrape.js';
import { RequestKindSeries, readVsWriteFamily } from './flowcontrol.js';
import { Gauge } from './series.js';

const name = 'apiserver_flowcontrol_read_vs_write_current_requests';
const kubeBuckets = ['0', '0.001', '0.01', '0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '0.95', '0.99', '1', '+Inf'];

/** Cumulative bucket values of one member, by `le`. */
function buckets(text: string, kind: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples(text, `${name}_bucket`)) if (s.labels.request_kind === kind && s.labels.phase === 'executing') out[s.labels.le] = s.value;
  return out;
}

function setup(limits: { maxRequestsInflight: number; maxMutatingRequestsInflight: number }) {
  let now = 0;
  const family = readVsWriteFamily(() => now);
  const inflight = new Gauge('apiserver_current_inflight_requests', 'help', ['request_kind']);
  const registry = new Registry();
  family.register(registry);
  inflight.register(registry);
  const limiter = new InflightLimiter(limits, {
    readOnly: new RequestKindSeries('readOnly', inflight.child('readOnly'), family),
    mutating: new RequestKindSeries('mutating', inflight.child('mutating'), family),
  });
  return { limiter, registry, at: (ns: number) => { now = ns; } };
}

describe('read_vs_write_current_requests', () => {
  it('accumulates the nanoseconds spent at each fraction of the limit', async () => {
    const { limiter, registry, at } = setup({ maxRequestsInflight: 4, maxMutatingRequestsInflight: 2 });
    try {
      at(1e9);
      expect(limiter.tryAcquire(false, undefined)).toBe('slot');
      expect(limiter.tryAcquire(false, undefined)).toBe('slot'); // 2/4 from t=1s
      at(3e9);
      expect(limiter.tryAcquire(false, undefined)).toBe('slot');
      expect(limiter.tryAcquire(false, undefined)).toBe('slot'); // 4/4 from t=3s
      expect(limiter.tryAcquire(false, undefined)).toBeNull(); // the fifth is refused: no change
      at(3.5e9);
      for (let i = 0; i < 4; i++) limiter.release(false, 'slot'); // 0 from t=3.5s
      expect(limiter.tryAcquire(true, undefined)).toBe('slot'); // mutating 1/2 from t=3.5s
      at(4e9);
      const text = await registry.metrics();
      expect(text).toContain(`# TYPE ${name} histogram`);
      const ro = buckets(text, 'readOnly');
      expect(samples(text, `${name}_bucket`).filter((b) => b.labels.request_kind === 'readOnly').map((b) => b.labels.le)).toEqual(kubeBuckets);
      // 1 s at 0, 2 s at 0.5, 0.5 s at 1, 0.5 s at 0 (the 1/4 and 3/4 steps took no time).
      expect(ro['0']).toBe(1.5e9);
      expect(ro['0.4']).toBe(1.5e9);
      expect(ro['0.5']).toBe(3.5e9);
      expect(ro['0.99']).toBe(3.5e9);
      expect(ro['1']).toBe(4e9);
      expect(ro['+Inf']).toBe(4e9);
      expect(value(text, `${name}_count`, { request_kind: 'readOnly' })).toBe(4e9);
      expect(value(text, `${name}_sum`, { request_kind: 'readOnly' })).toBe(0.5 * 2e9 + 1 * 0.5e9);
      const mu = buckets(text, 'mutating');
      expect(mu['0']).toBe(3.5e9);
      expect(mu['0.5']).toBe(4e9);
      expect(value(text, `${name}_sum`, { request_kind: 'mutating' })).toBe(0.5 * 0.5e9);
      // Only the executing phase: a max-in-flight server never queues.
      expect(samples(text, `${name}_count`).map((s) => `${s.labels.phase}/${s.labels.request_kind}`).sort()).toEqual(['executing/mutating', 'executing/readOnly']);
    } finally {
      limiter.stop();
    }
  });

  it('never shows more than the limit: a privileged request beyond it is served without a slot', async () => {
    const { limiter, registry, at } = setup({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    try {
      expect(limiter.tryAcquire(false, ['system:authenticated'])).toBe('slot');
      at(1e9);
      expect(limiter.tryAcquire(false, ['system:masters'])).toBe('exempt');
      expect(limiter.tryAcquire(false, ['system:masters'])).toBe('exempt');
      at(2e9);
      const ro = buckets(await registry.metrics(), 'readOnly');
      expect(ro['1']).toBe(2e9);
      expect(ro['+Inf']).toBe(ro['1']);
      // Every admitted request is still waited for on shutdown.
      expect(limiter.inflight).toBe(3);
      // The slot freed by the ordinary request is free, though privileged ones still run (kube's channel).
      limiter.release(false, 'slot');
      expect(limiter.tryAcquire(false, ['system:authenticated'])).toBe('slot');
      expect(limiter.tryAcquire(false, ['system:authenticated'])).toBeNull();
      limiter.release(false, 'exempt');
      limiter.release(false, 'exempt');
      expect(limiter.inflight).toBe(1);
    } finally {
      limiter.stop();
    }
  });

  it('takes a clock reading the caller already has (performance.now() milliseconds)', async () => {
    const { limiter, registry, at } = setup({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 2 });
    try {
      at(10e9); // the series' own clock, not read when the caller passes one
      expect(limiter.tryAcquire(false, undefined, 1000)).toBe('slot'); // 1 s at 0, then 1/2
      limiter.release(false, 'slot', 1250); // 0.25 s at 0.5
      at(2e9);
      const ro = buckets(await registry.metrics(), 'readOnly');
      expect(ro['0']).toBe(1.75e9);
      expect(ro['0.5']).toBe(2e9);
    } finally {
      limiter.stop();
    }
  });

  it('is made only for a kind with a limit to measure, and not at all when there is none', async () => {
    const none = setup({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 });
    none.limiter.stop();
    expect(samples(await none.registry.metrics(), `${name}_count`)).toEqual([]);

    const { limiter, registry, at } = setup({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 0 });
    try {
      for (let i = 0; i < 5; i++) expect(limiter.tryAcquire(true, undefined)).toBe('slot');
      at(1e9);
      const text = await registry.metrics();
      // kube makes both members at setup; the unlimited kind has no channel and stays at 0 (denominator 1).
      expect(buckets(text, 'mutating')['0']).toBe(1e9);
      expect(value(text, `${name}_sum`, { request_kind: 'mutating' })).toBe(0);
    } finally {
      limiter.stop();
    }
  });
});

describe('read_vs_write_current_requests on a server', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('follows the slots concurrent requests hold, and stays within the limit under a flood', async () => {
    const began = performance.now();
    t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }), operations: { maxRequestsInflight: 4, maxMutatingRequestsInflight: 2 }, cacher: { freshnessTimeoutMs: 1000 } });
    const s = t;
    const cms = '/api/v1/namespaces/default/configmaps';
    expect((await s.call('POST', cms, { body: { metadata: { name: 'x' } } })).status).toBe(201);
    const slow = () => s.call('GET', `${cms}/x?resourceVersion=99999999`);
    const scrape = async () => (await s.call('GET', '/metrics')).text;

    // Two reads waiting ~1 s for a revision that never comes: 2 of 4 slots.
    const before = buckets(await scrape(), 'readOnly');
    expect((await Promise.all([slow(), slow()])).map((r) => r.status)).toEqual([504, 504]);
    let text = await scrape();
    let after = buckets(text, 'readOnly');
    const atHalf = (after['0.5'] - after['0.4']) - (before['0.5'] - before['0.4']);
    expect(atHalf).toBeGreaterThan(0.9e9);
    expect(atHalf).toBeLessThan(1.5e9);
    // _count is the nanoseconds since the filter was set up.
    const count = value(text, `${name}_count`, { request_kind: 'readOnly' })!;
    expect(count).toBeLessThanOrEqual((performance.now() - began) * 1e6);
    expect(count).toBeGreaterThan(1e9);

    // A flood of 10: 4 hold every slot for ~1 s, 6 are refused; the ratio reaches 1, never beyond.
    const flood = await Promise.all(Array.from({ length: 10 }, () => slow()));
    expect(flood.filter((r) => r.status === 429)).toHaveLength(6);
    expect(flood.filter((r) => r.status === 504)).toHaveLength(4);
    const prev = after;
    text = await scrape();
    after = buckets(text, 'readOnly');
    expect((after['1'] - after['0.99']) - (prev['1'] - prev['0.99'])).toBeGreaterThan(0.9e9);
    expect(after['+Inf']).toBe(after['1']);
    // Writes took their own slots (1 of 2) only for the create.
    const mu = buckets(text, 'mutating');
    expect(mu['0.5']).toBe(mu['+Inf']);
    expect(mu['0']).toBeGreaterThan(mu['+Inf'] - 0.5e9);
    expect(value(text, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', code: '429' })).toBe(6);
  }, 20_000);
});
