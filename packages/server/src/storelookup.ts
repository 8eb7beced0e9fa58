/**
 * Another served resource's objects as kube's admission plugins and controllers read their
 * informers: the watch cache, falling back to the store; writes through the resource's Store.
 */
import { parseListOptions } from './registry/listoptions.js';
import type { Store } from './registry/store.js';
import type { AdmissionLookup, KubeObject } from './registry/types.js';

const cachedList = parseListOptions(new URLSearchParams('resourceVersion=0'), false);
const consistentList = parseListOptions(new URLSearchParams(), false);

export function storeLookup(store: Store): AdmissionLookup {
  const notFound = (err: unknown) => {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  };
  return {
    get: async (namespace, name) => {
      const cached = await store.get(namespace, name, '0').then((c) => c.object, notFound);
      return cached ?? store.get(namespace, name).then((c) => c.object, notFound);
    },
    list: async (namespace) => {
      const cached = (await store.list(namespace, cachedList)).items;
      return (cached.length > 0 ? cached : (await store.list(namespace, consistentList)).items).map((c) => c.object);
    },
    create: async (namespace, obj: KubeObject, opts) => (await store.create(namespace, obj, { dryRun: opts?.dryRun === true })).object,
    update: async (namespace, obj: KubeObject) => (await store.update(namespace, obj.metadata.name ?? '', obj, { dryRun: false })).object.object,
    listCached: async (namespace) => (store.cacher?.live ? (await store.list(namespace, cachedList)).items.map((c) => c.object) : undefined),
    updateStatus: async (namespace, name, tryUpdate) => {
      // From the stored object, never an older cached copy: the store takes a conflicting write whose bytes
      // equal the current ones for its own retried write, so two writers computing from one base would both pass.
      const latest = Number((await store.get(namespace, name)).object.metadata.resourceVersion);
      const stale = (o: KubeObject) => { if (Number(o.metadata.resourceVersion) < latest) throw new Error('stale copy'); return tryUpdate(o); };
      return (await store.guaranteedUpdate(namespace, name, stale, { dryRun: false, subresource: 'status' })).object;
    },
    delete: async (namespace, name) => {
      await store.delete(namespace, name, { dryRun: false }).catch(notFound);
    },
  };
}
