/**
 * `metadata.managedFields` in and out of the form structured-merge-diff works on (kube's
 * managedfields/internal/managedfields.go): a manager identifier per entry (the entry as JSON
 * without fields and time, and without apiVersion for appliers, so one applier stays one
 * entry across versions), its field set, and its time.
 */
import { fieldSetFromObject, fieldSetToJSON, type FieldSet, type ManagedFields } from '@windlass/patch';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export interface Managed {
  fields: ManagedFields;
  /** RFC 3339 times by manager identifier; absent for entries written without one. */
  times: Map<string, string | undefined>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/**
 * Identifiers and their parsed entries, kept because every write builds and reads them again.
 * Manager names come from requests, so the tables are dropped when they grow past a bound.
 */
const identifiers = new Map<string, string>();
const parsedIdentifiers = new Map<string, ManagedFieldsEntry>();
const maxCached = 4096;

function remember<V>(m: Map<string, V>, k: string, v: V): V {
  if (m.size >= maxCached) m.clear();
  m.set(k, v);
  return v;
}

/** BuildManagerIdentifier: the entry's JSON in Go's field order, fields, type and time left out. */
export function managerIdentifier(e: ManagedFieldsEntry): string {
  const apiVersion = e.operation === 'Apply' ? '' : (e.apiVersion ?? '');
  const key = `${e.manager ?? ''}\0${e.operation ?? ''}\0${apiVersion}\0${e.subresource ?? ''}`;
  const cached = identifiers.get(key);
  if (cached !== undefined) return cached;
  const id: ManagedFieldsEntry = {};
  if (e.manager) id.manager = e.manager;
  if (e.operation) id.operation = e.operation;
  if (apiVersion) id.apiVersion = apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return remember(identifiers, key, JSON.stringify(id));
}

function parseIdentifier(id: string): ManagedFieldsEntry {
  return parsedIdentifiers.get(id) ?? remember(parsedIdentifiers, id, JSON.parse(id) as ManagedFieldsEntry);
}

/**
 * The FieldsV1 object a set was read from or last written as: a manager whose set this write
 * did not change is written back as it was, without serializing it again. Sets are immutable.
 */
const fieldsV1Of = new WeakMap<FieldSet, unknown>();

function fieldsV1(set: FieldSet): unknown {
  let v = fieldsV1Of.get(set);
  if (v === undefined) fieldsV1Of.set(set, (v = JSON.parse(fieldSetToJSON(set)) as unknown));
  return v;
}

export class ManagedFieldsError extends Error {}

/** DecodeManagedFields: an entry kube would refuse makes the whole list undecodable. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries == null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType !== 'FieldsV1') {
      throw new ManagedFieldsError(e.fieldsType ? `invalid fieldsType "${e.fieldsType}" in managed fields entry ${i}` : `missing fieldsType in managed fields entry ${i}`);
    }
    const id = managerIdentifier(e);
    let set: FieldSet;
    try {
      set = fieldSetFromObject(e.fieldsV1 ?? {});
      if (e.fieldsV1 !== undefined) fieldsV1Of.set(set, e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set from ${JSON.stringify(e)}: ${(err as Error).message}`);
    }
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time);
  });
  return managed;
}

/** encodeManagedFields, sorted as kube sorts them: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const who = parseIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (who.manager) e.manager = who.manager;
    e.operation = vs.applied ? 'Apply' : who.operation;
    e.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = fieldsV1(vs.set);
    if (who.subresource) e.subresource = who.subresource;
    out.push(e);
  }
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  out.sort((p, q) => cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource, q.subresource));
  return out;
}

/** kube's printManager: how a conflict names the other manager. */
export function printManager(id: string): string {
  let e: ManagedFieldsEntry;
  try {
    e = JSON.parse(id) as ManagedFieldsEntry;
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') return e.time ? `${s} using ${e.apiVersion ?? ''} at ${e.time}` : `${s} using ${e.apiVersion ?? ''}`;
  return s;
}


/** kube's managerOrUserAgent: the fieldManager parameter, else who the User-Agent names. */
export function managerOrUserAgent(fieldManager: string, userAgent: string | undefined): string {
  return fieldManager || prefixFromUserAgent(userAgent);
}

/** The prefix of a User-Agent kube names a manager by: up to the first `/`, printable characters, at most 128 bytes. */
export function prefixFromUserAgent(ua: string | undefined): string {
  const head = (ua ?? '').split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > 128) break;
    out += ch;
    bytes += n;
  }
  return out;
}
