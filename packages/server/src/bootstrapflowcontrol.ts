/**
 * API Priority and Fairness's configuration objects, as kube-apiserver 1.35 creates them at start
 * (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go, written by the
 * priority-and-fairness-config-producer post-start hook): the mandatory and suggested
 * PriorityLevelConfigurations and FlowSchemas, each annotated `apf.kubernetes.io/autoupdate-spec:
 * "true"`. Windlass does not enforce them yet; dashboards, `kubectl get flowschemas` and tools
 * that read them find what a real cluster has.
 *
 * As kube's ensurer does: missing objects are created; a mandatory object whose autoupdate
 * annotation is "true" gets its spec back if it was changed; suggested objects an administrator
 * changed are left alone. The APF controller's Dangling condition is set on the FlowSchemas created.
 */
import { ensure as ensureExists } from './bootstrapobjects.js';
import { semanticEqual } from './registry/semanticequal.js';
import type { AdmissionLookup, KubeObject } from './registry/types.js';

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;
type Json = Record<string, unknown>;

const autoUpdate = { 'apf.kubernetes.io/autoupdate-spec': 'true' };
const apiVersion = 'flowcontrol.apiserver.k8s.io/v1';

function priorityLevel(name: string, spec: Json): KubeObject {
  return { apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { ...autoUpdate } }, spec };
}

function limited(shares: number, lendable: number, queuing?: { queues: number; handSize: number }): Json {
  const limitResponse = queuing ? { type: 'Queue', queuing: { ...queuing, queueLengthLimit: 50 } } : { type: 'Reject' };
  return { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent: lendable, limitResponse } };
}

const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]) => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = () => [{ kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }];
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean) => ({ verbs, apiGroups, resources, clusterScope, namespaces: ['*'] });
const everything = { resourceRules: [resourceRule(['*'], ['*'], ['*'], true)], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };

function flowSchema(name: string, priorityLevelName: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rules: Json): KubeObject {
  return {
    apiVersion, kind: 'FlowSchema', metadata: { name, annotations: { ...autoUpdate } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevelName },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  };
}

export const mandatoryPriorityLevels = [
  priorityLevel('catch-all', limited(5, 0)),
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const suggestedPriorityLevels = [
  priorityLevel('system', limited(30, 33, { queues: 64, handSize: 6 })),
  priorityLevel('node-high', limited(40, 25, { queues: 64, handSize: 6 })),
  priorityLevel('leader-election', limited(10, 0, { queues: 16, handSize: 4 })),
  priorityLevel('workload-high', limited(40, 50, { queues: 128, handSize: 6 })),
  priorityLevel('workload-low', limited(100, 90, { queues: 128, handSize: 6 })),
  priorityLevel('global-default', limited(20, 50, { queues: 128, handSize: 6 })),
];

export const mandatoryFlowSchemas = [
  flowSchema('exempt', 'exempt', 1, undefined, { subjects: groups('system:masters'), ...everything }),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', { subjects: groups('system:unauthenticated', 'system:authenticated'), ...everything }),
];

export const suggestedFlowSchemas = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', { subjects: groups('system:nodes'), ...everything }),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('probes', 'exempt', 2, undefined, {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts()],
    resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', { subjects: users('system:kube-controller-manager'), ...everything }),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', { subjects: users('system:kube-scheduler'), ...everything }),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', { subjects: kubeSystemServiceAccounts(), ...everything }),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', { subjects: groups('system:serviceaccounts'), ...everything }),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', { subjects: groups('system:unauthenticated', 'system:authenticated'), ...everything }),
];

/** Creates `obj` when missing; a mandatory one annotated for auto-update gets its spec back. */
async function ensure(lookup: AdmissionLookup, obj: KubeObject, mandatory: boolean): Promise<KubeObject | undefined> {
  const existing = await ensureExists(lookup, '', obj);
  if (!existing) return existing;
  const wantsUpdate = existing.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'] === 'true';
  if (!mandatory || !wantsUpdate || !lookup.update || semanticEqual(existing.spec, obj.spec)) return existing;
  try {
    return await lookup.update('', { ...existing, spec: structuredClone(obj.spec) });
  } catch (err) {
    // Changed meanwhile (another replica's ensurer): the next start looks again.
    if ((err as { code?: number }).code !== 409) throw err;
    return existing;
  }
}

interface Condition { type?: string; status?: string; reason?: string; message?: string }

/** The APF controller's Dangling condition: whether the FlowSchema's priority level exists. */
async function markDangling(schemas: AdmissionLookup, fs: KubeObject, levelExists: boolean, now: () => Date): Promise<void> {
  if (!schemas.updateStatus) return;
  const pl = String((fs.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)?.priorityLevelConfiguration?.name ?? '');
  const wanted = levelExists
    ? { status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} and it exists` }
    : { status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} but there is no such object` };
  const current = ((fs.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Dangling');
  if (current && current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) return;
  await schemas.updateStatus('', fs.metadata.name ?? '', (obj) => {
    const status = (obj.status ?? {}) as { conditions?: Condition[] };
    const others = (status.conditions ?? []).filter((c) => c.type !== 'Dangling');
    const condition = { type: 'Dangling', ...wanted, lastTransitionTime: now().toISOString().replace(/\.\d+Z$/, 'Z') };
    return { ...obj, status: { ...status, conditions: [...others, condition] } };
  });
}

export async function ensureFlowControlBootstrap(lookup: Lookup, now: () => Date = () => new Date()): Promise<void> {
  const levels = lookup('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations');
  const schemas = lookup('flowcontrol.apiserver.k8s.io', 'flowschemas');
  if (!levels || !schemas) return;
  // Each step's writes at once: the store commits writes that arrive together in one transaction.
  await Promise.all([
    ...mandatoryPriorityLevels.map((pl) => ensure(levels, pl, true)),
    ...suggestedPriorityLevels.map((pl) => ensure(levels, pl, false)),
  ]);
  const ensured = await Promise.all([
    ...mandatoryFlowSchemas.map((fs) => ensure(schemas, fs, true)),
    ...suggestedFlowSchemas.map((fs) => ensure(schemas, fs, false)),
  ]);
  const existingLevels = new Set((await levels.list('')).map((pl) => pl.metadata.name));
  await Promise.all(ensured.map((fs) => {
    if (!fs) return undefined;
    const pl = (fs.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)?.priorityLevelConfiguration?.name;
    return markDangling(schemas, fs, existingLevels.has(pl), now);
  }));
}
