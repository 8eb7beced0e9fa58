/**
 * The generic Store: every verb for every kind, over the storage contract. Per-kind
 * behaviour comes from the ResourceDefinition's strategy (as kube's registry.Store).
 */
import {
  newAlreadyExists, newBadRequest, newConflict, newInternalError, newInvalid, newNotFound, newUntypedError,
  OptimisticLockErrorMsg, validateObjectMeta, validateObjectMetaUpdate,
  type FieldError, type GroupResource, type StatusError,
} from '@windlass/machinery';
import { isStorageError, type KeyValue, type Storage } from '@windlass/storage';
import { goEncoderFor, loadGoTypes, loadedSchemas, loadSchemas, type GoEncoder } from '@windlass/schemas';
import { decodeKeyValue, encodeForStorage } from './codec.js';
import { parseResourceVersion, type ListOptions } from './listoptions.js';
import { carryUpdateMetadata, ensureNameMatches, ensureNamespaceMatches, fillCreateMetadata, generateName } from './objectmeta.js';
import { waitForRevision } from './freshness.js';
import { listFrom } from './storelist.js';
import { objectAttrs, objectMatcher, type ObjectMatcher } from './matcher.js';
import type { AdmissionOperation, DynamicAdmissionAttributes, FinishWrite, KubeObject, ResourceDefinition, StoreContext, UserInfo } from './types.js';
import { CachedObject, type AttrsFunc } from '../cacher/cachedobject.js';
import type { Cacher } from '../cacher/cacher.js';
import { listSeriesFor } from '../metrics/storagemetrics.js';
import { inFlightWritesOf, type InFlightWrites } from './inflightwrites.js';
import { semanticEqual } from './semanticequal.js';
import type { ListSeries } from '../metrics/listmetrics.js';
import { planDeletion, type GracefulOptions } from './gracefuldeletion.js';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import { ServedVersion } from './servedversion.js';
import { checkUIDPrecondition, preconditionFailed, isDefinitiveConflict } from './preconditions.js';

export interface WriteOptions {
  dryRun: boolean;
  /** Who writes; admission plugins read it (CSRs record it). */
  user?: UserInfo;
  /** A subresource written as the whole object ('status', 'approval', 'ephemeralcontainers'); '' or unset for the main resource. */
  subresource?: string;
  /**
   * The server's own change to the stored object (pods/binding assigning a node): no strategy,
   * admission or validation, as kube's binding writes through storage directly.
   */
  raw?: boolean;
  /**
   * Where the write's warnings go (strategies' WarningsOnCreate/Update, admission plugins);
   * the handler sends them as `Warning` headers. Unset: dropped (the server's own writes).
   */
  warnings?: string[];
  /**
   * The manager `metadata.managedFields` records for this write: the fieldManager parameter,
   * else the client's User-Agent prefix. Unset: the server's own write ("kube-apiserver").
   */
  manager?: string;
  /** The subresource the manager writes through, when the object is written whole for it (`scale`). */
  managerSubresource?: string;
  /** The object already carries this write's managedFields (a server-side apply computed them). */
  managedFieldsSet?: boolean;
}

/** The identity of writes the server makes itself (bootstrap) and of servers run without authentication. */
export const systemUser: UserInfo = { name: 'system:apiserver', uid: '', groups: ['system:masters', 'system:authenticated'] };

export interface DeleteOptions extends WriteOptions, GracefulOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListResult {
  /** Shared with the watch cache: never mutate their objects. */
  items: CachedObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Checks run before an object is created (admission), e.g. that its namespace exists. */
export type CreateAdmission = (store: Store, obj: KubeObject) => Promise<void>;

const finishNothing: FinishWrite = async () => {};
const maxGenerateNameAttempts = 8;
const maxUpdateAttempts = 20;

export class Store {
  /** The watch cache serving reads that allow it; without one every read goes to the store. */
  cacher?: Cacher;
  readonly gr: GroupResource;
  readonly resourcePrefix: string;
  /** The labels and fields selectors look at, per object (kept by the watch cache). */
  readonly attrsOf: AttrsFunc;
  private createAdmission: CreateAdmission[] = [];
  /** Storage and the other stores, for admission plugins and allocators (set by the server). */
  ctx?: StoreContext;
  /** apiserver_storage_list_* and apiserver_cache_list_* of this resource. */
  readonly lists?: ListSeries;
  /** The served version's view of stored objects (conversion from and to the storage version). */
  private readonly versions: ServedVersion;

  /**
   * The definition whose behaviour applies to stored objects: the storage version's for a
   * version served by conversion (autoscaling/v1 over v2), else the served one. Bodies get the
   * served version's defaults, are converted, then follow this one's strategy.
   */
  readonly kind: ResourceDefinition;

  constructor(readonly def: ResourceDefinition, readonly storage: Storage, registryPrefix: string, storageDef?: ResourceDefinition) {
    this.resourcePrefix = `${registryPrefix}/${def.keyPrefix ?? def.resource}/`;
    this.kind = def.conversion && storageDef ? storageDef : def;
    // Errors name what is stored: kube answers `Event "x" is invalid` through events.k8s.io too.
    this.gr = { group: this.kind.group, resource: this.kind.resource };
    this.attrsOf = objectAttrs(this.kind);
    this.versions = new ServedVersion(def, this.kind, this.attrsOf);
    this.lists = listSeriesFor(storage, this.resourcePrefix);
    this.inFlight = inFlightWritesOf(storage);
  }

  /** A stored object as the served version shows it. */
  fromStorage(obj: KubeObject): KubeObject {
    return this.versions.fromStorage(obj);
  }

  /** Whether this version is served by a conversion webhook (its reads may call out). */
  get convertsByWebhook(): boolean {
    return this.versions.convertsByWebhook;
  }

  /**
   * Whether serving this cached object calls out (a conversion webhook that has not converted it
   * yet): `served` would only apply the None conversion; await `servedConverted` first.
   */
  convertsOutside(cached: CachedObject): boolean {
    return this.versions.convertsOutside(cached);
  }

  /** The cached object as this version serves it, converted by the webhook when one serves it. */
  servedConverted(cached: CachedObject): Promise<CachedObject> {
    return this.versions.servedOne(cached);
  }

  /**
   * A cached object as this version serves it: itself, or its conversion, made once per
   * cached object and shared by every reader of this version (watchers included).
   */
  served(cached: CachedObject): CachedObject {
    return this.versions.served(cached);
  }

  private readonly inFlight: InFlightWrites;

  addCreateAdmission(a: CreateAdmission): void {
    this.createAdmission.push(a);
  }

  private readonly afterCreate: Array<(obj: KubeObject) => Promise<void>> = [];

  /** Runs after each stored (not dry-run) create, before it is answered: the server's controllers that must act at once (a namespace's default ServiceAccount). */
  addAfterCreate(hook: (obj: KubeObject) => Promise<void>): void {
    this.afterCreate.push(hook);
  }

  /** The key prefix of a collection: every object of the resource, or those of one namespace. */
  collectionPrefix(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.resourcePrefix}${namespace}/` : this.resourcePrefix;
  }

  objectKey(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.resourcePrefix}${namespace}/${name}` : `${this.resourcePrefix}${name}`;
  }

  get qualifiedKind() {
    return { group: this.kind.internalGroup ?? this.kind.group, kind: this.kind.kind };
  }

  /**
   * get: unset resourceVersion is a consistent read (served from the cache once it has
   * caught up with the store's current revision, else from the store); "0" reads the cache
   * (Any); another value waits until the cache has reached it (Not older than).
   */
  async get(namespace: string, name: string, resourceVersion = ''): Promise<CachedObject> {
    const key = this.objectKey(namespace, name);
    const c = this.cacher;
    if (c) {
      let fromCache = true;
      if (resourceVersion === '') fromCache = (await c.consistentRevision()) !== null;
      else if (resourceVersion === '0') await c.whenReady();
      else await c.waitUntilFresh(parseResourceVersion(resourceVersion));
      if (fromCache) {
        const cached = c.cache.tree.get(key);
        if (!cached) throw newNotFound(this.gr, name);
        return this.versions.servedOne(cached);
      }
    } else if (resourceVersion !== '' && resourceVersion !== '0') {
      await waitForRevision(this.storage, parseResourceVersion(resourceVersion));
    }
    const kv = await this.storage.get(key);
    if (!kv) throw newNotFound(this.gr, name);
    return this.versions.servedOne(CachedObject.fromStored(kv.key, kv.modRevision, kv.value, this.attrsOf));
  }

  matcher(opts: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): ObjectMatcher {
    return objectMatcher(this.kind, opts.labelSelector, opts.fieldSelector, this.def);
  }

  /** list, by the resourceVersion semantics of spec 4.4. */
  async list(namespace: string, opts: ListOptions): Promise<ListResult> {
    return this.versions.servedList(await this.listStored(namespace, opts));
  }

  private listStored(namespace: string, opts: ListOptions): Promise<ListResult> {
    return listFrom(this, this.collectionPrefix(namespace), this.matcher(opts), opts);
  }

  /**
   * A written object as the watch cache will hold it: the response and the cache's event
   * share its one decoding and its one serialization.
   */
  private written(key: string, revision: number, obj: KubeObject, stored: Buffer): CachedObject {
    const applied = this.cacher?.appliedWrite(key, revision);
    if (applied) return applied;
    delete obj.metadata.resourceVersion;
    const cached = CachedObject.fromStored(key, revision, stored, this.attrsOf, obj);
    this.cacher?.wrote(cached);
    return cached;
  }

  /**
   * The watch cache's copy of a key as the store would return it, or undefined (no cache yet,
   * or not in it). As kube's cacher does for updates, a write may start from it: the
   * compare-and-swap catches a stale copy and its failure carries the current state.
   */
  private cachedState(key: string): KeyValue | undefined {
    const cached = this.cacher?.live ? this.cacher.cache.tree.get(key) : undefined;
    return cached && { key, value: cached.storedBytes(), createRevision: 0, modRevision: cached.revision };
  }

  async create(namespace: string, body: KubeObject, opts: WriteOptions): Promise<CachedObject> {
    const created = await this.createStored(namespace, body, opts);
    if (!opts.dryRun) for (const hook of this.afterCreate) await hook(created.object);
    return this.versions.servedOne(created);
  }

  private async createStored(namespace: string, body: KubeObject, opts: WriteOptions): Promise<CachedObject> {
    this.def.strategy.defaults?.(body);
    const sameVersion = this.kind === this.def;
    if (!sameVersion) await this.recordManagedFields(undefined, body, opts);
    const obj = await this.versions.toStorageAsync(body);
    const s = this.kind.strategy;
    s.normalize?.(obj);
    if (sameVersion) await this.recordManagedFields(undefined, obj, opts);
    ensureNamespaceMatches(obj, namespace, this.def.namespaced);
    // kube's storage layer refuses this with a plain error, which reaches clients as a bare 500;
    // a dry run never reaches storage and echoes the value.
    if (obj.metadata.resourceVersion && !opts.dryRun) throw newUntypedError('resourceVersion should not be set on objects to be created');
    fillCreateMetadata(obj, this.kind.generation === true);
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    if (generated) obj.metadata.name = generateName(obj.metadata.generateName!);
    for (const admit of this.createAdmission) await admit(this, obj);
    await this.admit('mutate', 'CREATE', obj, undefined, opts);
    const finish = await this.begin(opts, (ctx) => this.kind.beginCreate?.(obj, ctx, opts.dryRun));
    try {
      const created = await this.createBegun(obj, opts, generated);
      await finish(true);
      return created;
    } catch (err) {
      await finish(false);
      throw err;
    }
  }

  /** A beginCreate/beginUpdate hook's FinishWrite, or one doing nothing (no hook, a subresource, a raw write). */
  private async begin(opts: WriteOptions, hook: (ctx: StoreContext) => Promise<FinishWrite> | undefined): Promise<FinishWrite> {
    if (opts.raw || opts.subresource || !this.ctx) return finishNothing;
    return (await hook(this.ctx)) ?? finishNothing;
  }

  private async createBegun(obj: KubeObject, opts: WriteOptions, generated: boolean): Promise<CachedObject> {
    const s = this.kind.strategy;
    // Status is the server's to write: a create starts from none (kube's PrepareForCreate resets it; kinds set their initial status).
    if (this.hasStatus) delete obj.status;
    s.prepareForCreate?.(obj, (message) => void opts.warnings?.push(message));
    this.validateOrThrow(obj.metadata.name ?? '', [...validateObjectMeta(obj.metadata, { namespaced: this.def.namespaced, nameValidator: s.nameValidator }), ...(s.validate?.(obj) ?? [])]);
    if (s.warningsOnCreate) opts.warnings?.push(...s.warningsOnCreate(obj));
    await this.admit('validate', 'CREATE', obj, undefined, opts);
    (await this.goEncoder())?.(obj);

    for (let attempt = 0; ; attempt++) {
      const key = this.objectKey(obj.metadata.namespace ?? '', obj.metadata.name!);
      try {
        if (opts.dryRun) {
          if (await this.storage.get(key)) throw newAlreadyExists(this.gr, obj.metadata.name!);
          return CachedObject.fromObject(key, 0, obj, this.attrsOf);
        }
        const stored = encodeForStorage(obj);
        try {
          const kv = await this.storage.create(key, stored);
          return this.written(key, kv.modRevision, obj, stored);
        } catch (err) {
          const own = ownWrite(err, 'KeyExists', stored);
          if (own) return this.written(key, own.modRevision, obj, stored);
          throw err;
        }
      } catch (err) {
        if (!isStorageError(err, 'KeyExists')) throw err;
        // A generated name that collides is retried with a fresh suffix (kube retries too).
        if (generated && attempt < maxGenerateNameAttempts) {
          obj.metadata.name = generateName(obj.metadata.generateName!);
          continue;
        }
        throw newAlreadyExists(this.gr, obj.metadata.name!);
      }
    }
  }

  /**
   * Read-modify-write with compare-and-swap: `tryUpdate` maps the current object to the desired
   * one (throwing to abort); a storage conflict re-reads and retries (kube's GuaranteedUpdate).
   */
  async guaranteedUpdate(namespace: string, name: string, tryUpdate: (current: KubeObject) => KubeObject | Promise<KubeObject>, opts: WriteOptions): Promise<CachedObject> {
    return this.versions.servedOne(await this.guaranteedUpdateStored(namespace, name, tryUpdate, opts));
  }

  private async guaranteedUpdateStored(namespace: string, name: string, tryUpdate: (current: KubeObject) => KubeObject | Promise<KubeObject>, opts: WriteOptions): Promise<CachedObject> {
    const key = this.objectKey(namespace, name);
    let kv: KeyValue | null | undefined = this.cachedState(key);
    let fromCache = kv !== undefined;
    if (!fromCache) kv = await this.storage.get(key);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      if (!kv) throw newNotFound(this.gr, name);
      const current = this.decodeCurrent(kv);
      let next: KubeObject;
      let finish = finishNothing;
      try {
        const desired = await tryUpdate(await this.versions.fromStorageAsync(this.decodeCurrent(kv)));
        if (opts.raw) next = desired;
        else ({ obj: next, finish } = await this.prepareUpdate(desired, current, opts));
      } catch (err) {
        // A precondition or check that failed on the cache's copy is asked again of the store's,
        // unless no newer copy could pass it.
        if (!fromCache || isDefinitiveConflict(err)) throw err;
        kv = await this.storage.get(key);
        fromCache = false;
        continue;
      }
      // This attempt's beginUpdate is finished as stored only when its object is: a retry (after
      // a conflict) or an error gives back what it took and keeps what it would have given up.
      let stored = false;
      try {
        let bytes = encodeForStorage(next);
        if (!bytes.equals(kv.value) && onlyManagedFieldsTimesChanged(next, current)) bytes = kv.value;
        // A no-op write keeps the resourceVersion and produces no watch event. Against the cache's
        // copy it proves nothing: that copy may predate a write already acknowledged, so the store's
        // is read and the update computed again, unless it is the same revision (kube's GuaranteedUpdate).
        if (bytes.equals(kv.value)) {
          if (fromCache) {
            const latest = await this.storage.get(key);
            fromCache = false;
            if (latest?.modRevision !== kv.modRevision) {
              kv = latest;
              continue;
            }
          }
          stored = true;
          return CachedObject.fromStored(key, kv.modRevision, kv.value, this.attrsOf);
        }
        if ((next.metadata.finalizers ?? []).length === 0 && this.mayRemoveOnUpdate(next, current)) {
          // As kube's deleteWithoutFinalizers: the update's own allocations go back (stored stays
          // false) and the removed object's are released by the kind's afterDelete.
          if (opts.dryRun) return CachedObject.fromObject(key, kv.modRevision, next, this.attrsOf);
          try {
            await this.storage.delete(key, kv.modRevision);
          } catch (err) {
            kv = await this.reread(err, key);
            fromCache = false;
            continue;
          }
          if (this.kind.afterDelete && this.ctx) await this.kind.afterDelete(current, this.ctx);
          return CachedObject.fromObject(key, kv.modRevision, next, this.attrsOf);
        }
        if (opts.dryRun) {
          stored = true;
          return CachedObject.fromObject(key, kv.modRevision, next, this.attrsOf);
        }
        try {
          const written = await this.inFlight.track(key, kv.modRevision, this.storage.update(key, bytes, kv.modRevision));
          stored = true;
          return this.written(key, written.modRevision, next, bytes);
        } catch (err) {
          // Another writer's result, even one equal to ours, means ours was not made: compute again.
          kv = await this.reread(err, key);
          fromCache = false;
        }
      } finally {
        await finish(stored);
      }
    }
    throw newConflict(this.gr, name, OptimisticLockErrorMsg);
  }

  /** A stored object decoded as kube's storage codec decodes it: with the kind's read defaults. */
  private decodeCurrent(kv: KeyValue): KubeObject {
    const obj = decodeKeyValue(kv);
    this.kind.schemaDefaults?.(obj);
    return obj;
  }

  private async reread(err: unknown, key: string): Promise<KeyValue | null> {
    if (isStorageError(err, 'Conflict')) return err.details.current ?? (await this.storage.get(key));
    if (isStorageError(err, 'NotFound')) return null;
    throw err;
  }

  /**
   * kube's ShouldDeleteDuringUpdate: an object being deleted is removed once its last finalizer is
   * gone (unless the kind still finalizes it), but not during a grace period: whoever terminates
   * it (the kubelet) makes the final delete.
   */
  private mayRemoveOnUpdate(next: KubeObject, current: KubeObject): boolean {
    const m = current.metadata;
    if (!m.deletionTimestamp || (m.deletionGracePeriodSeconds ?? 0) !== 0) return false;
    return !this.def.pendingFinalization?.(next);
  }

  /** The object an update attempt writes, and the end of what its beginUpdate hook began. */
  private async prepareUpdate(body: KubeObject, current: KubeObject, opts: WriteOptions): Promise<{ obj: KubeObject; finish: FinishWrite }> {
    this.def.strategy.defaults?.(body);
    const sameVersion = this.kind === this.def;
    if (!sameVersion) await this.recordManagedFields(current, body, opts);
    const desired = await this.versions.toStorageAsync(body);
    const s = this.kind.strategy;
    const name = current.metadata.name!;
    const sub = opts.subresource ?? '';
    s.normalize?.(desired);
    if (sameVersion) await this.recordManagedFields(current, desired, opts);
    desired.metadata = desired.metadata ?? {};
    const subStrategy = sub ? this.kind.subresourceStrategies?.[sub] : undefined;
    if (sub) {
      if (subStrategy?.prepareForUpdate) subStrategy.prepareForUpdate(desired, current);
      else keepAllButStatus(desired, current);
    } else if (this.hasStatus) {
      // The main resource does not write status when a status subresource does (kube's strategies).
      if (current.status === undefined) delete desired.status;
      else desired.status = current.status;
    }
    // kube compares decoded structs (apiequality.Semantic): a body that leaves out what the stored
    // form spells out (`resources: {}`, empty lists) or orders keys differently changes nothing.
    const specChanged = JSON.stringify(desired.spec) !== JSON.stringify(current.spec) && !semanticEqual(desired.spec, current.spec);
    carryUpdateMetadata(desired, current, this.kind.generation === true, specChanged);
    if (!sub) s.prepareForUpdate?.(desired, current);
    await this.admit('mutate', 'UPDATE', desired, current, opts);
    const finish = await this.begin(opts, (ctx) => this.kind.beginUpdate?.(desired, current, ctx, opts.dryRun));
    try {
      // The write is conditional on the current revision; the stored form drops it again.
      desired.metadata.resourceVersion = current.metadata.resourceVersion;
      const kindErrs = sub ? (subStrategy?.validateUpdate?.(desired, current) ?? []) : (s.validateUpdate?.(desired, current) ?? []);
      this.validateOrThrow(name, [...validateObjectMetaUpdate(desired.metadata, current.metadata), ...validateObjectMeta(desired.metadata, { namespaced: this.def.namespaced, nameValidator: s.nameValidator }), ...kindErrs]);
      const warnings = sub ? subStrategy?.warningsOnUpdate : s.warningsOnUpdate?.bind(s);
      if (warnings) opts.warnings?.push(...warnings(desired, current));
      await this.admit('validate', 'UPDATE', desired, current, opts);
      (await this.goEncoder())?.(desired);
    } catch (err) {
      await finish(false);
      throw err;
    }
    return { obj: desired, finish };
  }

  /**
   * kube's field manager runs on the decoded (converted, defaulted) request object, before the
   * strategy and admission: what the server itself changes later (allocations, admission) is
   * nobody's. A create first drops the system fields a client may not set (kube's
   * WipeObjectMetaSystemFields), so nobody owns them either.
   */
  private async recordManagedFields(current: KubeObject | undefined, body: KubeObject, opts: WriteOptions): Promise<void> {
    if (opts.raw || opts.managedFieldsSet) return;
    const fm = await fieldManagerFor(this.def);
    if (!fm) return;
    const m = (body.metadata ??= {});
    if (!current) for (const f of ['creationTimestamp', 'uid', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const) delete m[f];
    fm.update(current && (await this.versions.fromStorageAsync(current)), body, opts.manager ?? 'kube-apiserver', opts.managerSubresource ?? opts.subresource ?? '');
  }

  private goEncoding?: GoEncoder | null;

  /** Objects are stored as kube's Go structs serialize them (see @windlass/schemas gofill). */
  private async goEncoder(): Promise<GoEncoder | null> {
    if (this.goEncoding !== undefined) return this.goEncoding;
    const [schemas] = await Promise.all([loadedSchemas() ?? loadSchemas(), loadGoTypes()]);
    return (this.goEncoding = goEncoderFor(schemas, this.kind) ?? null);
  }

  /** Whether the kind has a status subresource, so that its main resource and status are written apart. */
  get hasStatus(): boolean {
    return this.kind.subresources?.some((r) => r.name === 'status') === true;
  }

  private async admit(phase: 'mutate' | 'validate', operation: AdmissionOperation, obj: KubeObject, old: KubeObject | undefined, opts: WriteOptions): Promise<void> {
    const plugins = this.kind.admission ?? [];
    const dynamic = opts.raw || !this.ctx?.dynamicAdmission?.active() ? undefined : this.ctx.dynamicAdmission;
    if (plugins.length === 0 && !dynamic) return;
    const ctx = this.ctx;
    if (!ctx) throw newInternalError(`admission for ${this.gr.resource} needs the store context`);
    const warn = (message: string): void => void opts.warnings?.push(message);
    const attrs = { operation, subresource: opts.subresource ?? '', obj, old, dryRun: opts.dryRun, user: opts.user ?? systemUser, ctx, lookup: ctx.lookup, warn };
    for (const p of plugins) if (!(phase === 'validate' && p.last)) await p[phase]?.(attrs);
    if (dynamic) await dynamic[phase](this.dynamicAttributes(operation, obj, old, opts));
    if (phase === 'validate') for (const p of plugins) if (p.last) await p.validate?.(attrs);
  }

  private dynamicAttributes(operation: DynamicAdmissionAttributes['operation'], obj: KubeObject | undefined, old: KubeObject | undefined, opts: WriteOptions): DynamicAdmissionAttributes {
    const meta = (obj ?? old)!.metadata;
    const options: Record<string, unknown> = { kind: operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
    if (opts.dryRun) options.dryRun = ['All'];
    if (opts.manager && operation !== 'DELETE') options.fieldManager = opts.manager;
    return {
      operation, def: this.kind, request: this.def, namespace: meta.namespace ?? '', name: meta.name ?? '', subresource: opts.subresource ?? '', obj, old,
      dryRun: opts.dryRun, user: opts.user ?? systemUser, options, warn: (message) => void opts.warnings?.push(message),
    };
  }

  /** PUT: replace the object; a resourceVersion in the body is a precondition. */
  async update(namespace: string, name: string, body: KubeObject, opts: WriteOptions): Promise<{ object: CachedObject; created: boolean }> {
    ensureNameMatches(body, name);
    ensureNamespaceMatches(body, namespace, this.def.namespaced);
    const precondition = body.metadata.resourceVersion;
    // The body's uid is a storage precondition (kube's DefaultUpdatedObjectInfo.Preconditions),
    // checked before the update runs and so before the resourceVersion. A PATCH has none: a uid
    // it changes is refused by validation as an immutable field.
    const uid = body.metadata.uid;
    if (precondition) {
      // A copy in the cache newer than the precondition means every later state fails it too:
      // the conflict is answered without decoding the stored object (contending writers send many).
      // So does an update in flight from the same revision once it is written.
      const key = this.objectKey(namespace, name);
      const expected = parseResourceVersion(precondition);
      const cached = this.cacher?.live ? this.cacher.cache.tree.get(key) : undefined;
      if (cached && cached.revision > expected) {
        if (uid) checkUIDPrecondition(this.gr, name, uid, cached.object);
        throw newConflict(this.gr, name, OptimisticLockErrorMsg);
      }
      const inFlight = this.inFlight.superseded(key, expected);
      if (inFlight && (await inFlight)) throw newConflict(this.gr, name, OptimisticLockErrorMsg);
    }
    try {
      const object = await this.guaranteedUpdate(namespace, name, (current) => {
        if (uid) checkUIDPrecondition(this.gr, name, uid, current);
        if (precondition && precondition !== current.metadata.resourceVersion) throw preconditionFailed(this.gr, name, precondition, current);
        return structuredClone(body);
      }, opts);
      return { object, created: false };
    } catch (err) {
      // Kinds kube lets PUT create (leases, services, events…): a missing object without a precondition is created.
      if ((err as StatusError).code !== 404 || !this.def.allowCreateOnUpdate || precondition || opts.subresource) throw err;
      try {
        return { object: await this.create(namespace, structuredClone(body), opts), created: true };
      } catch (createErr) {
        // Another writer created it meanwhile: this PUT updates theirs.
        if ((createErr as StatusError).code !== 409) throw createErr;
        return { object: await this.guaranteedUpdate(namespace, name, () => structuredClone(body), opts), created: false };
      }
    }
  }

  /** PATCH: `apply` computes the patched object from the current one; a resourceVersion it sets is a precondition. */
  async patch(namespace: string, name: string, apply: (current: KubeObject) => KubeObject, opts: WriteOptions): Promise<CachedObject> {
    return this.guaranteedUpdate(namespace, name, (current) => {
      const patched = apply(current);
      if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw newBadRequest('the patched object is not a JSON object');
      patched.metadata = patched.metadata ?? {};
      ensureNameMatches(patched, name);
      ensureNamespaceMatches(patched, namespace, this.def.namespaced);
      const rv = patched.metadata.resourceVersion;
      if (rv && rv !== current.metadata.resourceVersion) throw preconditionFailed(this.gr, name, rv, current);
      return patched;
    }, opts);
  }

  /**
   * DELETE. An object with finalizers (or that the kind finalizes itself) only gets its
   * deletionTimestamp; otherwise it is removed. Returns the last state and whether it is gone.
   */
  async delete(namespace: string, name: string, opts: DeleteOptions): Promise<{ object: KubeObject; removed: boolean }> {
    const result = await this.deleteStored(namespace, name, opts);
    return this.kind === this.def ? result : { ...result, object: await this.versions.fromStorageAsync(result.object) };
  }

  private async deleteStored(namespace: string, name: string, opts: DeleteOptions): Promise<{ object: KubeObject; removed: boolean }> {
    const key = this.objectKey(namespace, name);
    // The first attempt may start from the cache's copy, as updates do; every retry reads the store.
    let cached = this.cachedState(key);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      const fromCache = cached !== undefined;
      const kv = cached ?? (await this.storage.get(key));
      cached = undefined;
      if (!kv) throw newNotFound(this.gr, name);
      const current = this.decodeCurrent(kv);
      try {
        this.checkDeletePreconditions(current, opts);
      } catch (err) {
        if (fromCache) continue;
        throw err;
      }
      // kube's deleteValidation: validating admission sees the object about to be deleted.
      const dynamic = this.ctx?.dynamicAdmission;
      if (dynamic?.active()) await dynamic.validate(this.dynamicAttributes('DELETE', undefined, current, opts));
      const plan = planDeletion(this.def, this.kind.resource, current, opts);
      try {
        if (plan.action === 'pending') return { object: current, removed: false };
        if (plan.action === 'remove') {
          if (opts.dryRun) return { object: current, removed: true };
          return { object: await this.remove(key, kv, current), removed: true };
        }
        const pending = plan.object;
        if (opts.dryRun) return { object: pending, removed: plan.thenRemove };
        const bytes = encodeForStorage(pending);
        if (bytes.equals(kv.value)) return { object: current, removed: false };
        const written = await this.storage.update(key, bytes, kv.modRevision);
        pending.metadata.resourceVersion = String(written.modRevision);
        if (!plan.thenRemove) return { object: pending, removed: false };
        return { object: await this.removeAfterGrace(key, written, pending, opts), removed: true };
      } catch (err) {
        if (isStorageError(err, 'Conflict')) continue;
        if (isStorageError(err, 'NotFound')) throw newNotFound(this.gr, name);
        throw err;
      }
    }
    throw newConflict(this.gr, name, OptimisticLockErrorMsg);
  }

  /** Removes the stored object at this revision; answers its last state at the deletion's revision, as kube's storage does. */
  private async remove(key: string, kv: KeyValue, last: KubeObject): Promise<KubeObject> {
    const { revision } = await this.storage.delete(key, kv.modRevision);
    if (this.kind.afterDelete && this.ctx) await this.kind.afterDelete(last, this.ctx);
    last.metadata.resourceVersion = String(revision);
    return last;
  }

  /**
   * The removal that follows a grace-0 write. Whoever terminates the object may remove it first
   * (not found is success, answered with the written state), and a write in between does not stop
   * it: the preconditions are checked again, a resourceVersion one against the written revision.
   */
  private async removeAfterGrace(key: string, written: KeyValue, pending: KubeObject, opts: DeleteOptions): Promise<KubeObject> {
    const preconditions = opts.preconditions?.resourceVersion ? { ...opts.preconditions, resourceVersion: String(written.modRevision) } : opts.preconditions;
    let kv: KeyValue | null = written;
    for (let attempt = 0; attempt < maxUpdateAttempts && kv; attempt++) {
      const last = kv === written ? pending : this.decodeCurrent(kv);
      if (kv !== written) this.checkDeletePreconditions(last, { ...opts, preconditions });
      try {
        return await this.remove(key, kv, last);
      } catch (err) {
        if (isStorageError(err, 'Conflict')) kv = err.details.current ?? (await this.storage.get(key));
        else if (isStorageError(err, 'NotFound')) kv = null;
        else throw err;
      }
    }
    if (kv) throw newConflict(this.gr, pending.metadata.name!, OptimisticLockErrorMsg);
    return pending;
  }

  private checkDeletePreconditions(current: KubeObject, opts: DeleteOptions): void {
    const p = opts.preconditions;
    const name = current.metadata.name!;
    // kube's storage answers these in the kind's name (`Deployment.apps`), not the resource's.
    const gr = { group: this.kind.internalGroup ?? this.kind.group, resource: this.kind.kind };
    if (p?.uid && p.uid !== current.metadata.uid) {
      throw newConflict(gr, name, `the UID in the precondition (${p.uid}) does not match the UID in record (${current.metadata.uid}). The object might have been deleted and then recreated`);
    }
    if (p?.resourceVersion && p.resourceVersion !== current.metadata.resourceVersion) {
      throw newConflict(gr, name, `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`);
    }
  }

  /**
   * DELETE on a collection (kube's Store.DeleteCollection): deletes every object the selectors
   * match, or only the first page when a limit is asked, each as its own DELETE with the same
   * options (objects gone meanwhile are skipped). Answers the list as it was listed: the objects
   * before their deletion, the list's resourceVersion and, under a limit, its continue token.
   */
  async deleteCollection(namespace: string, listOpts: ListOptions, opts: DeleteOptions): Promise<{ items: KubeObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number }> {
    const limited = (listOpts.limit ?? 0) > 0;
    const listed = await this.list(namespace, limited ? listOpts : { ...listOpts, limit: 0, continue: '' });
    const items = listed.items.map((i) => structuredClone(i.object));
    for (const item of items) {
      try {
        await this.delete(item.metadata.namespace ?? '', item.metadata.name!, opts);
      } catch (err) {
        if ((err as StatusError).code !== 404) throw err;
      }
    }
    return { items, resourceVersion: listed.resourceVersion, continue: limited ? listed.continue : undefined, remainingItemCount: limited ? listed.remainingItemCount : undefined };
  }

  private validateOrThrow(name: string, errs: FieldError[]): void {
    if (errs.length > 0) throw newInvalid(this.qualifiedKind, name, errs);
  }
}

/**
 * A store client that re-sends a create whose answer was lost with a connection gets KeyExists
 * against its own first attempt. A create's bytes carry a fresh uid, so a current value equal
 * to them is that create's success. (Updates have no such mark: two writers can store equal
 * bytes, so an update's conflict is always another write; the etcd client re-sends nothing.)
 */
function ownWrite(err: unknown, code: 'KeyExists', stored: Buffer): KeyValue | undefined {
  if (!isStorageError(err, code)) return undefined;
  const current = err.details.current;
  return current && current.value.equals(stored) ? current : undefined;
}

/** A status write changes only status (and metadata): everything else is the stored object's. */
function keepAllButStatus(desired: KubeObject, current: KubeObject): void {
  for (const key of Object.keys(desired)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind' && !(key in current)) delete desired[key];
  for (const key of Object.keys(current)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') desired[key] = current[key];
}

/**
 * kube's IgnoreManagedFieldsTimestampsTransformer: the field manager sees the request object,
 * not what the strategy makes of it (defaults, repacked Endpoints subsets), so a write that ends
 * up changing nothing may still have moved its manager's time. Such a write is a no-op. Compared
 * as values (key order aside), as kube compares decoded objects.
 */
function onlyManagedFieldsTimesChanged(next: KubeObject, current: KubeObject): boolean {
  const mine = next.metadata.managedFields, theirs = current.metadata.managedFields;
  if (!Array.isArray(mine) || !Array.isArray(theirs) || mine.length !== theirs.length) return false;
  // Cheapest first: within one second nothing moves; a changed field set means a changed object.
  const time = (e: unknown) => (e as { time?: string }).time;
  if (mine.every((e, i) => time(e) === time(theirs[i]))) return false;
  const untimed = (e: unknown) => ({ ...(e as object), time: undefined });
  if (!mine.every((e, i) => semanticEqual(untimed(e), untimed(theirs[i])))) return false;
  const { managedFields: _n, ...nextMeta } = next.metadata;
  const { managedFields: _c, ...currentMeta } = current.metadata;
  return semanticEqual({ ...next, metadata: nextMeta }, { ...current, metadata: currentMeta });
}

