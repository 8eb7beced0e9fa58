/**
 * networking.k8s.io/v1 IPAddress (the allocator's record of a Service IP) and ServiceCIDR (the
 * ranges Service IPs come from): kube's validation and printers.
 */
import { fieldErr, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { arr, isObj, obj, pathSegmentErrors, str, type Json } from './util.js';
import { cidrFamily, isValidCIDR, isValidIP } from './ip.js';

/** ValidateIPAddressName: the name is the address itself, in canonical form. */
export function ipAddressNameErrors(name: string): string[] {
  return isValidIP('', name).map((e) => e.detail.replace(/^Invalid value: "(?:[^"\\]|\\.)*": /, ''));
}

function validateParentRef(ref: unknown): FieldError[] {
  if (!isObj(ref)) return [fieldErr.required('spec.parentRef')];
  const path = 'spec.parentRef';
  const errs: FieldError[] = [];
  const group = str(ref.group);
  if (group) for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErr.invalid(`${path}.group`, group, msg));
  for (const key of ['resource', 'name'] as const) {
    const v = str(ref[key]);
    if (v === '') errs.push(fieldErr.required(`${path}.${key}`));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErr.invalid(`${path}.${key}`, v, msg));
  }
  const ns = str(ref.namespace);
  if (ns) for (const msg of pathSegmentErrors(ns)) errs.push(fieldErr.invalid(`${path}.namespace`, ns, msg));
  return errs;
}

/** The internal ParentReference as encoding/json prints it (the internal type has no json tags). */
function goParentRef(ref: unknown): unknown {
  if (!isObj(ref)) return null;
  return { Group: str(ref.group), Resource: str(ref.resource), Namespace: str(ref.namespace), Name: str(ref.name) };
}

export const ipAddresses: KindDefinition = {
  group: 'networking.k8s.io', version: 'v1', resource: 'ipaddresses',
  strategy: {
    nameValidator: (name) => ipAddressNameErrors(name),
    validate: (o) => validateParentRef(obj(o.spec).parentRef),
    validateUpdate(o, old) {
      const n = obj(o.spec).parentRef, p = obj(old.spec).parentRef;
      return JSON.stringify(goParentRef(n)) === JSON.stringify(goParentRef(p)) ? [] : [fieldErr.invalid('spec.parentRef', goParentRef(n), 'field is immutable')];
    },
  },
  table: {
    columns: [column('ParentRef', 'string', 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.')],
    // kube's printer appends the age without a column for it.
    cells: (o) => {
      const ref = obj(o.spec).parentRef;
      let parent = '<none>';
      if (isObj(ref)) {
        const gr = str(ref.group) ? `${str(ref.resource)}.${str(ref.group)}` : str(ref.resource);
        parent = gr.toLowerCase() + (str(ref.namespace) ? `/${str(ref.namespace)}` : '') + `/${str(ref.name)}`;
      }
      return [parent, ageOf(o.metadata.creationTimestamp)];
    },
  },
};

function validateServiceCIDRSpec(spec: Json): FieldError[] {
  const path = 'spec.cidrs';
  const cidrs = arr(spec.cidrs).map(str);
  if (cidrs.length === 0) return [fieldErr.required(path, 'at least one CIDR required')];
  if (cidrs.length > 2) return [fieldErr.invalid(path, { cidrs }, 'may only hold up to 2 values')];
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => errs.push(...isValidCIDR(`${path}[${i}]`, c)));
  if (cidrs.length === 2 && cidrFamily(cidrs[0]) === cidrFamily(cidrs[1]) && cidrFamily(cidrs[0]) !== 0) {
    errs.push(fieldErr.invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errs;
}

export const serviceCIDRs: KindDefinition = {
  group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs',
  strategy: {
    validate: (o) => validateServiceCIDRSpec(obj(o.spec)),
    validateUpdate(o, old) {
      const now = arr(obj(o.spec).cidrs).map(str), before = arr(obj(old.spec).cidrs).map(str);
      if (now.length === before.length) {
        return now.flatMap((c, i) => (c !== before[i] ? [fieldErr.invalid(`spec.cidrs[${i}]`, c, 'field is immutable')] : []));
      }
      // A second CIDR may be added: a single-stack range becoming dual-stack.
      if (before.length === 1 && now.length === 2) {
        const errs = now[0] !== before[0] ? [fieldErr.invalid('spec.cidrs[0]', now[0], 'field is immutable')] : [];
        return [...errs, ...validateServiceCIDRSpec(obj(o.spec))];
      }
      return [fieldErr.invalid('spec.cidrs', now, 'field is immutable')];
    },
  },
  subresourceStrategies: { status: { validateUpdate: () => [] } },
  table: {
    columns: [
      column('CIDRs', 'string', 'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.'),
      ageColumn,
    ],
    cells: (o) => [arr(obj(o.spec).cidrs).map(str).join(','), ageOf(o.metadata.creationTimestamp)],
  },
};
