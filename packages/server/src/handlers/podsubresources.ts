/**
 * The pods subresources that are requests rather than views: `binding` (the scheduler assigns
 * a node) and `eviction` (a disruption-budget-checked delete). Both answer a 201 Success
 * Status, as kube's BindingREST and EvictionREST do.
 */
import { failure, labelSelectorFromObject, newBadRequest, newConflict, type LabelSelectorObject, type Status } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from '../registry/types.js';
import { writeObject } from '../respond.js';
import { decodeObjectBody } from './body.js';
import { decodeTyped, typedDecoder } from './typed.js';
import { parseModifyOptions } from './options.js';
import type { RequestScope } from './scope.js';

const requestKind = (group: string, kind: string, resource: string) => ({
  group, version: 'v1', kind, listKind: `${kind}List`, resource, singularName: kind.toLowerCase(), namespaced: true, verbs: ['create'],
  strategy: { nameValidator: () => [] }, table: { columns: [], cells: () => [] },
}) as ResourceDefinition;

const bindingDef = requestKind('', 'Binding', 'bindings');
const evictionDef = requestKind('policy', 'Eviction', 'evictions');

const created: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

type Pod = KubeObject & {
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: Array<Record<string, unknown>> };
};

async function decodeRequest(s: RequestScope, def: ResourceDefinition): Promise<KubeObject> {
  const opts = parseModifyOptions(s.query, 'CreateOptions');
  const body = decodeObjectBody(s.body, s.req.headers['content-type'], def);
  decodeTyped(await typedDecoder(def), body, def, opts.fieldValidation, s.res);
  if (body.metadata.name && body.metadata.name !== s.info.name) throw newBadRequest(`name in URL does not match name in ${def.kind} object`);
  return body;
}

export function servesPodSubresource(def: ResourceDefinition, subresource: string, verb: string): boolean {
  return def.group === '' && def.resource === 'pods' && verb === 'create' && (subresource === 'binding' || subresource === 'eviction');
}

export async function servePodSubresource(s: RequestScope): Promise<void> {
  if (s.info.subresource === 'binding') await bind(s);
  else await evict(s);
  writeObject(s.res, 201, created, s.negotiated);
}

/** kube's assignPod: the node once, the binding's annotations, and the PodScheduled condition. */
async function bind(s: RequestScope): Promise<void> {
  const binding = await decodeRequest(s, bindingDef);
  const target = binding.target as { kind?: string; name?: string } | undefined;
  if (!target?.name) throw failure(422, 'Invalid', `Binding.core "${s.info.name}" is invalid: target.name: Required value`);
  const gr = { group: '', resource: 'pods/binding' };
  const dryRun = s.query.getAll('dryRun').length > 0;
  await s.store.guaranteedUpdate(s.info.namespace, s.info.name, (current) => {
    const pod = current as Pod;
    if (pod.metadata.deletionTimestamp) throw newConflict(gr, s.info.name, `pod ${s.info.name} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName) throw newConflict(gr, s.info.name, `pod ${s.info.name} is already assigned to node "${pod.spec.nodeName}"`);
    (pod.spec ??= {}).nodeName = target.name;
    const annotations = binding.metadata.annotations;
    if (annotations && Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
    const status = (pod.status ??= {});
    const conditions = (status.conditions ??= []);
    const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const at = conditions.findIndex((c) => c.type === 'PodScheduled');
    if (at >= 0) conditions[at] = scheduled;
    else conditions.push(scheduled);
    return pod;
  }, { dryRun, raw: true, user: s.user });
}

/**
 * kube's EvictionREST: a pod that is not running (pending, finished, being deleted) is deleted
 * at once; a running one only when no PodDisruptionBudget selecting it is exhausted.
 */
async function evict(s: RequestScope): Promise<void> {
  const eviction = await decodeRequest(s, evictionDef);
  const current = (await s.store.get(s.info.namespace, s.info.name)).object as Pod;
  const phase = current.status?.phase;
  const ignoresBudgets = current.metadata.deletionTimestamp || phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed';
  if (!ignoresBudgets) {
    const budgets = (await s.store.ctx?.lookup('policy', 'poddisruptionbudgets')?.list(s.info.namespace)) ?? [];
    const matching = budgets.filter((b) => labelSelectorFromObject((b.spec as { selector?: LabelSelectorObject } | undefined)?.selector)?.matches(current.metadata.labels ?? {}) === true);
    if (matching.length > 1) throw failure(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    const pdb = matching[0];
    if (pdb && (((pdb.status as { disruptionsAllowed?: number } | undefined)?.disruptionsAllowed ?? 0) < 1)) {
      throw failure(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
        causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata.name} needs ${(pdb.status as { desiredHealthy?: number }).desiredHealthy ?? 0} healthy pods and has ${(pdb.status as { currentHealthy?: number }).currentHealthy ?? 0} currently` }],
      });
    }
  }
  const options = (eviction.deleteOptions ?? {}) as { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: string[]; gracePeriodSeconds?: number };
  await s.store.delete(s.info.namespace, s.info.name, {
    dryRun: s.query.getAll('dryRun').length > 0 || (options.dryRun ?? []).length > 0,
    preconditions: options.preconditions, gracePeriodSeconds: options.gracePeriodSeconds,
  });
}
