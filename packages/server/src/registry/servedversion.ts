/**
 * What a Store serves of a version that is not its storage version (autoscaling/v1 over v2, a
 * CRD's other versions): bodies converted to the storage version, stored objects converted
 * back, by the definition's own conversion or a CRD's conversion webhook. Each cached object's
 * converted view is made once and shared by every reader of the version, watchers included.
 */
import { CachedObject, type AttrsFunc } from '../cacher/cachedobject.js';
import type { ListResult } from './store.js';
import type { KubeObject, ResourceDefinition } from './types.js';

export class ServedVersion {
  /** `def` is the served version's definition, `kind` the storage version's (the same object when not converted). */
  /** Converted views of cached objects, by cached object: dropped with it. */
  private readonly views = new WeakMap<CachedObject, CachedObject>();

  constructor(private readonly def: ResourceDefinition, private readonly kind: ResourceDefinition, private readonly attrsOf: AttrsFunc) {}

  /** A body of the served version as the storage version holds it (identity without conversion). */
  toStorage(obj: KubeObject): KubeObject {
    return this.kind !== this.def && this.def.conversion ? this.def.conversion.toStorage(obj) : obj;
  }

  /** A stored object as the served version shows it. */
  fromStorage(obj: KubeObject): KubeObject {
    return this.kind !== this.def && this.def.conversion ? this.def.conversion.fromStorage(obj) : obj;
  }

  /** The converter that calls out (a CRD's conversion webhook), for a version served by one. */
  private get outsideConversion(): ((objs: KubeObject[], toStorage: boolean) => Promise<KubeObject[]>) | undefined {
    return this.kind !== this.def ? this.def.conversion?.convert : undefined;
  }

  async toStorageAsync(obj: KubeObject): Promise<KubeObject> {
    const convert = this.outsideConversion;
    return convert ? (await convert([obj], true))[0] : this.toStorage(obj);
  }

  async fromStorageAsync(obj: KubeObject): Promise<KubeObject> {
    const convert = this.outsideConversion;
    return convert ? (await convert([obj], false))[0] : this.fromStorage(obj);
  }

  /** Cached objects as this version serves them, the ones not converted before in one outside call. */
  async servedAll(items: CachedObject[]): Promise<CachedObject[]> {
    const convert = this.outsideConversion;
    if (!convert) return items.map((i) => this.served(i));
    const missing = items.filter((i) => !this.views.has(i));
    if (missing.length > 0) {
      const converted = await convert(missing.map((i) => i.object), false);
      missing.forEach((i, n) => this.views.set(i, CachedObject.fromObject(i.key, i.revision, converted[n], this.attrsOf)));
    }
    return items.map((i) => this.views.get(i)!);
  }

  async servedOne(item: CachedObject): Promise<CachedObject> {
    return this.outsideConversion ? (await this.servedAll([item]))[0] : this.served(item);
  }

  /** Whether this version is served by a conversion webhook (its reads may call out). */
  get convertsByWebhook(): boolean {
    return this.outsideConversion !== undefined;
  }

  /**
   * Whether serving this cached object calls out (a conversion webhook that has not converted it
   * yet): `served` would only apply the None conversion; await `servedOne` first.
   */
  convertsOutside(cached: CachedObject): boolean {
    return this.outsideConversion !== undefined && !this.views.has(cached);
  }

  /**
   * A cached object as this version serves it: itself, or its conversion, made once per
   * cached object and shared by every reader of this version (watchers included).
   */
  served(cached: CachedObject): CachedObject {
    if (this.kind === this.def) return cached;
    let view = this.views.get(cached);
    if (!view) this.views.set(cached, (view = CachedObject.fromObject(cached.key, cached.revision, this.fromStorage(cached.object), this.attrsOf)));
    return view;
  }

  async servedList(result: ListResult): Promise<ListResult> {
    return this.kind === this.def ? result : { ...result, items: await this.servedAll(result.items) };
  }
}
