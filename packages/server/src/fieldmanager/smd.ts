/**
 * The server's calls into structured-merge-diff (@windlass/patch): Update and Apply with the
 * kind's type and reset fields, the validation kube runs when it converts an applied
 * configuration to a typed value, and conflicts as kube's 409.
 */
import { goSharpValue, goSprintValue, goTypeOf, newApplyConflict as conflictStatus, type StatusError } from '@windlass/machinery';
import { Conflicts, conflictsMessage, FieldSet, listItemToPathElement, pathToString, PathElement, Updater, type JsonValue, type ManagedFields, type SmdType } from '@windlass/patch';
import { printManager } from './managedfields.js';

const updaters = new WeakMap<SmdType, Map<FieldSet | undefined, Updater>>();

function updaterFor(type: SmdType, version: string, ignored: FieldSet | undefined): Updater {
  let byIgnored = updaters.get(type);
  if (!byIgnored) updaters.set(type, (byIgnored = new Map()));
  let u = byIgnored.get(ignored);
  if (!u) byIgnored.set(ignored, (u = new Updater({ type, ignoredFields: ignored ? new Map([[version, ignored]]) : undefined })));
  return u;
}

/** Records `manager`'s update of `live` (undefined: a create) into `next`; returns the new ownership. */
export function smdUpdate(live: JsonValue | undefined, next: JsonValue, type: SmdType, version: string, managers: ManagedFields, manager: string, ignored?: FieldSet): ManagedFields {
  return updaterFor(type, version, ignored).Update(live, next, version, new Map(managers), manager).managers;
}

/** Server-side apply; `object` is undefined when the result equals `live`. Throws Conflicts. */
export function smdApply(
  live: JsonValue,
  config: JsonValue,
  type: SmdType,
  version: string,
  managers: ManagedFields,
  manager: string,
  force: boolean,
  ignored?: FieldSet,
): { object: JsonValue | undefined; managers: ManagedFields } {
  return updaterFor(type, version, ignored).Apply(live, config, version, new Map(managers), manager, force);
}

/** kube's NewConflictError for SMD's Conflicts; undefined for any other error. */
export function newApplyConflict(err: unknown): StatusError | undefined {
  if (!(err instanceof Conflicts)) return undefined;
  const cs = err.conflicts;
  const causes = cs.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathToString(c.path) }));
  const message = `Apply failed with ${cs.length} conflict${cs.length === 1 ? '' : 's'}: ${conflictsMessage(cs, printManager)}`;
  return conflictStatus(causes, message);
}

/**
 * SMD's mapValue, listValue and validateScalar on a value decoded from an applied
 * configuration (an interface{} SMD wraps as *valueUnstructured, hence `&{…}` in `%v` and
 * `&value.valueUnstructured{Value:…}` in `%#v`): what a value of the wrong shape gets.
 */
function typeMismatch(value: JsonValue, type: SmdType): string | undefined {
  if (value === null) return undefined;
  const isObject = typeof value === 'object' && !Array.isArray(value);
  const v = () => `&{${goSprintValue(value)}}`;
  if (type.kind === 'map') return isObject ? undefined : `expected map, got ${v()}`;
  if (type.kind === 'list') return Array.isArray(value) ? undefined : `expected list, got ${v()}`;
  if (type.kind !== 'scalar' || !type.scalar) return undefined;
  switch (type.scalar) {
    case 'numeric':
      return typeof value === 'number' ? undefined : `expected numeric (int or float), got ${goTypeOf(value)}`;
    case 'string':
      return typeof value === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSharpValue(value)}}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got ${v()}`;
    case 'untyped':
      return typeof value !== 'object' ? undefined : `expected any scalar, got ${v()}`;
  }
}

/**
 * What converting an applied configuration to a typed value refuses (SMD's validating
 * walker): a value of the wrong shape or scalar kind, a field the schema does not declare
 * where it allows no other keys, a map-list item without its keys, a repeated key. The first
 * error, prefixed with its path.
 */
export function smdValidate(value: JsonValue, type: SmdType, path = ''): string | undefined {
  const mismatch = typeMismatch(value, type);
  if (mismatch) return `${path}: ${mismatch}`;
  if (value === null || typeof value !== 'object') return undefined;
  if (type.kind === 'map' && !Array.isArray(value)) {
    for (const [key, v] of Object.entries(value)) {
      const field = type.field(key);
      const t = field ?? type.elementType;
      const at = `${path}${PathElement.field(key).toString()}`;
      if (!t) return `${at}: field not declared in schema`;
      const problem = smdValidate(v, t, at);
      if (problem) return problem;
    }
  } else if (type.kind === 'list' && Array.isArray(value)) {
    const seen = new Set<string>();
    for (let i = 0; i < value.length; i++) {
      let pe: PathElement;
      if (type.atomic) pe = PathElement.index(i);
      else {
        try {
          pe = listItemToPathElement(type, value[i]);
        } catch (err) {
          return `${path}: element ${i}: ${(err as Error).message}`;
        }
        const id = pe.toString();
        if (seen.has(id)) return `${path}: duplicate entries for key ${id}`;
        seen.add(id);
      }
      const problem = smdValidate(value[i], type.elementType, `${path}${pe.toString()}`);
      if (problem) return problem;
    }
  }
  return undefined;
}
