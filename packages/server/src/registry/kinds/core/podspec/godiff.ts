/**
 * An approximation of go-cmp's cmp.Diff report of two internal core.PodSpec (or
 * core.EphemeralContainer) values, as kube embeds it in "pod updates may not change fields"
 * messages: fields in Go struct order, changed ones as -/+ lines, two unchanged fields of
 * context around each change and `... // N identical fields` for the rest, values elided as
 * go-cmp elides them. Clients read it; none parse it.
 */
import { deepEqual, isObject, type JsonObject } from './util.js';

/** Fields of the internal core.PodSpec in declaration order (v1 `hostNetwork`… live in its SecurityContext). */
export const podSpecFields = [
  'volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy', 'terminationGracePeriodSeconds',
  'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector', 'serviceAccountName', 'automountServiceAccountToken', 'nodeName',
  'securityContext', 'imagePullSecrets', 'hostname', 'subdomain', 'setHostnameAsFQDN', 'affinity', 'schedulerName',
  'tolerations', 'hostAliases', 'priorityClassName', 'priority', 'preemptionPolicy', 'dnsConfig', 'readinessGates',
  'runtimeClassName', 'overhead', 'enableServiceLinks', 'topologySpreadConstraints', 'os', 'schedulingGates',
  'resourceClaims', 'resources', 'hostnameOverride',
];

/** Fields of core.Container (and EphemeralContainerCommon) in declaration order. */
export const containerFields = [
  'name', 'image', 'command', 'args', 'workingDir', 'ports', 'envFrom', 'env', 'resources', 'resizePolicy', 'restartPolicy',
  'restartPolicyRules', 'volumeMounts', 'volumeDevices', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle',
  'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty',
];

const structOrders: Record<string, string[]> = {
  containers: containerFields,
  initContainers: containerFields,
  volumeMounts: ['name', 'readOnly', 'recursiveReadOnly', 'mountPath', 'subPath', 'mountPropagation', 'subPathExpr'],
};

const goNames: Record<string, string> = {
  dnsPolicy: 'DNSPolicy', dnsConfig: 'DNSConfig', tty: 'TTY', os: 'OS', setHostnameAsFQDN: 'SetHostnameAsFQDN',
  hostIP: 'HostIP', podIP: 'PodIP', ip: 'IP', uid: 'UID', grpc: 'GRPC', httpGet: 'HTTPGet', tcpSocket: 'TCPSocket',
  httpHeaders: 'HTTPHeaders',
};

const goName = (k: string) => goNames[k] ?? k[0].toUpperCase() + k.slice(1);

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.values(v).every(isZero);
  return false;
}

/** Scalar fields that are pointers in Go (printed `&30`, `&true`). */
const pointerFields = new Set([
  'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'automountServiceAccountToken', 'priority', 'preemptionPolicy',
  'runtimeClassName', 'enableServiceLinks', 'setHostnameAsFQDN', 'hostnameOverride',
]);

function orderedKeys(v: JsonObject, order?: string[]): string[] {
  if (!order) return Object.keys(v);
  const known = order.filter((k) => k in v);
  return [...known, ...Object.keys(v).filter((k) => !order.includes(k))];
}

/** go-cmp's elided rendering of a value (struct fields beyond four and nesting beyond four levels become `...`). */
function formatValue(v: unknown, field: string, depth: number): string {
  if (v === undefined || v === null) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return pointerFields.has(field) ? `&${v}` : String(v);
  if (depth > 4) return '{...}';
  if (Array.isArray(v)) {
    if (v.length === 0) return '{}';
    const shown = v.slice(0, 4).map((e) => formatValue(e, field, depth + 1));
    return `{${shown.join(', ')}${v.length > 4 ? ', ...' : ''}}`;
  }
  if (isObject(v)) {
    const keys = orderedKeys(v, structOrders[field]).filter((k) => !isZero(v[k]));
    const parts = keys.slice(0, 4).map((k) => `${goName(k)}: ${formatValue(v[k], k, depth + 1)}`);
    if (keys.length > 4) parts.push('...');
    return `{${parts.join(', ')}}`;
  }
  return String(v);
}

/** cmp.Diff(old, new) of two structs, as kube prints it (a trailing newline included). */
export function structDiff(typeName: string, oldV: JsonObject, newV: JsonObject, fields: string[], nested = structOrders): string {
  void nested;
  const rows = fields.map((f) => ({ f, same: deepEqual(isZero(oldV[f]) ? undefined : oldV[f], isZero(newV[f]) ? undefined : newV[f]) }));
  const show = new Set<number>();
  rows.forEach((r, i) => {
    if (r.same) return;
    for (let j = Math.max(0, i - 2); j <= Math.min(rows.length - 1, i + 2); j++) show.add(j);
  });
  const shown = [...show].sort((a, b) => a - b);
  const width = Math.max(0, ...shown.map((i) => goName(rows[i].f).length + 1));
  const line = (prefix: string, f: string, v: unknown) => `${prefix}\t${`${goName(f)}:`.padEnd(width)} ${formatValue(v, f, 1)},`;
  const out = [`  ${typeName}{`];
  let last = -1;
  for (const i of shown) {
    const gap = i - last - 1;
    if (gap > 0) out.push(`  \t... // ${gap} identical fields`);
    const { f, same } = rows[i];
    if (same) out.push(line(' ', f, newV[f]).replace(/^ \t/, '  \t'));
    else {
      out.push(line('-', f, oldV[f]).replace(/^-\t/, '- \t'));
      out.push(line('+', f, newV[f]).replace(/^\+\t/, '+ \t'));
    }
    last = i;
  }
  const tail = rows.length - last - 1;
  if (tail > 0) out.push(`  \t... // ${tail} identical fields`);
  out.push('  }');
  return `${out.join('\n')}\n`;
}

/** The internal core.PodSpec view of a v1 PodSpec: host namespaces fold into the security context. */
export function internalPodSpec(spec: JsonObject): JsonObject {
  const out: JsonObject = { ...spec };
  const sc: JsonObject = { ...(isObject(spec.securityContext) ? spec.securityContext : {}) };
  for (const k of ['hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'hostUsers']) {
    if (k in out) { sc[k] = out[k]; delete out[k]; }
  }
  out.securityContext = sc;
  delete out.serviceAccount;
  return out;
}
