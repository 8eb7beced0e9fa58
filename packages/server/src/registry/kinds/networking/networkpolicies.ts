/**
 * networking.k8s.io/v1 NetworkPolicy: kube's defaults (policyTypes, port protocol), its
 * validation (peers, ports, ipBlocks, policy types), its CIDR warnings and its printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { labelSelectorFromObject } from '@windlass/machinery';
import { validateLabelSelector, type LabelSelectorValidationOptions } from '../../validation/labelselector.js';
import { arr, isObj, obj, str, type Json } from './util.js';
import { cidrContains, cidrMaskSize, isValidCIDRForLegacyField, parseCIDR, portNameErrors, portNumErrors } from './ip.js';
import { networkPolicyWarnings } from './warnings.js';

interface PolicyOptions extends LabelSelectorValidationOptions {
  allowCIDRs: string[];
}

export function defaultNetworkPolicy(o: KubeObject): void {
  const spec = obj(o.spec);
  for (const rule of [...arr(spec.ingress), ...arr(spec.egress)]) {
    for (const port of arr(obj(rule).ports)) if (isObj(port) && port.protocol === undefined) port.protocol = 'TCP';
  }
  if (isObj(o.spec) && arr(spec.policyTypes).length === 0) {
    spec.policyTypes = arr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

function validatePort(port: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const protocol = port.protocol;
  if (typeof protocol === 'string' && protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP') {
    errs.push(fieldErr.notSupported(`${path}.protocol`, protocol, ['TCP', 'UDP', 'SCTP']));
  }
  const endPort = typeof port.endPort === 'number' ? port.endPort : undefined;
  if (typeof port.port === 'number') {
    for (const msg of portNumErrors(port.port)) errs.push(fieldErr.invalid(`${path}.port`, port.port, msg));
    if (endPort !== undefined) {
      // kube 1.35 quotes the port here, not the endPort (changed only in 1.36).
      if (endPort < port.port) errs.push(fieldErr.invalid(`${path}.endPort`, port.port, 'must be greater than or equal to `port`'));
      for (const msg of portNumErrors(endPort)) errs.push(fieldErr.invalid(`${path}.endPort`, endPort, msg));
    }
  } else if (typeof port.port === 'string') {
    if (endPort !== undefined) errs.push(fieldErr.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of portNameErrors(port.port)) errs.push(fieldErr.invalid(`${path}.port`, port.port, msg));
  } else if (endPort !== undefined) {
    errs.push(fieldErr.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validateIPBlock(block: Json, path: string, opts: PolicyOptions): FieldError[] {
  const cidr = str(block.cidr);
  if (cidr === '') return [fieldErr.required(`${path}.cidr`)];
  const errs = isValidCIDRForLegacyField(`${path}.cidr`, cidr, opts.allowCIDRs);
  const net = parseCIDR(cidr);
  if (!net) return errs;
  arr(block.except).forEach((raw, i) => {
    const except = str(raw);
    const exceptPath = `${path}.except[${i}]`;
    errs.push(...isValidCIDRForLegacyField(exceptPath, except, opts.allowCIDRs));
    const inner = parseCIDR(except);
    if (!inner) return;
    if (!cidrContains(net, inner) || cidrMaskSize(net) >= cidrMaskSize(inner)) errs.push(fieldErr.invalid(exceptPath, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: Json, path: string, opts: PolicyOptions): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  if (isObj(peer.podSelector)) {
    peers++;
    errs.push(...validateLabelSelector(peer.podSelector, opts, `${path}.podSelector`));
  }
  if (isObj(peer.namespaceSelector)) {
    peers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, opts, `${path}.namespaceSelector`));
  }
  if (isObj(peer.ipBlock)) {
    peers++;
    errs.push(...validateIPBlock(peer.ipBlock, `${path}.ipBlock`, opts));
  }
  if (peers === 0) errs.push(fieldErr.required(path, 'must specify a peer'));
  else if (peers > 1 && isObj(peer.ipBlock)) errs.push(fieldErr.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

function validateSpec(spec: Json, opts: PolicyOptions): FieldError[] {
  const errs = validateLabelSelector(obj(spec.podSelector), opts, 'spec.podSelector');
  for (const [kind, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arr(spec[kind]).forEach((raw, i) => {
      const rule = obj(raw);
      arr(rule.ports).forEach((p, j) => errs.push(...validatePort(obj(p), `spec.${kind}[${i}].ports[${j}]`)));
      arr(rule[peersKey]).forEach((p, j) => errs.push(...validatePeer(obj(p), `spec.${kind}[${i}].${peersKey}[${j}]`, opts)));
    });
  }
  const types = arr(spec.policyTypes);
  if (types.length > 2) {
    errs.push(fieldErr.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(fieldErr.notSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
  });
  return errs;
}

function storedCIDRs(old: KubeObject): string[] {
  const spec = obj(old.spec);
  const out: string[] = [];
  for (const [kind, key] of [['ingress', 'from'], ['egress', 'to']] as const) {
    for (const rule of arr(spec[kind])) {
      for (const peer of arr(obj(rule)[key])) {
        const block = obj(peer).ipBlock;
        if (isObj(block)) out.push(str(block.cidr), ...arr(block.except).map(str));
      }
    }
  }
  return out;
}

export const networkPolicies: KindDefinition = {
  group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', internalGroup: 'extensions',
  generation: true,
  strategy: {
    defaults: defaultNetworkPolicy,
    validate: (o) => validateSpec(obj(o.spec), { allowCIDRs: [] }),
    validateUpdate(o, old) {
      const oldSelector = obj(obj(old.spec).podSelector);
      const allowInvalidLabelValueInSelector = validateLabelSelector(oldSelector, {}, 'spec.podSelector').length > 0;
      return validateSpec(obj(o.spec), { allowCIDRs: storedCIDRs(old), allowInvalidLabelValueInSelector });
    },
    warningsOnCreate: networkPolicyWarnings,
    warningsOnUpdate: (o) => networkPolicyWarnings(o),
  },
  table: {
    columns: [
      column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.'),
      ageColumn,
    ],
    cells: (o) => [formatLabelSelector(obj(o.spec).podSelector), ageOf(o.metadata.creationTimestamp)],
  },
};

/** metav1.FormatLabelSelector: `<none>` for an empty selector, `<error>` for one that does not parse. */
export function formatLabelSelector(sel: unknown): string {
  try {
    const s = labelSelectorFromObject(isObj(sel) ? (sel as never) : undefined);
    const text = s?.toString() ?? '';
    return text === '' ? '<none>' : text;
  } catch {
    return '<error>';
  }
}
