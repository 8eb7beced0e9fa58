/**
 * FieldsV1, the JSON form of a field set in `metadata.managedFields[].fieldsV1`
 * (fieldpath/serialize.go, serialize-pe.go). Bytes match SMD's writer: clients and
 * kube itself compare these documents as strings.
 */
import { FieldSet, PathElement, type KeyField, type SetNode } from './fieldpath.js';
import type { JsonValue } from './types.js';
import { goJSON, goJSONString, isObject } from './value.js';

/** The `f:` / `k:` / `v:` / `i:` key of one path element. */
export function serializePathElement(pe: PathElement): string {
  if (pe.fieldName !== undefined) return `f:${pe.fieldName}`;
  if (pe.key !== undefined) {
    let s = 'k:{';
    const k = pe.key;
    for (let i = 0; i < k.length; i++) s += `${i ? ',' : ''}${goJSONString(k[i].name)}:${goJSON(k[i].value)}`;
    return `${s}}`;
  }
  if (pe.index !== undefined) return `i:${pe.index}`;
  return `v:${goJSON(pe.value!)}`;
}

export class PathElementParseError extends Error {}

/** Unknown element kinds are skipped (a newer writer may know them), as SMD does. */
const unknownKind = Symbol('unknown path element kind');

export function deserializePathElement(s: string): PathElement {
  const pe = parsePathElement(s);
  if (pe === unknownKind) throw new PathElementParseError('unknown path element type');
  return pe;
}

function parsePathElement(s: string): PathElement | typeof unknownKind {
  if (s.length < 2) throw new PathElementParseError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementParseError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return PathElement.field(body);
    case 'v':
      return PathElement.value(parseJSON(body));
    case 'k': {
      const obj = parseJSON(body);
      if (!isObject(obj)) throw new PathElementParseError(`expected a key object, got ${body}`);
      const fields: KeyField[] = [];
      for (const name of Object.keys(obj)) fields.push({ name, value: obj[name] });
      return PathElement.key(fields);
    }
    case 'i': {
      // strconv.Atoi: optional sign, decimal digits only.
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementParseError(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return PathElement.index(Number(body));
    }
    default:
      return unknownKind;
  }
}

function parseJSON(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new PathElementParseError((e as Error).message);
  }
}

/** Set.ToJSON. */
export function fieldSetToJSON(set: FieldSet): string {
  return `{${emitContents(set, false)}}`;
}

function emitContents(s: FieldSet, includeSelf: boolean): string {
  const m = s.members;
  const c = s.children;
  const parts: string[] = [];
  if (includeSelf && (m.length > 0 || c.length > 0)) parts.push('".":{}');
  let mi = 0;
  let ci = 0;
  while (mi < m.length && ci < c.length) {
    const d = m[mi].compare(c[ci].pe);
    if (d < 0) parts.push(`${goJSONString(serializePathElement(m[mi++]))}:{}`);
    else if (d > 0) {
      parts.push(`${goJSONString(serializePathElement(c[ci].pe))}:{${emitContents(c[ci].set, false)}}`);
      ci++;
    } else {
      parts.push(`${goJSONString(serializePathElement(c[ci].pe))}:{${emitContents(c[ci].set, true)}}`);
      mi++;
      ci++;
    }
  }
  for (; mi < m.length; mi++) parts.push(`${goJSONString(serializePathElement(m[mi]))}:{}`);
  for (; ci < c.length; ci++) parts.push(`${goJSONString(serializePathElement(c[ci].pe))}:{${emitContents(c[ci].set, false)}}`);
  return parts.join(',');
}

/** Set.FromJSON from the document's text. */
export function fieldSetFromJSON(text: string): FieldSet {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PathElementParseError((e as Error).message);
  }
  return fieldSetFromObject(doc);
}

/** Set.FromJSON from an already parsed document (a managedFields entry's `fieldsV1`). */
export function fieldSetFromObject(doc: unknown): FieldSet {
  if (!isObject(doc)) throw new PathElementParseError('fieldsV1: expected an object');
  return readV1(doc).children ?? new FieldSet();
}

/** The subtree under one key: its own set (if it has children) and whether it is itself a member. */
function readV1(obj: Record<string, unknown>): { children: FieldSet | undefined; isMember: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const key of Object.keys(obj)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = parsePathElement(key);
    if (pe === unknownKind) continue;
    const sub = obj[key];
    if (!isObject(sub)) throw new PathElementParseError(`fieldsV1: expected an object under ${JSON.stringify(key)}`);
    const grand = readV1(sub);
    if (grand.isMember) {
      children ??= new FieldSet();
      children.insertMember(pe);
    }
    if (grand.children !== undefined) {
      children ??= new FieldSet();
      const nodes = children.children;
      // Documents written by SMD are already in order: append unless they are not.
      if (nodes.length === 0 || nodes[nodes.length - 1].pe.compare(pe) < 0) nodes.push({ pe, set: grand.children } as SetNode);
      else {
        const target = children.descend(pe);
        target.members = grand.children.members;
        target.children = grand.children.children;
      }
    }
  }
  if (children === undefined) isMember = true;
  return { children, isMember };
}
