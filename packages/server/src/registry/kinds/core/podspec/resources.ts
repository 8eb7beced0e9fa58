/**
 * Compute resources of containers and pods: resource names (pkg/apis/core/helper), quantity
 * checks and ValidateContainerResourceRequirements with kube's messages, and the pod's QoS
 * class (pkg/apis/core/helper/qos).
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import { compareQuantities, goQuantityRepr, parseQuantity, quantitySign, scaledValue, canonicalQuantity, type Quantity } from '../../../validation/quantity.js';
import { isObject, objs, obj, str, duplicate, notFoundDetail, invalidRepr, isNegativeErrorMsg, type JsonObject } from './util.js';
import { isDNS1123LabelErrors } from './names.js';

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const integerResources = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers']);

export const isHugePageResourceName = (name: string) => name.startsWith('hugepages-');
export const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');

export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || isHugePageResourceName(name) || name.startsWith('requests.hugepages-');
}

const isIntegerResourceName = (name: string) => integerResources.has(name) || isExtendedResourceName(name);
/** Requests may be lower than limits only for native resources other than huge pages. */
export const isOvercommitAllowed = (name: string) => isNativeResource(name) && !isHugePageResourceName(name);

/** validateResourceName. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErr.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) errs.push(fieldErr.invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePageResourceName(name)) errs.push(fieldErr.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(fieldErr.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** validatePodResourceName (pod-level resources take cpu, memory and huge pages). */
function validatePodResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (errs.length > 0) return errs;
  if (name !== 'cpu' && name !== 'memory' && !isHugePageResourceName(name)) {
    errs.push(fieldErr.notSupported(path, name, ['cpu', 'hugepages-', 'memory']));
  }
  return errs;
}

export function quantityOf(v: unknown): Quantity | undefined {
  if (typeof v === 'string') return parseQuantity(v);
  if (typeof v === 'number') return parseQuantity(String(v));
  return undefined;
}

/** ValidateResourceQuantityValue. */
export function validateResourceQuantityValue(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(fieldErr.invalid(path, canonicalQuantity(q), isNegativeErrorMsg));
  if (isIntegerResourceName(name) && scaledValue(q, -3) % 1000n !== 0n) errs.push(invalidRepr(path, goQuantityRepr(q), 'must be an integer'));
  return errs;
}

function hugePageSize(name: string): Quantity | undefined {
  return parseQuantity(name.slice('hugepages-'.length));
}

function hugePageError(name: string, q: Quantity): string | undefined {
  const size = hugePageSize(name);
  if (!size || quantitySign(size) <= 0) return undefined;
  const value = scaledValue(q, 0);
  const unit = scaledValue(size, 0);
  return unit > 0n && value % unit !== 0n ? `${canonicalQuantity(q)} is not positive integer multiple of ${name}` : undefined;
}

export interface ResourceOptions {
  allowIndivisibleHugePagesValues?: boolean;
}

type NameFn = (name: string, path: string) => FieldError[];

/** validateResourceRequirements: names, quantities, requests ≤ limits, claims. */
function validateResourceRequirements(req: JsonObject, nameFn: NameFn, claimNames: Set<string>, path: string, opts: ResourceOptions): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = `${path}.limits`;
  const reqPath = `${path}.requests`;
  const limits = obj(req.limits);
  const requests = obj(req.requests);
  let limCPUOrMem = false, reqCPUOrMem = false, limHuge = false, reqHuge = false;
  for (const name of Object.keys(limits).sort()) {
    const p = `${limPath}[${name}]`;
    errs.push(...nameFn(name, p));
    const q = quantityOf(limits[name]);
    if (!q) continue;
    errs.push(...validateResourceQuantityValue(name, q, p));
    if (isHugePageResourceName(name)) {
      limHuge = true;
      const e = opts.allowIndivisibleHugePagesValues ? undefined : hugePageError(name, q);
      if (e) errs.push(fieldErr.invalid(p, canonicalQuantity(q), e));
    }
    if (name === 'cpu' || name === 'memory') limCPUOrMem = true;
  }
  for (const name of Object.keys(requests).sort()) {
    const p = `${reqPath}[${name}]`;
    errs.push(...nameFn(name, p));
    const q = quantityOf(requests[name]);
    if (!q) continue;
    errs.push(...validateResourceQuantityValue(name, q, p));
    const lim = name in limits ? quantityOf(limits[name]) : undefined;
    if (lim) {
      const cmp = compareQuantities(q, lim);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(fieldErr.invalid(reqPath, canonicalQuantity(q), `must be equal to ${name} limit of ${canonicalQuantity(lim)}`));
      } else if (cmp > 0) {
        errs.push(fieldErr.invalid(reqPath, canonicalQuantity(q), `must be less than or equal to ${name} limit of ${canonicalQuantity(lim)}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fieldErr.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) {
      reqHuge = true;
      const e = opts.allowIndivisibleHugePagesValues ? undefined : hugePageError(name, q);
      if (e) errs.push(fieldErr.invalid(p, canonicalQuantity(q), e));
    }
    if (name === 'cpu' || name === 'memory') reqCPUOrMem = true;
  }
  if (!limCPUOrMem && !reqCPUOrMem && (reqHuge || limHuge)) errs.push(fieldErr.forbidden(path, 'HugePages require cpu or memory'));
  errs.push(...validateResourceClaimNames(req.claims, claimNames, `${path}.claims`));
  return errs;
}

function validateResourceClaimNames(claims: unknown, podClaimNames: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(claims).forEach((claim, i) => {
    const p = `${path}[${i}]`;
    const name = str(claim.name);
    if (name === '') { errs.push(fieldErr.required(p)); return; }
    if (names.has(name)) {
      errs.push(duplicate(p, name));
    } else {
      let key = name;
      const request = str(claim.request);
      if (request !== '') {
        errs.push(...isDNS1123LabelErrors(request, `${p}.request`));
        key += `/${request}`;
      }
      if (names.has(key)) errs.push(duplicate(p, key));
      else if (request === '') for (const k of names) if (k.includes('/') && k.slice(0, k.indexOf('/')) === name) errs.push(duplicate(p, name));
      names.add(key);
    }
    if (!podClaimNames.has(name)) {
      const known = [...podClaimNames].sort();
      errs.push(notFoundDetail(p, `must be one of the names in pod.spec.resourceClaims${known.length === 0 ? ' which is empty' : `: ${known.join(', ')}`}`));
    }
  });
  return errs;
}

export function validateContainerResources(resources: unknown, claimNames: Set<string>, path: string, opts: ResourceOptions = {}): FieldError[] {
  return validateResourceRequirements(obj(resources), validateContainerResourceName, claimNames, path, opts);
}

/** validatePodResources: pod-level spec.resources (PodLevelResources, on by default in 1.35). */
export function validatePodResources(spec: JsonObject, claimNames: Set<string>, path: string, opts: ResourceOptions = {}): FieldError[] {
  const resources = spec.resources;
  if (!isObject(resources)) return [];
  const errs: FieldError[] = [];
  if (resources.claims !== undefined && resources.claims !== null) errs.push(fieldErr.forbidden(`${path}.claims`, 'claims cannot be set for Resources at pod-level'));
  errs.push(...validateResourceRequirements(resources, validatePodResourceName, claimNames, path, opts));
  // Container limits may not exceed pod-level ones.
  const podLimits = obj(resources.limits);
  objs(spec.containers).forEach((c, i) => {
    const lims = obj(obj(c.resources).limits);
    for (const name of Object.keys(lims).sort()) {
      if (!(name in podLimits)) continue;
      const cl = quantityOf(lims[name]);
      const pl = quantityOf(podLimits[name]);
      if (cl && pl && compareQuantities(cl, pl) > 0) {
        errs.push(fieldErr.invalid(`${path}.containers[${i}][${name}].limits`, canonicalQuantity(cl), `must be less than or equal to pod limits of ${canonicalQuantity(pl)}`));
      }
    }
  });
  return errs;
}

function addTo(acc: Map<string, Quantity>, name: string, q: Quantity): void {
  const cur = acc.get(name);
  if (!cur) { acc.set(name, q); return; }
  const e = Math.min(cur.exponent, q.exponent);
  const m = cur.mantissa * 10n ** BigInt(cur.exponent - e) + q.mantissa * 10n ** BigInt(q.exponent - e);
  acc.set(name, { mantissa: m, exponent: e, format: cur.format, internal: { kind: 'dec' }, cached: '' });
}

/** ComputePodQOS: BestEffort, Burstable or Guaranteed from cpu and memory requests and limits. */
export function podQOSClass(spec: JsonObject): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const take = (resources: JsonObject) => {
    for (const [name, v] of Object.entries(obj(resources.requests))) {
      const q = quantityOf(v);
      if ((name === 'cpu' || name === 'memory') && q && quantitySign(q) > 0) addTo(requests, name, q);
    }
    const found = new Set<string>();
    for (const [name, v] of Object.entries(obj(resources.limits))) {
      const q = quantityOf(v);
      if ((name === 'cpu' || name === 'memory') && q && quantitySign(q) > 0) {
        found.add(name);
        addTo(limits, name, q);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  };
  const podResources = spec.resources;
  if (isObject(podResources) && (Object.keys(obj(podResources.requests)).length > 0 || Object.keys(obj(podResources.limits)).length > 0)) {
    take(podResources);
    if (Object.keys(obj(podResources.limits)).length === 0) guaranteed = false;
  } else {
    for (const c of [...objs(spec.containers), ...objs(spec.initContainers)]) take(obj(c.resources));
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantities(lim, req) !== 0) { guaranteed = false; break; }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
