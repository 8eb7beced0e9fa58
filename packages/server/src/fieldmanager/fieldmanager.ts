/**
 * kube's default field manager (apimachinery managedfields/internal), one per served kind and
 * version: every write records who set which fields in `metadata.managedFields`, and
 * server-side apply merges a manager's configuration into the live object, refusing with 409
 * where it would change fields another manager owns. The layers of kube's chain, outermost
 * first, are the steps below: decode (or reset) the entries, skip objects that predate
 * tracking, name the manager, record the operation's changes under it with the time, strip
 * the metadata fields nobody owns, and cap the number of Update managers.
 */
import { newBadRequest, newUntypedError } from '@windlass/machinery';
import { Conflicts, FieldSet, makePath, type JsonValue, type ManagedFields, type SmdType } from '@windlass/patch';
import { allowedConflictsFromLastApplied, keepLastApplied, migratingManager } from './lastapplied.js';
import type { KubeObject } from '../registry/types.js';
import { decodeManagedFields, emptyManaged, encodeManagedFields, managerIdentifier, type Managed, type ManagedFieldsEntry } from './managedfields.js';
import { nowTimestamp } from '../registry/objectmeta.js';
import { newApplyConflict, smdApply, smdUpdate, smdValidate } from './smd.js';

/** kube's DefaultMaxUpdateManagers: older Update entries are merged into "ancient-changes". */
const maxUpdateManagers = 10;

/** Fields no manager owns (kube's stripMetaManager). */
const stripSet = pathSet([
  ['apiVersion'], ['kind'], ['metadata'], ['metadata', 'name'], ['metadata', 'namespace'], ['metadata', 'creationTimestamp'],
  ['metadata', 'selfLink'], ['metadata', 'uid'], ['metadata', 'clusterName'], ['metadata', 'generation'], ['metadata', 'managedFields'], ['metadata', 'resourceVersion'],
]);

const currentOperation = '{"manager":"current-operation"}';

export interface FieldManagerSpec {
  group: string;
  version: string;
  kind: string;
  type: SmdType;
  /** The kind's Go zero value as kube serializes it: what a create is compared against. */
  zero: () => KubeObject;
  /** The kind's defaults, applied to the result of an apply. */
  defaults?: (obj: KubeObject) => void;
  /**
   * Writes an object as Go's encoding/json writes the kind's struct (in place): kube's field
   * manager sees typed objects, so `resources: {}` and a template's `creationTimestamp: null` are fields.
   */
  goEncode?: (obj: KubeObject) => void;
  /** The object as kube's conversion to the versioned type writes it, where that adds fields (a copy). */
  versioned?: (obj: KubeObject) => KubeObject;
  /** Fields each subresource ('' = the main resource) resets, so its writers never own them (kube's GetResetFields). */
  resetFields?: Record<string, string[][]>;
}

export class FieldManager {
  private readonly apiVersion: string;
  private readonly ignored = new Map<string, FieldSet>();

  constructor(private readonly spec: FieldManagerSpec) {
    this.apiVersion = spec.group ? `${spec.group}/${spec.version}` : spec.version;
    for (const [sub, paths] of Object.entries(spec.resetFields ?? {})) this.ignored.set(sub, pathSet(paths));
  }

  /**
   * UpdateNoErrors: records a create (live undefined), update or non-apply patch in
   * `next.metadata.managedFields`. Never fails the write: on an internal error the live
   * object's entries are kept, as kube does.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string, subresource: string): void {
    const meta = next.metadata;
    let managed: Managed;
    try {
      managed = decodeLiveOrNew(live, next, subresource !== '');
    } catch {
      return;
    }
    // Objects stored before fields were tracked stay untracked until their first apply.
    if (managed.fields.size === 0 && live?.metadata.uid) {
      delete meta.managedFields;
      return;
    }
    this.spec.goEncode?.(next);
    try {
      // kube converts the request's (internal) object and stored ones to the served version; its empty object is already served-version.
      this.recordUpdate(live ? this.versioned(live) : this.zero(), this.versioned(next), managed, manager || 'unknown', subresource);
      setManagedFields(next, managed);
    } catch {
      if (live?.metadata.managedFields !== undefined) meta.managedFields = live.metadata.managedFields;
      else delete meta.managedFields;
    }
  }

  /** Server-side apply of `patch` onto `live` (undefined: the object does not exist yet). Returns the object to write. */
  apply(live: KubeObject | undefined, patch: KubeObject, manager: string, force: boolean, subresource: string): KubeObject {
    const liveObj = live ?? this.spec.zero();
    let managed: Managed;
    try {
      managed = decodeManagedFields(liveObj.metadata?.managedFields);
    } catch (err) {
      throw newUntypedError(`failed to decode managed fields: ${(err as Error).message}`);
    }
    const { group, version, kind } = this.patchGVK(patch);
    if (group !== this.spec.group || version !== this.spec.version || kind !== this.spec.kind) throw newBadRequest(`invalid object type: ${group}/${version}, Kind=${kind}`);
    let base = liveObj;
    if (managed.fields.size === 0) {
      // kube's skipNonAppliedManager: what an untracked object holds is owned by "before-first-apply".
      base = structuredClone(liveObj);
      delete base.metadata.managedFields;
      this.recordUpdate(this.zero(), base, managed, 'before-first-apply', '');
    }
    if (patch.metadata?.managedFields !== undefined) throw newBadRequest('metadata.managedFields must be nil');
    const problem = smdValidate(patch as unknown as JsonValue, this.spec.type);
    if (problem) throw newUntypedError(`failed to create typed patch object (${objectGVKNN(patch)}): ${problem}`);
    const id = managerIdentifier({ manager, operation: 'Apply', subresource });
    const liveValue = withoutManagedFields(live ? this.versioned(base) : base);
    const run = (forced: boolean) => smdApply(liveValue, patch as unknown as JsonValue, this.spec.type, this.apiVersion, managed.fields, id, forced, this.ignored.get(subresource));
    let result: { object: JsonValue | undefined; managers: ManagedFields };
    try {
      try {
        result = run(force);
      } catch (err) {
        if (manager !== migratingManager || !(err instanceof Conflicts)) throw err;
        const allowed = allowedConflictsFromLastApplied(liveValue, this.spec.type, this.apiVersion);
        if (!allowed) throw err;
        const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
        if (remaining.length > 0) throw new Conflicts(remaining);
        result = run(true);
      }
    } catch (err) {
      const conflict = newApplyConflict(err);
      if (conflict) throw conflict;
      throw newUntypedError((err as Error).message);
    }
    managed.fields = result.managers;
    strip(managed.fields, id);
    let out: KubeObject;
    if (result.object === undefined) {
      // Nothing changed: the live object as it is, its entries rewritten in place.
      out = structuredClone(base);
    } else {
      out = result.object as unknown as KubeObject;
      this.spec.defaults?.(out);
      // kube converts the merged value to the kind's Go struct: a zero value the applier spelled
      // out for a non-pointer omitempty field (`readOnly: false`) is no field, so the strategy's
      // semantic comparisons (a Deployment's generation) see no change where nothing changed.
      this.spec.goEncode?.(out);
      managed.times.set(id, nowTimestamp());
    }
    if (manager === migratingManager) keepLastApplied(out, patch);
    setManagedFields(out, managed);
    if (live) keepMetadataOrder(out, live);
    return out;
  }

  private zeroValue?: KubeObject;

  /** The empty object, shared: only ever compared against (an apply's result starts from a fresh one). */
  private zero(): KubeObject {
    return (this.zeroValue ??= this.spec.zero());
  }

  private versioned(obj: KubeObject): KubeObject {
    return this.spec.versioned ? this.spec.versioned(obj) : obj;
  }

  /** buildManagerInfo → managedFieldsUpdater → stripMeta → structured merge, then capManagers. */
  private recordUpdate(live: KubeObject, next: KubeObject, managed: Managed, manager: string, subresource: string): void {
    const id = managerIdentifier({ manager, operation: 'Update', apiVersion: this.apiVersion, subresource });
    const managers = smdUpdate(withoutManagedFields(live), withoutManagedFields(next), this.spec.type, this.apiVersion, managed.fields, currentOperation, this.ignored.get(subresource));
    strip(managers, currentOperation);
    const ops = managers.get(currentOperation);
    if (ops) {
      managers.delete(currentOperation);
      const previous = managers.get(id);
      managers.set(id, { set: previous ? ops.set.union(previous.set) : ops.set, apiVersion: ops.apiVersion, applied: ops.applied });
      // kube's ScaleHandler rebuilds the parent's entries and takes the time of a scale manager
      // from the parent's, where a new one has none: its entries carry no time.
      if (subresource === 'scale') managed.times.delete(id);
      else managed.times.set(id, nowTimestamp());
    }
    managed.fields = managers;
    capUpdateManagers(managed);
  }

  private patchGVK(patch: KubeObject): { group: string; version: string; kind: string } {
    const apiVersion = typeof patch.apiVersion === 'string' ? patch.apiVersion : '';
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return { group, version, kind: typeof patch.kind === 'string' ? patch.kind : '' };
  }
}

/**
 * decodeLiveOrNew: a request's own entries win when they decode and are not empty (clients
 * may set them; `[]` or `[{}]` resets them), except on subresources, which keep the live ones.
 */
function decodeLiveOrNew(live: KubeObject | undefined, next: KubeObject, isSubresource: boolean): Managed {
  const fromLive = () => {
    try {
      return decodeManagedFields(live?.metadata.managedFields);
    } catch {
      return emptyManaged();
    }
  };
  if (isSubresource) return fromLive();
  const sent = next.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (Array.isArray(sent) && (sent.length === 0 || (sent.length === 1 && isEmptyEntry(sent[0])))) return emptyManaged();
  try {
    const managed = decodeManagedFields(sent);
    if (managed.fields.size > 0) return managed;
  } catch {
    // An undecodable list from the request falls back to the live object's.
  }
  return fromLive();
}

function isEmptyEntry(e: unknown): boolean {
  return !!e && typeof e === 'object' && Object.values(e as object).every((v) => v === undefined || v === null || v === '');
}

function pathSet(paths: string[][]): FieldSet {
  return FieldSet.of(...paths.map((p) => makePath(...p)));
}

function strip(managers: ManagedFields, id: string): void {
  const vs = managers.get(id);
  if (!vs) return;
  const set = vs.set.difference(stripSet);
  if (set.empty()) managers.delete(id);
  else managers.set(id, { ...vs, set });
}

function capUpdateManagers(managed: Managed): void {
  if (managed.fields.size <= maxUpdateManagers) return;
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= maxUpdateManagers) return;
  const seconds = (id: string) => {
    const t = managed.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  for (let i = 0, remaining = updaters.length; i < updaters.length && remaining > maxUpdateManagers; i++) {
    const id = updaters[i];
    const vs = managed.fields.get(id)!;
    const bucket = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first !== undefined) {
      if (!managed.fields.has(bucket)) {
        managed.fields.set(bucket, managed.fields.get(first)!);
        managed.fields.delete(first);
      }
      const b = managed.fields.get(bucket)!;
      managed.fields.set(bucket, { set: vs.set.union(b.set), apiVersion: vs.apiVersion, applied: vs.applied });
      managed.fields.delete(id);
      remaining--;
    } else {
      firstByVersion.set(vs.apiVersion, id);
    }
  }
}

/** Assigned in place: the field keeps its position, so a write that changes nothing stores the same bytes. */
function setManagedFields(obj: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/**
 * metadata's keys in the live object's order (new ones after): the merge saw metadata without
 * managedFields, and an object whose only difference is where managedFields sits would be
 * stored again with a new resourceVersion. kube writes Go structs, whose field order is fixed.
 */
function keepMetadataOrder(out: KubeObject, live: KubeObject): void {
  const meta = out.metadata;
  if (!meta || !live.metadata) return;
  const ordered: Record<string, unknown> = {};
  for (const k of Object.keys(live.metadata)) if (k in meta) ordered[k] = (meta as Record<string, unknown>)[k];
  for (const k of Object.keys(meta)) if (!(k in ordered)) ordered[k] = (meta as Record<string, unknown>)[k];
  out.metadata = ordered as KubeObject['metadata'];
}

/** The object as SMD sees it: managedFields are metadata about it, not part of it. */
function withoutManagedFields(obj: KubeObject): JsonValue {
  if (!obj.metadata || obj.metadata.managedFields === undefined) return obj as unknown as JsonValue;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata } as unknown as JsonValue;
}

/** objectGVKNN: `namespace/name; group/version, Kind=kind` as kube's errors print an object. */
function objectGVKNN(obj: KubeObject): string {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}; ${gv}, Kind=${typeof obj.kind === 'string' ? obj.kind : ''}`;
}

