/**
 * What the server does to a Pod body before storage, timed in its own process: typed decoding
 * against the schema, the Pod's scheme defaults, its strategy (prepareForCreate, validation)
 * and the Go zero-value fill — the same functions the Store calls, on the same body the load
 * generator sends. Prints one JSON line: µs per Pod, median and p99 of each step and in all.
 */
import { performance } from 'node:perf_hooks';
import { builtinResources } from '@windlass/server';
import { decoderFor, goEncoderFor, loadGoTypes, loadSchemas } from '@windlass/schemas';
import { podTemplate } from './podbody.js';

const iterations = Number(process.env.BENCH_MICRO_ITER ?? 20000);
const warmup = Math.min(5000, iterations);

const schemas = await loadSchemas();
await loadGoTypes();
const def = builtinResources.find((d) => d.group === '' && d.resource === 'pods')!;
const decode = decoderFor(schemas, def)!;
const fill = goEncoderFor(schemas, def)!;
const s = def.strategy;
const text = podTemplate().replace('__NAME__', 'checkout-7d9f8c6b5d-x2k9q');

const steps = {
  parse: [] as number[], decode: [] as number[], defaults: [] as number[], strategy: [] as number[], validate: [] as number[], fill: [] as number[], total: [] as number[],
};
for (let i = 0; i < warmup + iterations; i++) {
  const t0 = performance.now();
  const obj = JSON.parse(text);
  const t1 = performance.now();
  decode(obj, []);
  const t2 = performance.now();
  s.defaults?.(obj);
  const t3 = performance.now();
  obj.metadata.uid = 'f3a9c0de-0000-4000-8000-000000000000';
  obj.metadata.creationTimestamp = '2026-11-24T12:00:00Z';
  s.prepareForCreate?.(obj);
  const t4 = performance.now();
  const errs = s.validate?.(obj) ?? [];
  const t5 = performance.now();
  fill(obj);
  const t6 = performance.now();
  if (errs.length > 0) throw new Error(`the bench Pod is invalid: ${JSON.stringify(errs)}`);
  if (i < warmup) continue;
  steps.parse.push((t1 - t0) * 1000);
  steps.decode.push((t2 - t1) * 1000);
  steps.defaults.push((t3 - t2) * 1000);
  steps.strategy.push((t4 - t3) * 1000);
  steps.validate.push((t5 - t4) * 1000);
  steps.fill.push((t6 - t5) * 1000);
  steps.total.push((t6 - t0) * 1000);
}

const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1));
};
const out: Record<string, { p50: number; p99: number }> = {};
for (const [k, xs] of Object.entries(steps)) out[k] = { p50: pct(xs, 0.5), p99: pct(xs, 0.99) };
process.stdout.write(JSON.stringify({ bytes: text.length, iterations, hasDefaults: !!s.defaults, hasValidate: !!s.validate, us: out }) + '\n');
