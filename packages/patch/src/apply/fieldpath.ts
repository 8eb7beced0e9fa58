/**
 * Field paths and field sets as structured-merge-diff defines them (fieldpath/element.go,
 * path.go, set.go). The order of path elements is SMD's PathElement.Compare: it decides
 * where a field sits in a set and therefore the byte order of FieldsV1, which clients
 * compare as strings.
 */
import type { JsonValue } from './types.js';
import { compareStrings, compareValues, valuesEqual, valueToString } from './value.js';

export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

const enum Kind {
  Field = 0,
  Key = 1,
  Value = 2,
  Index = 3,
}

/**
 * One step of a path: a field name, the key fields of a map-list item, the value of a
 * set item, or a list index. All four slots always exist so every element has one shape.
 */
export class PathElement {
  private constructor(
    /** 0 field, 1 key, 2 value, 3 index: the order SMD sorts kinds in. */
    readonly kind: number,
    readonly fieldName: string | undefined,
    readonly key: readonly KeyField[] | undefined,
    readonly value: JsonValue | undefined,
    readonly index: number | undefined,
  ) {}

  static field(name: string): PathElement {
    return new PathElement(Kind.Field, name, undefined, undefined, undefined);
  }

  /** Key fields are kept sorted by name (stable), as value.FieldList.Sort leaves them. */
  static key(fields: readonly KeyField[]): PathElement {
    let sorted = fields;
    for (let i = 1; i < fields.length; i++) {
      if (compareStrings(fields[i - 1].name, fields[i].name) > 0) {
        sorted = [...fields].sort((a, b) => compareStrings(a.name, b.name));
        break;
      }
    }
    return new PathElement(Kind.Key, undefined, sorted, undefined, undefined);
  }

  /** Convenience for tests and callers: `PathElement.keyByFields('name', 'nginx', 'port', 80)`. */
  static keyByFields(...nameValues: JsonValue[]): PathElement {
    const fields: KeyField[] = [];
    for (let i = 0; i + 1 < nameValues.length; i += 2) fields.push({ name: nameValues[i] as string, value: nameValues[i + 1] });
    return PathElement.key(fields);
  }

  static value(v: JsonValue): PathElement {
    return new PathElement(Kind.Value, undefined, undefined, v, undefined);
  }

  static index(i: number): PathElement {
    return new PathElement(Kind.Index, undefined, undefined, undefined, i);
  }

  compare(rhs: PathElement): number {
    if (this.kind !== rhs.kind) return this.kind < rhs.kind ? -1 : 1;
    switch (this.kind) {
      case Kind.Field:
        return compareStrings(this.fieldName!, rhs.fieldName!);
      case Kind.Key:
        return compareKeys(this.key!, rhs.key!);
      case Kind.Value:
        return compareValues(this.value!, rhs.value!);
      default:
        return this.index! < rhs.index! ? -1 : this.index! > rhs.index! ? 1 : 0;
    }
  }

  equals(rhs: PathElement): boolean {
    if (this.kind !== rhs.kind) return false;
    switch (this.kind) {
      case Kind.Field:
        return this.fieldName === rhs.fieldName;
      case Kind.Key: {
        const l = this.key!;
        const r = rhs.key!;
        if (l.length !== r.length) return false;
        for (let i = 0; i < l.length; i++) if (l[i].name !== r[i].name || !valuesEqual(l[i].value, r[i].value)) return false;
        return true;
      }
      case Kind.Value:
        return valuesEqual(this.value!, rhs.value!);
      default:
        return this.index === rhs.index;
    }
  }

  toString(): string {
    switch (this.kind) {
      case Kind.Field:
        return `.${this.fieldName}`;
      case Kind.Key:
        return `[${this.key!.map((k) => `${k.name}=${valueToString(k.value)}`).join(',')}]`;
      case Kind.Value:
        return `[=${valueToString(this.value!)}]`;
      default:
        return `[${this.index}]`;
    }
  }
}

function compareKeys(l: readonly KeyField[], r: readonly KeyField[]): number {
  const n = l.length < r.length ? l.length : r.length;
  for (let i = 0; i < n; i++) {
    const c = compareStrings(l[i].name, r[i].name);
    if (c !== 0) return c;
    const d = compareValues(l[i].value, r[i].value);
    if (d !== 0) return d;
  }
  return l.length === r.length ? 0 : l.length < r.length ? -1 : 1;
}

export type Path = readonly PathElement[];

/** Path.String(): `.spec.containers[name="nginx"].image`. */
export function pathToString(path: Path): string {
  let s = '';
  for (const pe of path) s += pe.toString();
  return s;
}

export function comparePaths(a: Path, b: Path): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const c = a[i].compare(b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function pathsEqual(a: Path, b: Path): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!a[i].equals(b[i])) return false;
  return true;
}

/** Builds a path from field names (strings), indices (numbers) and ready elements. */
export function makePath(...parts: (string | number | PathElement)[]): PathElement[] {
  return parts.map((p) => (typeof p === 'string' ? PathElement.field(p) : typeof p === 'number' ? PathElement.index(p) : p));
}

/** Binary search over a sorted element array: the index if found, else -(insertion point) - 1. */
function searchElements(arr: readonly PathElement[], pe: PathElement): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = arr[mid].compare(pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -lo - 1;
}

function searchNodes(arr: readonly SetNode[], pe: PathElement): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = arr[mid].pe.compare(pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -lo - 1;
}

export interface SetNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of paths stored as a trie: `members` are the paths that end at this level,
 * `children` the subsets under each element; both sorted by PathElement.compare.
 * A path can be both a member and a prefix of other members (`"."` in FieldsV1).
 *
 * The algebra (union, intersection, difference, ...) returns new sets that share
 * untouched subtrees with their inputs, as SMD's does: treat results as read-only.
 */
export class FieldSet {
  members: PathElement[];
  children: SetNode[];

  constructor(members: PathElement[] = [], children: SetNode[] = []) {
    this.members = members;
    this.children = children;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    const n = path.length;
    if (n === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < n - 1; i++) s = s.descend(path[i]);
    s.insertMember(path[n - 1]);
  }

  insertMember(pe: PathElement): void {
    const m = this.members;
    // Walkers mostly produce elements in order: appending is the common case.
    if (m.length === 0 || m[m.length - 1].compare(pe) < 0) {
      m.push(pe);
      return;
    }
    const i = searchElements(m, pe);
    if (i < 0) m.splice(-i - 1, 0, pe);
  }

  hasMember(pe: PathElement): boolean {
    return searchElements(this.members, pe) >= 0;
  }

  /** The child set under `pe`, created (empty) if absent. */
  descend(pe: PathElement): FieldSet {
    const c = this.children;
    if (c.length === 0 || c[c.length - 1].pe.compare(pe) < 0) {
      const set = new FieldSet();
      c.push({ pe, set });
      return set;
    }
    const i = searchNodes(c, pe);
    if (i >= 0) return c[i].set;
    const set = new FieldSet();
    c.splice(-i - 1, 0, { pe, set });
    return set;
  }

  /** The child set under `pe`, if there is one. */
  child(pe: PathElement): FieldSet | undefined {
    const i = searchNodes(this.children, pe);
    return i >= 0 ? this.children[i].set : undefined;
  }

  /** Set.WithPrefix: the subset under `pe`, empty if none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  has(path: Path): boolean {
    const n = path.length;
    if (n === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < n - 1; i++) {
      s = s.child(path[i]);
      if (s === undefined) return false;
    }
    return s.hasMember(path[n - 1]);
  }

  empty(): boolean {
    if (this.members.length > 0) return false;
    for (const c of this.children) if (!c.set.empty()) return false;
    return true;
  }

  size(): number {
    let n = this.members.length;
    for (const c of this.children) n += c.set.size();
    return n;
  }

  equals(rhs: FieldSet): boolean {
    const lm = this.members;
    const rm = rhs.members;
    if (lm.length !== rm.length) return false;
    for (let i = 0; i < lm.length; i++) if (!lm[i].equals(rm[i])) return false;
    const lc = this.children;
    const rc = rhs.children;
    if (lc.length !== rc.length) return false;
    for (let i = 0; i < lc.length; i++) if (!lc[i].pe.equals(rc[i].pe) || !lc[i].set.equals(rc[i].set)) return false;
    return true;
  }

  copy(): FieldSet {
    return new FieldSet(
      this.members.slice(),
      this.children.map((c) => ({ pe: c.pe, set: c.set.copy() })),
    );
  }

  union(rhs: FieldSet): FieldSet {
    return new FieldSet(unionElements(this.members, rhs.members), unionNodes(this.children, rhs.children));
  }

  intersection(rhs: FieldSet): FieldSet {
    return new FieldSet(intersectElements(this.members, rhs.members), intersectNodes(this.children, rhs.children));
  }

  /** Paths of this set not in `rhs`; a member of `rhs` does not remove anything below it. */
  difference(rhs: FieldSet): FieldSet {
    return new FieldSet(differenceElements(this.members, rhs.members), differenceNodes(this.children, rhs));
  }

  /** Like difference, but a member of `rhs` also removes every path below it. */
  recursiveDifference(rhs: FieldSet): FieldSet {
    return new FieldSet(differenceElements(this.members, rhs.members), recursiveDifferenceNodes(this.children, rhs));
  }

  /** Only the members that are not also prefixes of other members. */
  leaves(): FieldSet {
    const out: PathElement[] = [];
    const m = this.members;
    const c = this.children;
    let ic = 0;
    outer: for (let im = 0; im < m.length; im++) {
      while (ic < c.length) {
        const d = m[im].compare(c[ic].pe);
        if (d === 0) {
          ic++;
          continue outer;
        }
        if (d < 0) break;
        ic++;
      }
      out.push(m[im]);
    }
    return new FieldSet(
      out,
      c.map((n) => ({ pe: n.pe, set: n.set.leaves() })),
    );
  }

  /** Calls `fn` with every member path in set order; the array is reused between calls. */
  iterate(fn: (path: Path) => void): void {
    iteratePrefix(this, [], fn);
  }

  /** Every member path, in set order (copies). */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    this.iterate((p) => out.push(p.slice()));
    return out;
  }

  /** Set.String(): one path per line. */
  toString(): string {
    const lines: string[] = [];
    this.iterate((p) => lines.push(pathToString(p)));
    return lines.join('\n');
  }
}

function iteratePrefix(s: FieldSet, prefix: PathElement[], fn: (path: Path) => void): void {
  for (const pe of s.members) {
    prefix.push(pe);
    fn(prefix);
    prefix.pop();
  }
  for (const c of s.children) {
    prefix.push(c.pe);
    iteratePrefix(c.set, prefix, fn);
    prefix.pop();
  }
}

function unionElements(a: PathElement[], b: PathElement[]): PathElement[] {
  if (b.length === 0) return a.slice();
  if (a.length === 0) return b.slice();
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].compare(b[j]);
    if (c < 0) out.push(a[i++]);
    else {
      out.push(b[j++]);
      if (c === 0) i++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

function intersectElements(a: PathElement[], b: PathElement[]): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].compare(b[j]);
    if (c < 0) i++;
    else {
      if (c === 0) out.push(a[i++]);
      j++;
    }
  }
  return out;
}

function differenceElements(a: PathElement[], b: PathElement[]): PathElement[] {
  if (b.length === 0) return a.slice();
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].compare(b[j]);
    if (c < 0) out.push(a[i++]);
    else {
      if (c === 0) i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  return out;
}

function unionNodes(a: SetNode[], b: SetNode[]): SetNode[] {
  if (b.length === 0) return a.slice();
  if (a.length === 0) return b.slice();
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].pe.compare(b[j].pe);
    if (c < 0) out.push(a[i++]);
    else {
      if (c === 0) {
        out.push({ pe: a[i].pe, set: a[i].set.union(b[j].set) });
        i++;
      } else out.push(b[j]);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

function intersectNodes(a: SetNode[], b: SetNode[]): SetNode[] {
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].pe.compare(b[j].pe);
    if (c < 0) i++;
    else {
      if (c === 0) {
        const res = a[i].set.intersection(b[j].set);
        if (!res.empty()) out.push({ pe: a[i].pe, set: res });
        i++;
      }
      j++;
    }
  }
  return out;
}

function differenceNodes(a: SetNode[], rhs: FieldSet): SetNode[] {
  const b = rhs.children;
  if (b.length === 0) return a.slice();
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].pe.compare(b[j].pe);
    if (c < 0) out.push(a[i++]);
    else {
      if (c === 0) {
        const diff = a[i].set.difference(b[j].set);
        if (!diff.empty()) out.push({ pe: a[i].pe, set: diff });
        i++;
      }
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  return out;
}

function recursiveDifferenceNodes(a: SetNode[], rhs: FieldSet): SetNode[] {
  const b = rhs.children;
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = a[i].pe.compare(b[j].pe);
    if (c < 0) {
      if (!rhs.hasMember(a[i].pe)) out.push(a[i]);
      i++;
    } else {
      if (c === 0) {
        if (!rhs.hasMember(a[i].pe)) {
          const diff = a[i].set.recursiveDifference(b[j].set);
          if (!diff.empty()) out.push({ pe: a[i].pe, set: diff });
        }
        i++;
      }
      j++;
    }
  }
  for (; i < a.length; i++) if (!rhs.hasMember(a[i].pe)) out.push(a[i]);
  return out;
}

/**
 * Builds sets from a walk: the walker pushes and pops path elements and inserts "the
 * current path" into one of `count` sets. The trie nodes of the current prefix are
 * cached per set, so an insert costs one member insertion instead of a walk from the
 * root, and nodes are only created when something is inserted below them.
 */
export class SetBuilder {
  readonly sets: FieldSet[];
  readonly path: PathElement[] = [];
  private readonly nodes: FieldSet[][];

  constructor(count = 1) {
    this.sets = [];
    this.nodes = [];
    for (let i = 0; i < count; i++) {
      const s = new FieldSet();
      this.sets.push(s);
      this.nodes.push([s]);
    }
  }

  push(pe: PathElement): void {
    this.path.push(pe);
  }

  pop(): void {
    this.path.pop();
    const keep = this.path.length + 1;
    for (const n of this.nodes) if (n.length > keep) n.length = keep;
  }

  /** Inserts the current path (a no-op at the root, as Set.Insert of an empty path). */
  insert(which = 0): void {
    const n = this.path.length;
    if (n === 0) return;
    const nodes = this.nodes[which];
    while (nodes.length < n) nodes.push(nodes[nodes.length - 1].descend(this.path[nodes.length - 1]));
    nodes[n - 1].insertMember(this.path[n - 1]);
  }

  /** Inserts the current path extended by `pe`, without descending. */
  insertChild(pe: PathElement, which = 0): void {
    this.push(pe);
    this.insert(which);
    this.pop();
  }
}
