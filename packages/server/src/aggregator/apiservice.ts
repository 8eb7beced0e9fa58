/**
 * APIServices as kube-aggregator reads them: the service a remote one is reached through, its
 * TLS settings, its priorities, whether it is Available; and kube's SortedByGroupAndVersion
 * order, which the aggregator's discovery documents follow.
 */
import { compareKubeVersions } from '../crd/resources.js';
import type { KubeObject } from '../registry/types.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

export interface APIServiceInfo {
  name: string;
  group: string;
  version: string;
  /** Unset for a local APIService (served by this server). */
  service?: ServiceReference;
  /** spec.caBundle decoded: the PEM the backend's certificate is verified against. */
  caPem?: string;
  insecureSkipTLSVerify: boolean;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** status.conditions Available is True (kube's IsAPIServiceConditionTrue). */
  available: boolean;
  object: KubeObject;
}

interface Spec {
  group?: string;
  version?: string;
  service?: { namespace?: string; name?: string; port?: number };
  caBundle?: string;
  insecureSkipTLSVerify?: boolean;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}

export interface APIServiceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export function conditionsOf(o: KubeObject): APIServiceCondition[] {
  const c = (o.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as APIServiceCondition[]) : [];
}

export function apiServiceInfo(o: KubeObject): APIServiceInfo {
  const spec = (o.spec ?? {}) as Spec;
  const svc = spec.service;
  const ca = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : '';
  return {
    name: o.metadata.name ?? '',
    group: spec.group ?? '',
    version: spec.version ?? '',
    service: svc ? { namespace: svc.namespace ?? '', name: svc.name ?? '', port: svc.port ?? 443 } : undefined,
    caPem: ca.trim() === '' ? undefined : ca,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    groupPriorityMinimum: spec.groupPriorityMinimum ?? 0,
    versionPriority: spec.versionPriority ?? 0,
    available: conditionsOf(o).some((c) => c.type === 'Available' && c.status === 'True'),
    object: o,
  };
}

/**
 * kube's SortedByGroupAndVersion: groups by their highest groupPriorityMinimum (higher first),
 * then by name; a group's versions by versionPriority (higher first), then kube's version order.
 */
export function sortedByGroupAndVersion(services: APIServiceInfo[]): APIServiceInfo[][] {
  const byGroup = new Map<string, APIServiceInfo[]>();
  for (const s of services) {
    let list = byGroup.get(s.group);
    if (!list) byGroup.set(s.group, (list = []));
    list.push(s);
  }
  const groups = [...byGroup.values()];
  const priority = (list: APIServiceInfo[]) => Math.max(...list.map((s) => s.groupPriorityMinimum));
  groups.sort((a, b) => priority(b) - priority(a) || (a[0].group < b[0].group ? -1 : a[0].group > b[0].group ? 1 : 0));
  for (const list of groups) list.sort((a, b) => b.versionPriority - a.versionPriority || compareKubeVersions(a.version, b.version));
  return groups;
}
