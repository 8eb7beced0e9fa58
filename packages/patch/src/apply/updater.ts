/**
 * The Updater of merge/update.go: who owns which fields after an update or an apply,
 * conflicts between appliers and other managers, and apply's pruning of the fields an
 * applier stopped applying.
 */
import { compare, type Comparison } from './compare.js';
import { Conflicts } from './conflict.js';
import { FieldSet } from './fieldpath.js';
import { merge } from './merge.js';
import { removeItems } from './remove.js';
import { ensureNamedFieldsAreMembers, reconcileFieldSetWithSchema } from './schemasets.js';
import { toFieldSet } from './tofieldset.js';
import type { JsonValue, SmdType } from './types.js';
import { valuesEqual } from './value.js';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** Whether the entry comes from an apply (operation Apply) rather than an update. */
  readonly applied: boolean;
}

/** Manager id (the lead's encoding of manager, operation and subresource) to what it owns. */
export type ManagedFields = Map<string, VersionedSet>;

/** Thrown by a converter for an apiVersion that is no longer served: entries of that version are dropped. */
export class MissingVersionError extends Error {}

export interface UpdaterOptions {
  /** The object's schema at an apiVersion, or one schema for all. */
  type: SmdType | ((apiVersion: string) => SmdType);
  /** Converts an object to `toVersion` (it reads its own `apiVersion`); identity when absent. */
  convert?: (value: JsonValue, toVersion: string) => JsonValue;
  /** Per apiVersion, fields nobody gets ownership of (e.g. status for the main resource). */
  ignoredFields?: ReadonlyMap<string, FieldSet>;
  /** Return the merged object of an apply even when it equals the live one. */
  returnInputOnNoop?: boolean;
}

export interface UpdateResult {
  /** The object to persist; undefined after an apply that changed nothing (keep the live object). */
  object: JsonValue | undefined;
  managers: ManagedFields;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class Updater {
  private readonly typeAt: (apiVersion: string) => SmdType;
  private readonly convertFn: ((value: JsonValue, toVersion: string) => JsonValue) | undefined;
  private readonly ignored: ReadonlyMap<string, FieldSet> | undefined;
  private readonly returnInputOnNoop: boolean;

  constructor(opts: UpdaterOptions) {
    const t = opts.type;
    this.typeAt = typeof t === 'function' ? t : () => t;
    this.convertFn = opts.convert;
    this.ignored = opts.ignoredFields;
    this.returnInputOnNoop = opts.returnInputOnNoop ?? false;
  }

  private convert(value: JsonValue, version: string): JsonValue {
    return this.convertFn === undefined ? value : this.convertFn(value, version);
  }

  private ignoredAt(version: string): FieldSet | undefined {
    const s = this.ignored?.get(version);
    return s === undefined || s.empty() ? undefined : s;
  }

  /** Comparison.ExcludeFields with the version's ignored fields. */
  private exclude(c: Comparison, version: string): Comparison {
    const ign = this.ignoredAt(version);
    if (ign === undefined) return c;
    return { added: c.added.recursiveDifference(ign), modified: c.modified.recursiveDifference(ign), removed: c.removed.recursiveDifference(ign) };
  }

  /**
   * Takes from every other manager the fields this change modified (a conflict unless
   * `force`) or removed. `managers` is changed in place; `workflow` is the writer.
   */
  update(
    oldObject: JsonValue | undefined,
    newObject: JsonValue,
    version: string,
    managers: ManagedFields,
    workflow: string,
    force: boolean,
  ): { managers: ManagedFields; comparison: Comparison } {
    const conflicts: ManagedFields = new Map();
    const removed: ManagedFields = new Map();
    let cmp: Comparison;
    try {
      cmp = compare(oldObject, newObject, this.typeAt(version));
    } catch (e) {
      throw new Error(`failed to compare objects: ${messageOf(e)}`);
    }
    cmp = this.exclude(cmp, version);
    const versions = new Map<string, Comparison>([[version, cmp]]);

    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      let vc = versions.get(vs.apiVersion);
      if (vc === undefined) {
        let vOld: JsonValue | undefined;
        let vNew: JsonValue;
        try {
          vOld = oldObject === undefined ? undefined : this.convert(oldObject, vs.apiVersion);
        } catch (e) {
          if (e instanceof MissingVersionError) {
            managers.delete(manager);
            continue;
          }
          throw new Error(`failed to convert old object: ${messageOf(e)}`);
        }
        try {
          vNew = this.convert(newObject, vs.apiVersion);
        } catch (e) {
          if (e instanceof MissingVersionError) {
            managers.delete(manager);
            continue;
          }
          throw new Error(`failed to convert new object: ${messageOf(e)}`);
        }
        try {
          vc = compare(vOld, vNew, this.typeAt(vs.apiVersion));
        } catch (e) {
          throw new Error(`failed to compare objects: ${messageOf(e)}`);
        }
        vc = this.exclude(vc, vs.apiVersion);
        versions.set(vs.apiVersion, vc);
      }
      const conflictSet = vs.set.intersection(vc.modified.union(vc.added));
      if (!conflictSet.empty()) conflicts.set(manager, { set: conflictSet, apiVersion: vs.apiVersion, applied: false });
      if (!vc.removed.empty()) removed.set(manager, { set: vc.removed, apiVersion: vs.apiVersion, applied: false });
    }

    if (!force && conflicts.size > 0) throw Conflicts.fromManagers(conflicts);

    for (const [manager, c] of conflicts) {
      const vs = managers.get(manager)!;
      managers.set(manager, { set: vs.set.difference(c.set), apiVersion: vs.apiVersion, applied: vs.applied });
    }
    for (const [manager, r] of removed) {
      const vs = managers.get(manager);
      if (vs !== undefined) managers.set(manager, { set: vs.set.difference(r.set), apiVersion: vs.apiVersion, applied: vs.applied });
    }
    for (const [manager, vs] of managers) if (vs.set.empty()) managers.delete(manager);
    return { managers, comparison: cmp };
  }

  /**
   * After a create, update or non-apply patch: `manager` owns what it changed, others lose
   * it (never a conflict). `liveObject` is undefined on create. `managers` is not changed.
   */
  Update(liveObject: JsonValue | undefined, newObject: JsonValue, version: string, managers: ManagedFields, manager: string): UpdateResult {
    let mf = this.reconcileWithSchemaChanges(liveObject, managers);
    const { managers: updated, comparison } = this.update(liveObject, newObject, version, mf, manager, true);
    mf = updated;
    const prev = mf.get(manager);
    let set = (prev?.set ?? new FieldSet()).difference(comparison.removed).union(comparison.modified).union(comparison.added);
    const ign = this.ignoredAt(version);
    if (ign !== undefined) set = set.recursiveDifference(ign);
    if (set.empty()) mf.delete(manager);
    else mf.set(manager, { set, apiVersion: version, applied: false });
    return { object: newObject, managers: mf };
  }

  /**
   * Server-side apply of `configObject` by `manager`: merges it into the live object, makes
   * the manager own exactly what it applied, prunes what it applied last time and no
   * longer does (unless someone else owns it), and throws Conflicts unless `force`.
   */
  Apply(
    liveObject: JsonValue,
    configObject: JsonValue,
    version: string,
    managers: ManagedFields,
    manager: string,
    force: boolean,
  ): UpdateResult {
    let mf = this.reconcileWithSchemaChanges(liveObject, managers);
    const type = this.typeAt(version);
    let newObject: JsonValue;
    try {
      newObject = merge(liveObject, configObject, type);
    } catch (e) {
      throw new Error(`failed to merge config: ${messageOf(e)}`);
    }
    const lastSet = mf.get(manager);
    let set: FieldSet;
    try {
      set = toFieldSet(configObject, type);
    } catch (e) {
      throw new Error(`failed to get field set: ${messageOf(e)}`);
    }
    const ign = this.ignoredAt(version);
    if (ign !== undefined) set = set.recursiveDifference(ign);
    mf.set(manager, { set, apiVersion: version, applied: true });
    try {
      newObject = this.prune(newObject, mf, manager, lastSet);
    } catch (e) {
      throw new Error(`failed to prune fields: ${messageOf(e)}`);
    }
    mf = this.update(liveObject, newObject, version, mf, manager, force).managers;
    const unchanged = !this.returnInputOnNoop && valuesEqual(liveObject, newObject);
    return { object: unchanged ? undefined : newObject, managers: mf };
  }

  /** Removes what `applyingManager` applied last time and not now, unless another manager owns it. */
  private prune(merged: JsonValue, managers: ManagedFields, applyingManager: string, lastSet: VersionedSet | undefined): JsonValue {
    if (lastSet === undefined || lastSet.set.empty()) return merged;
    const version = lastSet.apiVersion;
    let convertedMerged: JsonValue;
    try {
      convertedMerged = this.convert(merged, version);
    } catch (e) {
      if (e instanceof MissingVersionError) return merged;
      throw new Error(`failed to convert merged object to last applied version: ${messageOf(e)}`);
    }
    const t = this.typeAt(version);
    let pruned = removeItems(convertedMerged, t, ensureNamedFieldsAreMembers(lastSet.set, t));
    try {
      pruned = this.addBackOwnedItems(convertedMerged, pruned, version, managers);
    } catch (e) {
      throw new Error(`failed add back owned items: ${messageOf(e)}`);
    }
    try {
      pruned = this.addBackDanglingItems(convertedMerged, pruned, lastSet);
    } catch (e) {
      throw new Error(`failed add back dangling items: ${messageOf(e)}`);
    }
    return this.convert(pruned, managers.get(applyingManager)!.apiVersion);
  }

  /** Puts back what prune removed but some manager (the applier's new config included) owns. */
  private addBackOwnedItems(merged: JsonValue, pruned: JsonValue, prunedVersion: string, managers: ManagedFields): JsonValue {
    const managedAtVersion = new Map<string, FieldSet>();
    for (const vs of managers.values()) {
      const cur = managedAtVersion.get(vs.apiVersion);
      managedAtVersion.set(vs.apiVersion, cur === undefined ? vs.set : cur.union(vs.set));
    }
    // The pruned version first: fields a conversion needs may be among the pruned ones.
    const first = managedAtVersion.get(prunedVersion);
    if (first !== undefined) {
      [merged, pruned] = this.addBackOwnedItemsForVersion(merged, pruned, prunedVersion, first);
      managedAtVersion.delete(prunedVersion);
    }
    for (const [version, managed] of managedAtVersion) [merged, pruned] = this.addBackOwnedItemsForVersion(merged, pruned, version, managed);
    return pruned;
  }

  private addBackOwnedItemsForVersion(merged: JsonValue, pruned: JsonValue, version: string, managed: FieldSet): [JsonValue, JsonValue] {
    try {
      merged = this.convert(merged, version);
    } catch (e) {
      if (e instanceof MissingVersionError) return [merged, pruned];
      throw new Error(`failed to convert merged object at version ${version}: ${messageOf(e)}`);
    }
    try {
      pruned = this.convert(pruned, version);
    } catch (e) {
      if (e instanceof MissingVersionError) return [merged, pruned];
      throw new Error(`failed to convert pruned object at version ${version}: ${messageOf(e)}`);
    }
    const t = this.typeAt(version);
    let mergedSet: FieldSet;
    let prunedSet: FieldSet;
    try {
      mergedSet = toFieldSet(merged, t);
    } catch (e) {
      throw new Error(`failed to create field set from merged object at version ${version}: ${messageOf(e)}`);
    }
    try {
      prunedSet = toFieldSet(pruned, t);
    } catch (e) {
      throw new Error(`failed to create field set from pruned object at version ${version}: ${messageOf(e)}`);
    }
    const keep = ensureNamedFieldsAreMembers(prunedSet, t).union(ensureNamedFieldsAreMembers(managed, t));
    return [merged, removeItems(merged, t, ensureNamedFieldsAreMembers(mergedSet, t).difference(keep))];
  }

  /** Puts back what prune removed that the applier did not own last time (unowned, or an updater's). */
  private addBackDanglingItems(merged: JsonValue, pruned: JsonValue, lastSet: VersionedSet): JsonValue {
    let convertedPruned: JsonValue;
    try {
      convertedPruned = this.convert(pruned, lastSet.apiVersion);
    } catch (e) {
      if (e instanceof MissingVersionError) return merged;
      throw new Error(`failed to convert pruned object to last applied version: ${messageOf(e)}`);
    }
    const t = this.typeAt(lastSet.apiVersion);
    let prunedSet: FieldSet;
    let mergedSet: FieldSet;
    try {
      prunedSet = toFieldSet(convertedPruned, t);
    } catch (e) {
      throw new Error(`failed to create field set from pruned object in last applied version: ${messageOf(e)}`);
    }
    try {
      mergedSet = toFieldSet(merged, t);
    } catch (e) {
      throw new Error(`failed to create field set from merged object in last applied version: ${messageOf(e)}`);
    }
    const last = ensureNamedFieldsAreMembers(lastSet.set, t);
    const drop = ensureNamedFieldsAreMembers(mergedSet, t).difference(ensureNamedFieldsAreMembers(prunedSet, t)).intersection(last);
    return removeItems(merged, t, drop);
  }

  /**
   * A new map with every entry's set rewritten for fields that became atomic since it was
   * written; entries of apiVersions the converter no longer knows are dropped.
   */
  private reconcileWithSchemaChanges(liveObject: JsonValue | undefined, managers: ManagedFields): ManagedFields {
    const result: ManagedFields = new Map();
    for (const [manager, vs] of managers) {
      if (this.convertFn !== undefined && liveObject !== undefined) {
        try {
          this.convertFn(liveObject, vs.apiVersion);
        } catch (e) {
          if (e instanceof MissingVersionError) continue;
          throw e;
        }
      }
      const reconciled = reconcileFieldSetWithSchema(vs.set, this.typeAt(vs.apiVersion));
      result.set(manager, reconciled === undefined ? vs : { set: reconciled, apiVersion: vs.apiVersion, applied: vs.applied });
    }
    return result;
  }
}

