/**
 * ResourceQuota admission (plugin/pkg/admission/resourcequota and k8s.io/apiserver
 * pkg/admission/plugin/resourcequota/controller.go), in the validating phase just before
 * storage: a write that would take a namespace's usage over a quota's `hard` is refused
 * (403, kube's messages), otherwise its usage is charged to every quota that tracks it by a
 * compare-and-swap write of the quota's status.used, re-checked against the current quota on
 * every retry so concurrent writers cannot both take the last unit. Dry runs are checked but
 * charge nothing. Usage itself is resourcequota-usage.ts's, shared with the quota controller.
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionLookup, AdmissionPlugin, KubeObject, StoreContext } from '../registry/types.js';
import {
  addLists, evaluatorFor, exceeded, mask, parseResourceList, prettyPrint, quotaMatches, removeZeros, resourceListJSON, subtractNonNegative,
  type Evaluator, type ResourceList,
} from './resourcequota-usage.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** Resources kube's quota configuration ignores (quota/v1/install: core events). */
const ignored = new Set(['/events']);

/** kube's liveLookupCache TTL: how long a namespace found without quotas on a cache miss is believed to have none. */
const liveLookupTTLMs = 30_000;
const liveLookups = new WeakMap<StoreContext, Map<string, { expires: number; items: KubeObject[] }>>();

/**
 * quotaAccessor.GetQuotas: the watch cache's quotas; when it has none, a live lookup, kept
 * for a while so a namespace without quotas costs no store read per write.
 */
async function quotasOf(attrs: AdmissionAttributes, quotas: AdmissionLookup, namespace: string): Promise<KubeObject[]> {
  const cached = await quotas.listCached?.(namespace);
  if (cached && cached.length > 0) return cached;
  if (!cached) return quotas.list(namespace);
  let memo = liveLookups.get(attrs.ctx);
  if (!memo) liveLookups.set(attrs.ctx, (memo = new Map()));
  const now = Date.now();
  const hit = memo.get(namespace);
  if (hit && hit.expires > now) return hit.items;
  const items = await quotas.list(namespace);
  if (memo.size > 10_000) memo.clear();
  memo.set(namespace, { expires: now + liveLookupTTLMs, items });
  return items;
}

interface QuotaState { hard: ResourceList; used: ResourceList }
const stateOf = (q: KubeObject): QuotaState => ({ hard: parseResourceList(obj(q.status).hard), used: parseResourceList(obj(q.status).used) });

/** hasUsageStats: every hard resource the evaluator tracks has a used value. */
const hasUsageStats = (s: QuotaState, restricted: string[]) => restricted.every((r) => !s.hard.has(r) || s.used.has(r));

function forbidden(e: Evaluator, o: KubeObject, message: string): Error {
  return newForbidden({ group: e.group, resource: e.resource }, o.metadata.name ?? '', message);
}

/**
 * Checks one quota that matches the object (kube's per-quota steps of CheckRequest) and
 * answers its new used, or undefined when the write changes nothing it tracks.
 */
function charge(e: Evaluator, quota: KubeObject, o: KubeObject, delta: ResourceList): ResourceList | undefined {
  const s = stateOf(quota);
  const name = quota.metadata.name ?? '';
  const restricted = e.matchingResources(s.hard.keys());
  const unmet = e.constraints?.(restricted, o);
  if (unmet) throw forbidden(e, o, `failed quota: ${name}: ${unmet}`);
  if (!hasUsageStats(s, restricted)) throw forbidden(e, o, `status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
  const requested = mask(delta, s.hard.keys());
  if (requested.size === 0) return undefined;
  const newUsage = addLists(s.used, requested);
  const over = exceeded(mask(newUsage, requested.keys()), s.hard);
  if (over.length > 0) {
    throw forbidden(e, o, `exceeded quota: ${name}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(s.used, over))}, limited: ${prettyPrint(mask(s.hard, over))}`);
  }
  return newUsage;
}

/** What the write adds to a quota: the object's usage, or on update its growth (when the old object was charged to it). */
function deltaFor(e: Evaluator, quota: KubeObject, attrs: AdmissionAttributes, usage: ResourceList, now: number): ResourceList {
  const old = attrs.old;
  if (attrs.operation !== 'UPDATE' || !old?.metadata.resourceVersion) return removeZeros(usage);
  if (!quotaMatches(e, quota, old, now)) return removeZeros(usage);
  return removeZeros(subtractNonNegative(usage, e.usage(old, now)));
}

async function admit(group: string, resource: string, attrs: AdmissionAttributes): Promise<void> {
  const namespace = attrs.obj.metadata.namespace;
  if (!namespace || ignored.has(`${group}/${resource}`)) return;
  const e = evaluatorFor(group, resource);
  if (!e.handles(attrs.operation, attrs.subresource)) return;
  const quotas = attrs.lookup('', 'resourcequotas');
  if (!quotas) return;
  const all = await quotasOf(attrs, quotas, namespace);
  if (all.length === 0) return;
  const now = Date.now();
  const o = attrs.obj;
  const matching = all.filter((q) => quotaMatches(e, q, o, now)).sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  if (matching.length === 0) return;
  const usage = e.usage(o, now);
  const negative = [...usage].filter(([, q]) => q.mantissa < 0n).map(([k]) => k).sort();
  if (negative.length > 0) throw forbidden(e, o, `quota usage is negative for resource(s): ${negative.join(',')}`);
  // Every quota is checked before any is charged, so a refusal leaves all of them untouched.
  const charges: Array<{ quota: KubeObject; delta: ResourceList }> = [];
  for (const quota of matching) {
    const delta = deltaFor(e, quota, attrs, usage, now);
    if (charge(e, quota, o, delta)) charges.push({ quota, delta });
  }
  if (attrs.dryRun || charges.length === 0) return;
  const writeStatus = quotas.updateStatus;
  if (!writeStatus) throw new Error('ResourceQuota admission needs a status writer for resourcequotas');
  for (const { quota, delta } of charges) {
    // Compare-and-swap against the stored quota, re-checked on every attempt; this replica's
    // charges of one quota go one at a time (kube's evaluator batches a namespace's work the same way).
    await serialized(attrs.ctx, `${namespace}/${quota.metadata.name ?? ''}`, () => writeStatus(namespace, quota.metadata.name ?? '', (current) => {
      if (!quotaMatches(e, current, o, now)) return current;
      const used = charge(e, current, o, delta);
      if (!used) return current;
      current.status = { ...obj(current.status), used: resourceListJSON(used) };
      return current;
    }));
  }
}

const queues = new WeakMap<StoreContext, Map<string, Promise<unknown>>>();

/** Runs `fn` after every earlier call for the same key (per server) has settled. */
async function serialized<T>(ctx: StoreContext, key: string, fn: () => Promise<T>): Promise<T> {
  let perServer = queues.get(ctx);
  if (!perServer) queues.set(ctx, (perServer = new Map()));
  const before = perServer.get(key) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const settled = run.catch(() => undefined);
  perServer.set(key, settled);
  void settled.then(() => { if (perServer.get(key) === settled) perServer.delete(key); });
  return run;
}

/** The plugin for one resource (the evaluator depends on it; attributes do not name it). */
export function resourceQuotaAdmission(group: string, resource: string): AdmissionPlugin {
  return { name: 'ResourceQuota', validate: (attrs) => admit(group, resource, attrs) };
}
