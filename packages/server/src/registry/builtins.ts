/**
 * The built-in resources served: every resource of kube-apiserver 1.35 served by default,
 * from the generated table, each with its hand-written definition where one exists
 * (kinds/<group>/, one index per API group) over the generic one. The table's API facts
 * (verbs, subresources, key layout) hold for both.
 */
import { builtinResourceTable, type BuiltinResource } from '@windlass/schemas';
import type { KindDefinition, ResourceDefinition } from './types.js';
import { genericDefinition } from './kinds/generic.js';
import { resourceQuotaAdmission } from '../admission/resourcequota.js';
import { definitions as admissionregistration } from './kinds/admissionregistration/index.js';
import { definitions as apiextensions } from './kinds/apiextensions/index.js';
import { definitions as apiregistration } from './kinds/apiregistration/index.js';
import { definitions as apps } from './kinds/apps/index.js';
import { definitions as authentication } from './kinds/authentication/index.js';
import { definitions as authorization } from './kinds/authorization/index.js';
import { definitions as autoscaling } from './kinds/autoscaling/index.js';
import { definitions as batch } from './kinds/batch/index.js';
import { definitions as certificates } from './kinds/certificates/index.js';
import { definitions as coordination } from './kinds/coordination/index.js';
import { definitions as core } from './kinds/core/index.js';
import { definitions as discovery } from './kinds/discovery/index.js';
import { definitions as events } from './kinds/events/index.js';
import { definitions as flowcontrol } from './kinds/flowcontrol/index.js';
import { definitions as networking } from './kinds/networking/index.js';
import { definitions as node } from './kinds/node/index.js';
import { definitions as policy } from './kinds/policy/index.js';
import { definitions as rbac } from './kinds/rbac/index.js';
import { definitions as resource } from './kinds/resource/index.js';
import { definitions as scheduling } from './kinds/scheduling/index.js';
import { definitions as storage } from './kinds/storage/index.js';

/** Kinds with behaviour beyond the schema; adding one is a definition in its group's index, not handler code. */
const handWritten: KindDefinition[] = [
  ...core, ...admissionregistration, ...apiextensions, ...apiregistration, ...apps, ...authentication, ...authorization,
  ...autoscaling, ...batch, ...certificates, ...coordination, ...discovery, ...events, ...flowcontrol, ...networking,
  ...node, ...policy, ...rbac, ...resource, ...scheduling, ...storage,
];

const gvr = (d: { group: string; version: string; resource: string }) => `${d.group}/${d.version}/${d.resource}`;

export function builtinDefinitions(table: readonly BuiltinResource[] = builtinResourceTable, own: KindDefinition[] = handWritten): ResourceDefinition[] {
  const byGVR = new Map(own.map((d) => [gvr(d), d]));
  return table.filter((r) => r.servedByDefault).map((r) => {
    const generic = genericDefinition(r);
    const hand = byGVR.get(gvr(r));
    const def = hand ? { ...generic, ...hand, strategy: { ...generic.strategy, ...hand.strategy } } : generic;
    // kube's ResourceQuota admission charges every namespaced write, after the kind's own plugins.
    return def.namespaced && def.stored !== false ? { ...def, admission: [...(def.admission ?? []), resourceQuotaAdmission(def.group, def.resource)] } : def;
  });
}
