/**
 * LimitRanger admission (plugin/pkg/admission/limitranger) for pods: on create, containers
 * without requests or limits get the defaults of the namespace's LimitRanges (recorded in the
 * `kubernetes.io/limit-ranger` annotation), then every container and the pod as a whole must
 * respect their min, max and maxLimitRequestRatio.
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionPlugin, KubeObject } from '../registry/types.js';
import { canonicalQuantity, compareQuantities, parseQuantity, scaledValue, type Quantity } from '../registry/validation/quantity.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const obj = (v: unknown): Json => (isObject(v) ? v : {});

export const limitRangerAnnotation = 'kubernetes.io/limit-ranger';
const gr = { group: '', resource: 'pods' };

/** Pods are defaulted and checked on create only: their containers cannot change later. */
function applies(attrs: AdmissionAttributes): boolean {
  return attrs.operation === 'CREATE' && attrs.subresource === '';
}

async function limitRanges(attrs: AdmissionAttributes): Promise<KubeObject[]> {
  const lookup = attrs.lookup('', 'limitranges');
  if (!lookup) return [];
  const items = await lookup.list(attrs.obj.metadata.namespace ?? '');
  return items.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
}

const sortedKeys = (m: Json) => Object.keys(m).sort();

/** defaultContainerResourceRequirements: defaultRequest and default of Container-type limits. */
function containerDefaults(lr: KubeObject): { requests: Json; limits: Json } {
  const requests: Json = {};
  const limits: Json = {};
  for (const item of list(obj(lr.spec).limits)) {
    if (item.type !== 'Container') continue;
    // SetDefaults_LimitRangeItem, in case the stored item predates it: the default limit
    // falls back to max, the default request to the default limit, then to min.
    const defaultLimit: Json = { ...obj(item.max), ...obj(item.default) };
    const defaultRequest: Json = { ...obj(item.min), ...defaultLimit, ...obj(item.defaultRequest) };
    Object.assign(requests, defaultRequest);
    Object.assign(limits, defaultLimit);
  }
  return { requests, limits };
}

function mergeContainer(c: Json, defaults: { requests: Json; limits: Json }, kind: string, notes: string[]): void {
  const resources = isObject(c.resources) ? c.resources : (c.resources = {});
  const limits = obj(resources.limits);
  const requests = obj(resources.requests);
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const k of sortedKeys(defaults.limits)) {
    if (!(k in limits)) { limits[k] = defaults.limits[k]; setLimits.push(k); }
  }
  for (const k of sortedKeys(defaults.requests)) {
    if (!(k in requests)) { requests[k] = defaults.requests[k]; setRequests.push(k); }
  }
  if (Object.keys(limits).length > 0) resources.limits = limits;
  if (Object.keys(requests).length > 0) resources.requests = requests;
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${kind} ${String(c.name ?? '')}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${kind} ${String(c.name ?? '')}`);
}

/** PodMutateLimitFunc: fill in the defaults of one LimitRange. */
function mutatePod(pod: KubeObject, lr: KubeObject): void {
  const defaults = containerDefaults(lr);
  const spec = obj(pod.spec);
  const notes: string[] = [];
  for (const c of list(spec.containers)) mergeContainer(c, defaults, 'container', notes);
  for (const c of list(spec.initContainers)) mergeContainer(c, defaults, 'init container', notes);
  if (notes.length > 0) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [limitRangerAnnotation]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

function q(v: unknown): Quantity | undefined {
  return typeof v === 'string' ? parseQuantity(v) : typeof v === 'number' ? parseQuantity(String(v)) : undefined;
}

const str = (x: Quantity) => canonicalQuantity(x);

function minConstraint(limitType: string, name: string, enforced: Quantity, requests: Json, limits: Json): string | undefined {
  const req = q(requests[name]);
  const lim = q(limits[name]);
  if (!req) return `minimum ${name} usage per ${limitType} is ${str(enforced)}.  No request is specified`;
  if (compareQuantities(req, enforced) < 0) return `minimum ${name} usage per ${limitType} is ${str(enforced)}, but request is ${str(req)}`;
  if (lim && compareQuantities(lim, enforced) < 0) return `minimum ${name} usage per ${limitType} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

function maxConstraint(limitType: string, name: string, enforced: Quantity, requests: Json, limits: Json): string | undefined {
  const req = q(requests[name]);
  const lim = q(limits[name]);
  if (!lim) return `maximum ${name} usage per ${limitType} is ${str(enforced)}.  No limit is specified`;
  if (compareQuantities(lim, enforced) > 0) return `maximum ${name} usage per ${limitType} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (req && compareQuantities(req, enforced) > 0) return `maximum ${name} usage per ${limitType} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** Go's %f: six decimals. */
const goFloat = (n: number) => n.toFixed(6);

function ratioConstraint(limitType: string, name: string, enforced: Quantity, requests: Json, limits: Json): string | undefined {
  const req = q(requests[name]);
  const lim = q(limits[name]);
  const reqMilli = req ? scaledValue(req, -3) : 0n;
  const limMilli = lim ? scaledValue(lim, -3) : 0n;
  if (!req || reqMilli === 0n) return `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but no request is specified or request is 0`;
  if (!lim || limMilli === 0n) return `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(limMilli) / Number(reqMilli);
  const max = Number(scaledValue(enforced, -3)) / 1000;
  return observed > max ? `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but provided ratio is ${goFloat(observed)}` : undefined;
}

function checkItem(item: Json, limitType: string, requests: Json, limits: Json, errs: string[]): void {
  for (const [field, fn] of [['min', minConstraint], ['max', maxConstraint], ['maxLimitRequestRatio', ratioConstraint]] as const) {
    const bounds = obj(item[field]);
    for (const name of sortedKeys(bounds)) {
      const enforced = q(bounds[name]);
      if (!enforced) continue;
      const err = fn(limitType, name, enforced, requests, limits);
      if (err) errs.push(err);
    }
  }
}

function addQuantities(a: Quantity, b: Quantity): Quantity {
  const e = Math.min(a.exponent, b.exponent);
  return { mantissa: a.mantissa * 10n ** BigInt(a.exponent - e) + b.mantissa * 10n ** BigInt(b.exponent - e), exponent: e, format: a.format, internal: { kind: 'dec' }, cached: '' };
}

/** podRequests/podLimits: the sum over containers, or the largest init container's where that is more. */
function podTotals(spec: Json, which: 'requests' | 'limits'): Json {
  const sum = new Map<string, Quantity>();
  for (const c of list(spec.containers)) {
    for (const [k, v] of Object.entries(obj(obj(c.resources)[which]))) {
      const x = q(v);
      if (x) sum.set(k, sum.has(k) ? addQuantities(sum.get(k)!, x) : x);
    }
  }
  for (const c of list(spec.initContainers)) {
    for (const [k, v] of Object.entries(obj(obj(c.resources)[which]))) {
      const x = q(v);
      if (x && (!sum.has(k) || compareQuantities(x, sum.get(k)!) > 0)) sum.set(k, x);
    }
  }
  const out: Json = {};
  for (const [k, v] of sum) out[k] = canonicalQuantity(v);
  return out;
}

/** PodValidateLimitFunc against one LimitRange. */
function validatePod(pod: KubeObject, lr: KubeObject): string[] {
  const errs: string[] = [];
  const spec = obj(pod.spec);
  for (const item of list(obj(lr.spec).limits)) {
    if (item.type === 'Container') {
      for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
        const res = obj(c.resources);
        checkItem(item, 'Container', obj(res.requests), obj(res.limits), errs);
      }
    } else if (item.type === 'Pod') {
      checkItem(item, 'Pod', podTotals(spec, 'requests'), podTotals(spec, 'limits'), errs);
    }
  }
  return errs;
}

/** utilerrors.NewAggregate(errs).Error(): nested aggregates flattened, repeated messages once. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

export const limitRangerAdmission: AdmissionPlugin = {
  name: 'LimitRanger',
  async mutate(attrs) {
    if (!applies(attrs)) return;
    for (const lr of await limitRanges(attrs)) mutatePod(attrs.obj, lr);
  },
  async validate(attrs) {
    if (!applies(attrs)) return;
    const errs: string[] = [];
    for (const lr of await limitRanges(attrs)) {
      errs.push(...validatePod(attrs.obj, lr));
    }
    if (errs.length > 0) throw newForbidden(gr, attrs.obj.metadata.name ?? '', aggregate(errs));
  },
};
