/**
 * Priority admission (plugin/pkg/admission/priority): a new pod's priority and preemption
 * policy come from its PriorityClass (or the global default class, or 0 and
 * PreemptLowerPriority when there is none); a pod may not state a different priority itself,
 * and updates keep what creation computed.
 */
import { newForbidden, newInternalError } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionPlugin, KubeObject } from '../registry/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const gr = { group: '', resource: 'pods' };

/** The classes kube-apiserver creates at start (scheduling.SystemPriorityClasses). */
const systemClasses: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

interface Resolved { name: string; value: number; preemptionPolicy?: string }

async function defaultPriority(attrs: AdmissionAttributes): Promise<Resolved> {
  const classes = (await attrs.lookup('scheduling.k8s.io', 'priorityclasses')?.list('')) ?? [];
  let best: KubeObject | undefined;
  for (const pc of classes) {
    if (pc.globalDefault !== true) continue;
    if (!best || Number(pc.value ?? 0) > Number(best.value ?? 0)) best = pc;
  }
  if (best) return { name: best.metadata.name ?? '', value: Number(best.value ?? 0), preemptionPolicy: typeof best.preemptionPolicy === 'string' ? best.preemptionPolicy : undefined };
  return { name: '', value: 0, preemptionPolicy: 'PreemptLowerPriority' };
}

async function namedPriority(attrs: AdmissionAttributes, name: string): Promise<Resolved> {
  const lookup = attrs.lookup('scheduling.k8s.io', 'priorityclasses');
  const pc = await lookup?.get('', name);
  if (pc) return { name, value: Number(pc.value ?? 0), preemptionPolicy: typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : 'PreemptLowerPriority' };
  if (name in systemClasses) return { name, value: systemClasses[name], preemptionPolicy: 'PreemptLowerPriority' };
  if (!lookup) throw newInternalError(new Error(`failed to get PriorityClass with name ${name}`));
  throw newForbidden(gr, attrs.obj.metadata.name ?? '', `no PriorityClass with name ${name} was found`);
}

export const priorityAdmission: AdmissionPlugin = {
  name: 'Priority',
  async mutate(attrs) {
    if (attrs.subresource !== '') return;
    const spec = (isObject(attrs.obj.spec) ? attrs.obj.spec : (attrs.obj.spec = {})) as Json;
    if (attrs.operation === 'UPDATE') {
      const old = isObject(attrs.old?.spec) ? attrs.old.spec : {};
      if ((spec.priority === undefined || spec.priority === null) && typeof old.priority === 'number') spec.priority = old.priority;
      if ((spec.preemptionPolicy === undefined || spec.preemptionPolicy === null) && typeof old.preemptionPolicy === 'string') spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    const resolved = name ? await namedPriority(attrs, name) : await defaultPriority(attrs);
    if (!name && resolved.name) spec.priorityClassName = resolved.name;
    const podName = attrs.obj.metadata.name ?? '';
    if (typeof spec.priority === 'number' && spec.priority !== resolved.value) {
      throw newForbidden(gr, podName, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${resolved.value} from the given PriorityClass name`);
    }
    spec.priority = resolved.value;
    if (resolved.preemptionPolicy) {
      if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== resolved.preemptionPolicy) {
        throw newForbidden(gr, podName, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${resolved.preemptionPolicy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = resolved.preemptionPolicy;
    }
  },
};
