import type { ResourceDefinition } from './types.js';
import { groupVersion } from './types.js';
import { builtinDefinitions } from './builtins.js';

export * from './types.js';
export { builtinDefinitions } from './builtins.js';

/** The built-in kinds this server serves: every resource kube-apiserver 1.35 serves by default. */
export const builtinResources: ResourceDefinition[] = builtinDefinitions();

/**
 * Lookup of served resources by group/version/resource, and the groups for discovery. Every
 * lookup a request makes is one Map get, however many kinds are served.
 */
export class APIRegistry {
  private byGVR = new Map<string, ResourceDefinition>();
  private gvs = new Map<string, ResourceDefinition[]>();
  /** Group → its versions, preferred first (the order definitions were added in). */
  private groups = new Map<string, string[]>();

  constructor(defs: ResourceDefinition[] = builtinResources) {
    for (const d of defs) this.add(d);
  }

  add(def: ResourceDefinition): void {
    this.byGVR.set(`${def.group}/${def.version}/${def.resource}`, def);
    const gv = groupVersion(def);
    const list = this.gvs.get(gv) ?? [];
    list.push(def);
    this.gvs.set(gv, list);
    const versions = this.groups.get(def.group) ?? [];
    if (!versions.includes(def.version)) versions.push(def.version);
    this.groups.set(def.group, versions);
  }

  /** Stops serving a definition added before (a custom resource whose CRD went away or changed). */
  remove(def: ResourceDefinition): void {
    const key = `${def.group}/${def.version}/${def.resource}`;
    if (this.byGVR.get(key) !== def) return;
    this.byGVR.delete(key);
    const gv = groupVersion(def);
    const list = (this.gvs.get(gv) ?? []).filter((d) => d !== def);
    if (list.length > 0) {
      this.gvs.set(gv, list);
      return;
    }
    this.gvs.delete(gv);
    const versions = (this.groups.get(def.group) ?? []).filter((v) => v !== def.version);
    if (versions.length > 0) this.groups.set(def.group, versions);
    else this.groups.delete(def.group);
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

  /** Served API groups in discovery order ('' is the core group). */
  groupNames(): string[] {
    return [...this.groups.keys()];
  }

  /** A group's served versions, the preferred one first; undefined for a group not served. */
  versionsOf(group: string): string[] | undefined {
    return this.groups.get(group);
  }

  hasGroup(group: string): boolean {
    return this.groups.has(group);
  }
}
