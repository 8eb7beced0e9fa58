/**
 * The built-in resources served: every resource of kube-apiserver 1.35 served by default,
 * from the generated table, each with its hand-written strategy where one exists (kinds/<group>/)
 * or the generic one. The table's API facts (verbs, subresources, key layout) hold for both.
 */
import { builtinResourceTable, type BuiltinResource } from '@windlass/schemas';
import type { ResourceDefinition } from './types.js';
import { genericDefinition } from './kinds/generic.js';
import { configMaps } from './kinds/core/configmaps.js';
import { namespaces } from './kinds/core/namespaces.js';
import { secrets } from './kinds/core/secrets.js';
import { leases } from './kinds/coordination/leases.js';

/** Kinds with behaviour beyond the schema; adding one is a definition here, not handler code. */
const handWritten: ResourceDefinition[] = [namespaces, configMaps, secrets, leases];

const gvr = (d: { group: string; version: string; resource: string }) => `${d.group}/${d.version}/${d.resource}`;

export function builtinDefinitions(table: readonly BuiltinResource[] = builtinResourceTable, own: ResourceDefinition[] = handWritten): ResourceDefinition[] {
  const byGVR = new Map(own.map((d) => [gvr(d), d]));
  return table.filter((r) => r.servedByDefault).map((r) => {
    const hand = byGVR.get(gvr(r));
    return hand ? { ...genericDefinition(r), ...hand } : genericDefinition(r);
  });
}
