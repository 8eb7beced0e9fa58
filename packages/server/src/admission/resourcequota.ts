/**
 * ResourceQuota admission (plugin/pkg/admission/resourcequota and k8s.io/apiserver
 * pkg/admission/plugin/resourcequota/controller.go), in the validating phase just before
 * storage: a write that would take a namespace's usage over a quota's `hard` is refused
 * (403, kube's messages), otherwise its usage is charged to every quota that tracks it by a
 * compare-and-swap write of the quota's status.used, re-checked against the current quota on
 * every retry so concurrent writers cannot both take the last unit. Dry runs are checked but
 * charge nothing. Usage itself is resourcequota-usage.ts's, shared with the quota controller;
 * the limitedResources it enforces come from --admission-control-config-file
 * (resourcequota-config.ts, admissionconfig.ts). Ported from k8s.io/apiserver v0.35.
 */
import { newForbidden, newUntypedError } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionLookup, AdmissionPlugin, KubeObject, StoreContext } from '../registry/types.js';
import {
  addLists, evaluatorFor, exceeded, goScopeSelectors, isIgnoredResource, mask, matchingScopes, obj, parseResourceList, prettyPrint, quotaMatches,
  quotaScopeSelectors, removeZeros, resourceListJSON, subtractNonNegative, uncoveredScopes, type Evaluator, type ResourceList, type ScopeSelector,
} from './resourcequota-usage.js';
import { resourceQuotaConfiguration, type LimitedResource } from './resourcequota-config.js';

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

/** The per-quota refusals of CheckRequest's first pass: a required resource missing, usage not yet known. */
function checkMatching(e: Evaluator, quota: KubeObject, o: KubeObject): string[] {
  const s = stateOf(quota);
  const name = quota.metadata.name ?? '';
  const restricted = e.matchingResources(s.hard.keys());
  const unmet = e.constraints?.(restricted, o);
  if (unmet) throw forbidden(e, o, `failed quota: ${name}: ${unmet}`);
  if (!hasUsageStats(s, restricted)) throw forbidden(e, o, `status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
  return restricted;
}

/**
 * One quota's new used with the write's delta added, or undefined when the delta touches
 * nothing it limits. Beyond hard is refused, except on status writes, which kube charges
 * unchecked (a claim's allocation already happened).
 */
function charged(e: Evaluator, quota: KubeObject, o: KubeObject, delta: ResourceList, subresource: string): ResourceList | undefined {
  const s = stateOf(quota);
  const requested = mask(delta, s.hard.keys());
  if (requested.size === 0) return undefined;
  const newUsage = addLists(s.used, requested);
  const over = subresource === 'status' ? [] : exceeded(mask(newUsage, requested.keys()), s.hard);
  if (over.length > 0) {
    throw forbidden(e, o, `exceeded quota: ${quota.metadata.name ?? ''}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(s.used, over))}, limited: ${prettyPrint(mask(s.hard, over))}`);
  }
  return newUsage;
}

/** limitedByDefault: the consumed (positive) resources whose names contain a configured substring. */
function limitedByDefault(usage: ResourceList, limited: LimitedResource[]): string[] {
  const out = new Set<string>();
  for (const l of limited) {
    for (const [name, q] of usage) if (q.mantissa > 0n && l.matchContains.some((m) => name.includes(m))) out.add(name);
  }
  return [...out];
}

interface Charge { quota: KubeObject; delta: ResourceList }

/**
 * CheckRequest (controller.go): which quotas the write is charged to and how much, after
 * kube's checks in kube's order: per matching quota its constraints and usage stats; the
 * object's usage (never negative); each quota's delta (on update, the growth over the old
 * object when the old one was charged to it too); then, when the write consumes anything,
 * the configured limitedResources (a covering quota for each limited resource and scope);
 * and last each quota's hard.
 */
function checkRequest(e: Evaluator, quotas: KubeObject[], attrs: AdmissionAttributes, limited: LimitedResource[], gr: { group: string; resource: string }, now: number): Charge[] {
  const o = attrs.obj;
  const limitedScopes = limited.flatMap((l) => matchingScopes(e, o, l.matchScopes, now));
  const limitedHere = limited.filter((l) => l.apiGroup === gr.group && l.resource === gr.resource);
  const limitedNames = limitedHere.length > 0 ? limitedByDefault(e.usage(o, now), limitedHere) : [];

  const interesting: KubeObject[] = [];
  const restrictedResources = new Set<string>();
  const restrictedScopes: ScopeSelector[] = [];
  for (const quota of quotas) {
    restrictedScopes.push(...matchingScopes(e, o, quotaScopeSelectors(quota), now));
    if (!quotaMatches(e, quota, o, now)) continue;
    for (const r of checkMatching(e, quota, o)) restrictedResources.add(r);
    interesting.push(quota);
  }

  const usage = e.usage(o, now);
  const negative = [...usage].filter(([, q]) => q.mantissa < 0n).map(([k]) => k).sort();
  if (negative.length > 0) throw forbidden(e, o, `quota usage is negative for resource(s): ${negative.join(',')}`);

  const deltas = new Map<KubeObject, ResourceList>(interesting.map((q) => [q, usage]));
  let withoutQuota: ResourceList = attrs.operation === 'CREATE' && interesting.length === 0 ? usage : new Map();
  if (attrs.operation === 'UPDATE') {
    const old = attrs.old;
    if (!old) throw forbidden(e, o, 'unable to get previous usage since prior version of object was not found');
    if (old.metadata.resourceVersion) {
      const delta = subtractNonNegative(usage, e.usage(old, now));
      if (interesting.length === 0) withoutQuota = delta;
      for (const quota of interesting) if (quotaMatches(e, quota, old, now)) deltas.set(quota, delta);
    } else if (interesting.length === 0) {
      withoutQuota = usage;
    }
  }
  for (const [quota, delta] of deltas) {
    const nonZero = removeZeros(delta);
    if (nonZero.size === 0) deltas.delete(quota);
    else deltas.set(quota, nonZero);
  }
  // A write that consumes nothing needs no quota, limited or not.
  if (interesting.length > 0 ? deltas.size === 0 : removeZeros(withoutQuota).size === 0) return [];

  const uncoveredNames = [...new Set(limitedNames)].filter((n) => !restrictedResources.has(n)).sort();
  if (uncoveredNames.length > 0) throw forbidden(e, o, `insufficient quota to consume: ${uncoveredNames.join(',')}`);
  const uncovered = uncoveredScopes(limitedScopes, restrictedScopes);
  // kube answers this one with a plain error, which reaches the client as a 500 without a reason.
  if (uncovered.length > 0) throw newUntypedError(`insufficient quota to match these scopes: ${goScopeSelectors(uncovered)}`);

  const charges: Charge[] = [];
  for (const quota of interesting) {
    const delta = deltas.get(quota);
    if (delta && charged(e, quota, o, delta, attrs.subresource)) charges.push({ quota, delta });
  }
  return charges;
}

async function admit(group: string, resource: string, attrs: AdmissionAttributes): Promise<void> {
  const namespace = attrs.obj.metadata.namespace;
  if (!namespace || isIgnoredResource(group, resource)) return;
  const e = evaluatorFor(group, resource);
  if (!e.handles(attrs)) return;
  const quotas = attrs.lookup('', 'resourcequotas');
  if (!quotas) return;
  const { limitedResources } = resourceQuotaConfiguration(attrs.ctx);
  const all = await quotasOf(attrs, quotas, namespace);
  if (all.length === 0 && limitedResources.length === 0) return;
  const now = Date.now();
  const o = attrs.obj;
  const sorted = [...all].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  // Every quota is checked before any is charged, so a refusal leaves all of them untouched.
  const charges = checkRequest(e, sorted, attrs, limitedResources, { group, resource }, now);
  if (attrs.dryRun || charges.length === 0) return;
  const writeStatus = quotas.updateStatus;
  if (!writeStatus) throw new Error('ResourceQuota admission needs a status writer for resourcequotas');
  for (const { quota, delta } of charges) {
    // Compare-and-swap against the stored quota, re-checked on every attempt; this replica's
    // charges of one quota go one at a time (kube's evaluator batches a namespace's work the same way).
    await serialized(attrs.ctx, `${namespace}/${quota.metadata.name ?? ''}`, () => writeStatus(namespace, quota.metadata.name ?? '', (current) => {
      if (!quotaMatches(e, current, o, now)) return current;
      checkMatching(e, current, o);
      const used = charged(e, current, o, delta, attrs.subresource);
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
  return { name: 'ResourceQuota', last: true, validate: (attrs) => admit(group, resource, attrs) };
}
