import type { ResourceDefinition } from './types.js';
import { groupVersion } from './types.js';
import { configMaps } from './kinds/configmaps.js';
import { secrets } from './kinds/secrets.js';
import { namespaces } from './kinds/namespaces.js';
import { leases } from './kinds/leases.js';

export * from './types.js';

/** The built-in kinds this server serves. Adding a kind means adding its definition here. */
export const builtinResources: ResourceDefinition[] = [namespaces, configMaps, secrets, leases];

/** Lookup of served resources by group/version/resource, and the groups for discovery. */
export class APIRegistry {
  private byGVR = new Map<string, ResourceDefinition>();
  private gvs = new Map<string, ResourceDefinition[]>();

  constructor(defs: ResourceDefinition[] = builtinResources) {
    for (const d of defs) this.add(d);
  }

  add(def: ResourceDefinition): void {
    this.byGVR.set(`${def.group}/${def.version}/${def.resource}`, def);
    const gv = groupVersion(def);
    const list = this.gvs.get(gv) ?? [];
    list.push(def);
    this.gvs.set(gv, list);
  }

  lookup(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.byGVR.get(`${group}/${version}/${resource}`);
  }

  /** Every served group version: 'v1', 'coordination.k8s.io/v1', … */
  groupVersions(): string[] {
    return [...this.gvs.keys()];
  }

  resourcesIn(gv: string): ResourceDefinition[] | undefined {
    return this.gvs.get(gv);
  }

  all(): ResourceDefinition[] {
    return [...this.byGVR.values()];
  }

  hasGroup(group: string): boolean {
    return this.all().some((d) => d.group === group);
  }
}
