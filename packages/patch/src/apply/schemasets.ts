/**
 * Field-set operations that need the schema but not a value: SMD's
 * Set.EnsureNamedFieldsAreMembers (fieldpath/set.go) and ReconcileFieldSetWithSchema
 * (typed/reconcile_schema.go).
 */
import { FieldSet, SetBuilder, type PathElement, type SetNode } from './fieldpath.js';
import { resolveAtom } from './typed.js';
import type { ListType, MapType, SmdType } from './types.js';

/**
 * Adds, as members, the declared struct fields that only appear as prefixes. Prune
 * compares sets member by member; without this a struct field that an applier owned only
 * through its children would never be removed as a whole.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: SmdType | undefined): FieldSet {
  const map = mapAtom(type);
  const list = listAtom(type);
  let members = set.members.slice();
  if (map !== undefined) {
    for (const node of set.children) {
      const name = node.pe.fieldName;
      if (name !== undefined && map.field(name) !== undefined && !hasElement(members, node.pe)) insertSorted(members, node.pe);
    }
  }
  const children: SetNode[] = set.children.map((node) => {
    let ct: SmdType | undefined;
    if (node.pe.fieldName !== undefined && map !== undefined) ct = map.field(node.pe.fieldName) ?? map.elementType;
    else if (node.pe.key !== undefined && list !== undefined) ct = list.elementType;
    return { pe: node.pe, set: ensureNamedFieldsAreMembers(node.set, ct) };
  });
  return new FieldSet(members, children);
}

// Without a value, an untyped type is all of its atoms at once (SMD's Resolve of a TypeRef).
function mapAtom(t: SmdType | undefined): MapType | undefined {
  if (t === undefined) return undefined;
  if (t.kind === 'map') return t;
  return t.kind === 'untyped' ? (resolveAtom(t, {}) as MapType) : undefined;
}

function listAtom(t: SmdType | undefined): ListType | undefined {
  if (t === undefined) return undefined;
  if (t.kind === 'list') return t;
  return t.kind === 'untyped' ? (resolveAtom(t, []) as ListType) : undefined;
}

function hasElement(arr: readonly PathElement[], pe: PathElement): boolean {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = arr[mid].compare(pe);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

function insertSorted(arr: PathElement[], pe: PathElement): void {
  let i = arr.length;
  while (i > 0 && arr[i - 1].compare(pe) > 0) i--;
  arr.splice(i, 0, pe);
}

/**
 * Rewrites a manager's set after the schema changed under it: a field that became atomic
 * is owned as a whole (its children dropped, itself added). Returns undefined when
 * nothing changes. Deduced (untyped) parts are left alone, as SMD leaves them.
 */
export function reconcileFieldSetWithSchema(set: FieldSet, type: SmdType): FieldSet | undefined {
  const b = new SetBuilder(1);
  let changed = false;
  const walk = (fs: FieldSet | undefined, t: SmdType, isAtomic: boolean): void => {
    if (t.kind === 'scalar') return;
    // A deduced map is left alone; an atomic untyped value is an atomic map here.
    if (t.kind === 'untyped') {
      if (t.atomic === true && !isAtomic && fs !== undefined && fs.size() > 0) {
        b.insert();
        changed = true;
      }
      return;
    }
    if (t.kind === 'list') {
      if (!isAtomic && t.atomic) {
        b.insert();
        changed = true;
        return;
      }
      if (fs !== undefined) visit(fs, () => t.elementType);
      return;
    }
    if (!isAtomic && t.atomic) {
      if (fs !== undefined && fs.size() > 0) {
        b.insert();
        changed = true;
      }
      return;
    }
    if (fs !== undefined) visit(fs, (pe) => (pe.fieldName !== undefined ? (t.field(pe.fieldName) ?? t.elementType) : t.elementType));
  };
  const visit = (fs: FieldSet, typeOf: (pe: PathElement) => SmdType | undefined): void => {
    const one = (pe: PathElement, isMember: boolean) => {
      const ct = typeOf(pe);
      if (ct === undefined) return;
      const sub = fs.child(pe);
      b.push(pe);
      walk(sub, ct, isMember && sub === undefined);
      b.pop();
    };
    for (const node of fs.children) if (!fs.hasMember(node.pe)) one(node.pe, false);
    for (const pe of fs.members) one(pe, true);
  };
  walk(set, type, false);
  if (!changed) return undefined;
  // Everything at and below the atomic paths goes, then the paths come back as members.
  const atomicRoots = b.sets[0];
  return set.recursiveDifference(atomicRoots).union(atomicRoots);
}
