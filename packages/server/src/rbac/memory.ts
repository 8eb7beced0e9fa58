/**
 * An in-memory stand-in for the server's lookup of stored objects, for tests of the
 * authorizer, the bootstrap policy and the review kinds without a server.
 */
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import type { Lookup } from './source.js';

export interface MemoryLookup {
  lookup: Lookup;
  /** Objects by `group/resource`, then by `namespace/name`. */
  readonly objects: Map<string, Map<string, KubeObject>>;
  add(group: string, resource: string, obj: object): void;
}

export function memoryLookup(): MemoryLookup {
  const objects = new Map<string, Map<string, KubeObject>>();
  const bucket = (group: string, resource: string) => {
    const k = `${group}/${resource}`;
    let b = objects.get(k);
    if (!b) objects.set(k, (b = new Map()));
    return b;
  };
  const key = (ns: string, name: string) => `${ns}/${name}`;
  const lookup: Lookup = (group, resource): AdmissionLookup => {
    const b = bucket(group, resource);
    return {
      get: async (ns, name) => structuredClone(b.get(key(ns, name))),
      list: async (ns) =>
        [...b.entries()].filter(([k]) => !ns || k.startsWith(`${ns}/`)).sort(([x], [y]) => (x < y ? -1 : 1)).map(([, o]) => structuredClone(o)),
      create: async (ns, obj) => {
        const k = key(ns, obj.metadata.name ?? '');
        if (b.has(k)) throw Object.assign(new Error(`${resource} "${obj.metadata.name}" already exists`), { code: 409 });
        const stored = structuredClone(obj);
        if (ns) stored.metadata.namespace = ns;
        b.set(k, stored);
        return structuredClone(stored);
      },
      delete: async (ns, name) => {
        b.delete(key(ns, name));
      },
      update: async (ns, obj) => {
        const k = key(ns, obj.metadata.name ?? '');
        const current = b.get(k);
        if (!current) throw Object.assign(new Error(`${resource} "${obj.metadata.name}" not found`), { code: 404 });
        const rv = obj.metadata.resourceVersion;
        if (rv && rv !== (current.metadata.resourceVersion ?? '')) throw Object.assign(new Error(`${resource} "${obj.metadata.name}": the object has been modified`), { code: 409 });
        const stored = structuredClone(obj);
        stored.metadata.resourceVersion = String(Number(current.metadata.resourceVersion ?? '0') + 1);
        b.set(k, stored);
        return structuredClone(stored);
      },
    };
  };
  return {
    lookup,
    objects,
    add(group, resource, obj) {
      const o = obj as KubeObject;
      bucket(group, resource).set(key(o.metadata.namespace ?? '', o.metadata.name ?? ''), structuredClone(o));
    },
  };
}
