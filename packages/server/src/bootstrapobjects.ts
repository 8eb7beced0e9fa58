/**
 * Objects kube-apiserver itself creates at start, with no controller-manager running, beyond
 * the namespaces, the `kubernetes` Service and the RBAC policy: what `kubectl get
 * priorityclasses` and `kubectl get servicecidrs` list on a fresh cluster.
 *
 * - the scheduling/bootstrap-system-priority-classes post-start hook: system-node-critical and
 *   system-cluster-critical, created when missing (never updated);
 * - the kubernetes-service-cidr-controller: the `kubernetes` ServiceCIDR of
 *   --service-cluster-ip-range, created when missing, its Ready condition set to True when it
 *   has none and its CIDRs are the flags' (a ServiceCIDR being deleted is left alone).
 */
import type { AdmissionLookup, KubeObject, ServiceRanges } from './registry/types.js';

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;

/** scheduling.SystemPriorityClasses (pkg/apis/scheduling/helpers.go). */
export const systemPriorityClasses: KubeObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'system-node-critical' },
    value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'system-cluster-critical' },
    value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

const defaultServiceCIDRName = 'kubernetes';

/** Creates `obj` unless it exists; another replica creating it at the same moment is fine. */
export async function ensure(lookup: AdmissionLookup, namespace: string, obj: KubeObject): Promise<KubeObject | undefined> {
  const existing = await lookup.get(namespace, obj.metadata.name ?? '');
  if (existing) return existing;
  try {
    return await lookup.create(namespace, structuredClone(obj));
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
    return lookup.get(namespace, obj.metadata.name ?? '');
  }
}

export async function ensureSystemPriorityClasses(lookup: Lookup): Promise<void> {
  const classes = lookup('scheduling.k8s.io', 'priorityclasses');
  if (!classes) return;
  await Promise.all(systemPriorityClasses.map((pc) => ensure(classes, '', pc)));
}

interface Condition { type?: string; status?: string }

export async function ensureDefaultServiceCIDR(lookup: Lookup, ranges: ServiceRanges, now: () => Date = () => new Date()): Promise<void> {
  const cidrs = lookup('networking.k8s.io', 'servicecidrs');
  if (!cidrs) return;
  const wanted = [ranges.clusterIPRange];
  const current = await ensure(cidrs, '', {
    apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: defaultServiceCIDRName }, spec: { cidrs: wanted },
  });
  if (!current || current.metadata.deletionTimestamp || !cidrs.updateStatus) return;
  const sameConfig = JSON.stringify((current.spec as { cidrs?: string[] } | undefined)?.cidrs ?? []) === JSON.stringify(wanted);
  const ready = ((current.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
  // Ready=False is an administrator's to resolve and Ready=True needs nothing.
  if (!sameConfig || (ready && ready.status !== 'Unknown')) return;
  await cidrs.updateStatus('', defaultServiceCIDRName, (obj) => {
    const status = (obj.status ?? {}) as { conditions?: Array<Record<string, unknown>> };
    const others = (status.conditions ?? []).filter((c) => c.type !== 'Ready');
    const condition = { type: 'Ready', status: 'True', lastTransitionTime: now().toISOString().replace(/\.\d+Z$/, 'Z'), reason: '', message: 'Kubernetes default Service CIDR is ready' };
    return { ...obj, status: { ...status, conditions: [...others, condition] } };
  });
}
