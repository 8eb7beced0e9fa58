/**
 * core/v1 Nodes: kube's SetDefaults_NodeStatus, ValidateNode / ValidateNodeUpdate, the node
 * strategy (status may be set on create, as kubelets register with it), the
 * TaintNodesByCondition admission plugin, the `spec.unschedulable` field selector and the
 * node printer.
 */
import { fieldErr, goQuote, isValidLabelValue, type FieldError } from '@windlass/machinery';
import type { AdmissionPlugin, KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateLabelName } from '../../validation/labelselector.js';
import { goQuantityRepr, isIntegral, quantityEntries, quantitySign } from '../../validation/quantity.js';
import { isIPv6String, parseCIDR, validateCIDR } from '../../validation/network.js';
import { nodeWarnings } from './warnings.js';

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string | null;
}

type Node = KubeObject & {
  spec?: { podCIDR?: string; podCIDRs?: string[]; providerID?: string; unschedulable?: boolean; taints?: Taint[]; externalID?: string; configSource?: unknown };
  status?: {
    capacity?: Record<string, unknown>;
    allocatable?: Record<string, unknown>;
    addresses?: Array<{ type?: string; address?: string }>;
    conditions?: Array<{ type?: string; status?: string }>;
    nodeInfo?: Record<string, string>;
    [key: string]: unknown;
  };
};

/** SetDefaults_NodeStatus: allocatable defaults to capacity. */
function defaultNode(obj: KubeObject): void {
  const st = (obj as Node).status;
  if (st && st.allocatable == null && st.capacity != null) st.allocatable = { ...st.capacity };
}

/** Status sent with a create, kept past the Store's reset of server-owned status (kube keeps a node's). */
const createStatus = new WeakMap<object, unknown>();

/** The v1 ⇄ internal conversion of NodeSpec: podCIDR is podCIDRs[0]. */
function normalizeNode(obj: KubeObject): void {
  const n = obj as Node;
  if (n.status !== undefined) createStatus.set(obj, n.status);
  const spec = n.spec;
  if (!spec) return;
  if ((!spec.podCIDRs || spec.podCIDRs.length === 0) && spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  if (spec.podCIDRs && spec.podCIDRs.length > 0) spec.podCIDR = spec.podCIDRs[0];
  else delete spec.podCIDR;
}

const notReadyTaint = 'node.kubernetes.io/not-ready';

/** TaintNodesByCondition: a new node is NotReady until its kubelet says otherwise. */
export const taintNodesByCondition: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  mutate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
    const n = attrs.obj as Node;
    const spec = (n.spec ??= {});
    const taints = (spec.taints ??= []);
    if (!taints.some((t) => t.key === notReadyTaint && t.effect === 'NoSchedule')) taints.push({ key: notReadyTaint, effect: 'NoSchedule' });
  },
};

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Go's %#v of a core.Taint (TimeAdded is a pointer). */
function goTaintRepr(t: Taint): string {
  const added = t.timeAdded ? '(*v1.Time)(0xc000000000)' : '<nil>';
  return `core.Taint{Key:${goQuote(t.key ?? '')}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect ?? '')}, TimeAdded:${added}}`;
}

/** validateNodeTaints; kube reports them under `metadata.taints`. */
function validateTaints(taints: Taint[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  taints.forEach((raw, i) => {
    const t = raw ?? {};
    const p = `${path}[${i}]`;
    errs.push(...validateLabelName(t.key ?? '', `${p}.key`));
    const valueErrs = isValidLabelValue(t.value ?? '');
    if (valueErrs.length > 0) errs.push(fieldErr.invalid(`${p}.value`, t.value ?? '', valueErrs.join(';')));
    const effect = t.effect ?? '';
    if (effect === '') errs.push(fieldErr.required(`${p}.effect`));
    else if (!taintEffects.includes(effect)) errs.push(fieldErr.notSupported(`${p}.effect`, effect, taintEffects));
    const keys = unique.get(effect);
    if (keys?.has(t.key ?? '')) {
      errs.push({ type: 'FieldValueDuplicate', field: p, detail: `Duplicate value: ${goTaintRepr(t)}: taints must be unique by key and effect pair` });
      return;
    }
    unique.set(effect, (keys ?? new Set()).add(t.key ?? ''));
  });
  return errs;
}

const integerResources = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

/** helper.IsExtendedResourceName: a qualified name outside kubernetes.io that is not a quota `requests.` name. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(`requests.${name}`);
}

/** ValidateNodeResources: capacity and allocatable quantities not negative, integral where the resource is counted. */
function validateNodeResources(n: Node): FieldError[] {
  const errs: FieldError[] = [];
  // A Quantity in a field error prints as Go's %#v of the struct.
  const invalid = (path: string, q: Parameters<typeof goQuantityRepr>[0], msg: string): FieldError => ({ type: 'FieldValueInvalid', field: path, detail: `Invalid value: ${goQuantityRepr(q)}: ${msg}` });
  for (const field of ['capacity', 'allocatable'] as const) {
    for (const [k, q] of quantityEntries(n.status?.[field])) {
      const path = `status.${field}.${k}`;
      if (quantitySign(q) < 0) errs.push(invalid(path, q, 'must be greater than or equal to 0'));
      if ((integerResources.has(k) || isExtendedResourceName(k)) && !isIntegral(q)) errs.push(invalid(path, q, 'must be an integer'));
    }
  }
  return errs;
}

function validatePodCIDRs(cidrs: string[]): FieldError[] {
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => errs.push(...validateCIDR(c, `spec.podCIDRs[${i}]`)));
  if (cidrs.length > 1) {
    const parsed = cidrs.map(parseCIDR);
    const dual = cidrs.length === 2 && parsed.every((p) => p) && isIPv6String(cidrs[0].split('/')[0]) !== isIPv6String(cidrs[1].split('/')[0]);
    if (!dual) errs.push(fieldErr.invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push({ type: 'FieldValueDuplicate', field: `spec.podCIDRs[${i}]`, detail: `Duplicate value: ${JSON.stringify(c)}` });
      seen.add(c);
    });
  }
  return errs;
}

/** ValidateNode, without the object metadata (validated by the Store). */
export function validateNode(obj: KubeObject): FieldError[] {
  const n = obj as Node;
  const errs: FieldError[] = [];
  const taints = n.spec?.taints ?? [];
  if (taints.length > 0) errs.push(...validateTaints(taints, 'metadata.taints'));
  errs.push(...validateNodeResources(n));
  const cidrs = n.spec?.podCIDRs ?? [];
  if (cidrs.length > 0) errs.push(...validatePodCIDRs(cidrs));
  return errs;
}

/** ValidateNodeUpdate, without the metadata checks the Store makes. */
export function validateNodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = obj as Node, o = old as Node;
  const errs = validateNodeResources(n);
  const seen = new Set<string>();
  (n.status?.addresses ?? []).forEach((a, i) => {
    const key = `${a?.type ?? ''}\u0000${a?.address ?? ''}`;
    if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: `status.addresses[${i}]`, detail: `Duplicate value: core.NodeAddress{Type:${goQuote(a?.type ?? '')}, Address:${goQuote(a?.address ?? '')}}` });
    seen.add(key);
  });
  const oldCIDRs = o.spec?.podCIDRs ?? [], newCIDRs = n.spec?.podCIDRs ?? [];
  const cidrMessage = 'node updates may not change podCIDR except from "" to valid';
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(fieldErr.forbidden('spec.podCIDRs', cidrMessage));
    else oldCIDRs.forEach((c, i) => {
      if (c !== newCIDRs[i]) errs.push(fieldErr.forbidden('spec.podCIDRs', cidrMessage));
    });
  }
  const oldProvider = o.spec?.providerID ?? '';
  if (oldProvider !== '' && oldProvider !== (n.spec?.providerID ?? '')) {
    errs.push(fieldErr.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  const taints = n.spec?.taints ?? [];
  if (taints.length > 0) errs.push(...validateTaints(taints, 'metadata.taints'));
  if ((n.spec?.externalID ?? '') !== (o.spec?.externalID ?? '')) errs.push(fieldErr.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

const roleLabelPrefix = 'node-role.kubernetes.io/';

/** findNodeRoles: node-role.kubernetes.io/<role> labels and the legacy kubernetes.io/role. */
function nodeRoles(n: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(n.metadata.labels ?? {})) {
    if (k.startsWith(roleLabelPrefix)) {
      const role = k.slice(roleLabelPrefix.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

function nodeAddress(n: Node, type: string): string {
  return (n.status?.addresses ?? []).find((a) => a?.type === type)?.address ?? '<none>';
}

export const nodes: KindDefinition = {
  group: '', version: 'v1', resource: 'nodes',
  strategy: {
    warningsOnCreate: nodeWarnings,
    warningsOnUpdate: (node) => nodeWarnings(node),
    defaults: defaultNode,
    normalize: normalizeNode,
    prepareForCreate(obj) {
      const status = createStatus.get(obj);
      if (status !== undefined) (obj as Node).status = status as Node['status'];
    },
    validate: validateNode,
    validateUpdate: validateNodeUpdate,
  },
  subresourceStrategies: {
    status: { validateUpdate: validateNodeUpdate },
  },
  admission: [taintNodesByCondition],
  selectableFields: { 'spec.unschedulable': (obj) => String((obj as Node).spec?.unschedulable === true) },
  table: {
    columns: [
      column('Status', 'string', 'The status of the node'),
      column('Roles', 'string', 'The roles of the node'),
      ageColumn,
      column('Version', 'string', 'Kubelet Version reported by the node.'),
      column('Internal-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
      column('External-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
      column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
      column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
      column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
    ],
    cells(obj) {
      const n = obj as Node;
      const status: string[] = [];
      const ready = (n.status?.conditions ?? []).find((c) => c?.type === 'Ready');
      if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
      if (status.length === 0) status.push('Unknown');
      if (n.spec?.unschedulable) status.push('SchedulingDisabled');
      const roles = nodeRoles(n).join(',') || '<none>';
      const info = n.status?.nodeInfo ?? {};
      return [
        status.join(','), roles, ageOf(obj.metadata.creationTimestamp), info.kubeletVersion ?? '',
        nodeAddress(n, 'InternalIP'), nodeAddress(n, 'ExternalIP'),
        info.osImage || '<unknown>', info.kernelVersion || '<unknown>', info.containerRuntimeVersion || '<unknown>',
      ];
    },
  },
};
