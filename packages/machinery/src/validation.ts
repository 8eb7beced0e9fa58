/**
 * Name and metadata validation with kube-apiserver's exact messages
 * (k8s.io/apimachinery pkg/util/validation, pkg/api/validate/content and
 * pkg/api/validation/objectmeta.go, release 1.36). Lengths are counted in UTF-8
 * bytes because Go's len() is, and clients compare these messages verbatim.
 */
import { fieldErr, type FieldError } from './status.js';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const labelKeyRe = new RegExp(`^${labelKeyFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

export const DNS1123LabelMaxLength = 63;
export const DNS1123SubdomainMaxLength = 253;
export const LabelValueMaxLength = 63;
export const TotalAnnotationSizeLimitB = 256 * 1024;
export const FieldImmutableErrorMsg = 'field is immutable';

export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

const goSimpleEscapes: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\',
};

/**
 * Go's %q / strconv.Quote: printable characters stay, the rest become Go escapes.
 * kube messages embed values this way, so JSON.stringify would differ on controls and DEL.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (goSimpleEscapes[ch] !== undefined) out += goSimpleEscapes[ch];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/[\p{C}\p{Z}]/u.test(ch) && ch !== ' ') out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

// pkg/util/validation says "characters" while pkg/api/validate/content (label keys) says "bytes".
const maxLenChars = (n: number) => `must be no more than ${n} characters`;
const maxLenBytes = (n: number) => `must be no more than ${n} bytes`;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenChars(DNS1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  return subdomainErrors(value, maxLenChars);
}

function subdomainErrors(value: string, maxLen: (n: number) => string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLen(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenChars(DNS1123LabelMaxLength));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** Label keys, annotation keys and finalizer names: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...subdomainErrors(prefix, maxLenBytes).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenBytes(63)}`);
  if (!labelKeyRe.test(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export const isLabelKey = isQualifiedName;

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LabelValueMaxLength) errs.push(maxLenBytes(LabelValueMaxLength));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Keys of ConfigMap data/binaryData and Secret data/stringData. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenChars(DNS1123SubdomainMaxLength));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export type NameValidator = (name: string, prefix: boolean) => string[];

// A generateName may end in '-' (the random suffix follows), so it is validated as if it ended in 'a'.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** Names of ConfigMaps, Secrets and most kinds. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** Names of Namespaces (and Services). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
export const validateNamespaceName = nameIsDNSLabel;

/** A field path plus the kube-style rendering helpers (`metadata.labels`, `metadata.managedFields[0].manager`). */
const child = (path: string, name: string) => (path ? `${path}.${name}` : name);

type Meta = Record<string, any>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: unknown): Record<string, string> {
  return isObj(v) ? (v as Record<string, string>) : {};
}

export function validateLabels(labels: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(stringMap(labels))) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErr.invalid(fldPath, k, msg));
    for (const msg of isValidLabelValue(String(v))) errs.push(fieldErr.invalid(fldPath, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(stringMap(annotations))) {
    // kube lower-cases annotation keys before the check, so upper-case names are accepted.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErr.invalid(fldPath, k, msg));
    total += byteLength(k) + byteLength(String(v ?? ''));
  }
  if (total > TotalAnnotationSizeLimitB) errs.push(fieldErr.tooLong(fldPath, TotalAnnotationSizeLimitB));
  return errs;
}

function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return undefined;
}

// Go marshals an OwnerReference in struct order; the message embeds that JSON.
function ownerRefValue(ref: Meta): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: ref.apiVersion ?? '', kind: ref.kind ?? '', name: ref.name ?? '', uid: ref.uid ?? '' };
  if (ref.controller !== undefined && ref.controller !== null) out.controller = ref.controller;
  if (ref.blockOwnerDeletion !== undefined && ref.blockOwnerDeletion !== null) out.blockOwnerDeletion = ref.blockOwnerDeletion;
  return out;
}

export function validateOwnerReferences(refs: unknown, fldPath: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const raw of refs) {
    const ref: Meta = isObj(raw) ? raw : {};
    const apiVersion = String(ref.apiVersion ?? '');
    const kind = String(ref.kind ?? '');
    const gv = parseGroupVersion(apiVersion);
    const gvk = gv ? { ...gv, kind } : { group: '', version: '', kind };
    if (gvk.version === '') errs.push(fieldErr.invalid(child(fldPath, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (gvk.kind === '') errs.push(fieldErr.invalid(child(fldPath, 'kind'), kind, 'must not be empty'));
    if (!ref.name) errs.push(fieldErr.invalid(child(fldPath, 'name'), String(ref.name ?? ''), 'must not be empty'));
    if (!ref.uid) errs.push(fieldErr.invalid(child(fldPath, 'uid'), String(ref.uid ?? ''), 'must not be empty'));
    if (gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Event') {
      errs.push(fieldErr.invalid(fldPath, ownerRefValue(ref), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const cur = `${kind}/${ref.name ?? ''}`;
      if (firstController !== '') {
        errs.push(
          fieldErr.invalid(fldPath, refs.map((r) => ownerRefValue(isObj(r) ? r : {})),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`),
        );
      } else {
        firstController = cur;
      }
    }
  }
  return errs;
}

export function validateFinalizers(finalizers: unknown, fldPath: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    for (const msg of isQualifiedName(String(f))) errs.push(fieldErr.invalid(fldPath, f, msg));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(fieldErr.invalid(fldPath, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

function isPrintable(ch: string): boolean {
  return ch === ' ' || !/[\p{C}\p{Z}]/u.test(ch);
}

export function validateFieldManager(manager: string, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > 128) errs.push(fieldErr.tooLong(fldPath, 128));
  let pos = 0;
  for (const ch of manager) {
    if (!isPrintable(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErr.invalid(fldPath, manager, `invalid character U+${cp} (at position ${pos})`));
    }
    pos += byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: unknown, fldPath: string): FieldError[] {
  if (!Array.isArray(entries)) return [];
  const errs: FieldError[] = [];
  entries.forEach((raw, i) => {
    const e: Meta = isObj(raw) ? raw : {};
    const p = `${fldPath}[${i}]`;
    const op = String(e.operation ?? '');
    if (op !== 'Apply' && op !== 'Update') errs.push(fieldErr.invalid(child(p, 'operation'), op, 'must be `Apply` or `Update`'));
    const ft = String(e.fieldsType ?? '');
    if (ft !== '' && ft !== 'FieldsV1') errs.push(fieldErr.invalid(child(p, 'fieldsType'), ft, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(String(e.manager ?? ''), child(p, 'manager')));
    if (byteLength(String(e.subresource ?? '')) > 256) errs.push(fieldErr.tooLong(child(p, 'subresource'), 256));
  });
  return errs;
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameValidator: NameValidator;
  /** Path of the metadata field in messages; `metadata` unless nested (e.g. a template). */
  fieldPath?: string;
}

/** ValidateObjectMeta for creation; it expects generateName to have been turned into a name already when possible. */
export function validateObjectMeta(meta: any, opts: ObjectMetaOptions): FieldError[] {
  const fld = opts.fieldPath ?? 'metadata';
  const m: Meta = isObj(meta) ? meta : {};
  const errs: FieldError[] = [];
  const generateName = typeof m.generateName === 'string' ? m.generateName : '';
  const name = typeof m.name === 'string' ? m.name : '';
  if (generateName !== '') {
    for (const msg of opts.nameValidator(generateName, true)) errs.push(fieldErr.invalid(child(fld, 'generateName'), generateName, msg));
  }
  if (name === '') errs.push(fieldErr.required(child(fld, 'name'), 'name or generateName is required'));
  else for (const msg of opts.nameValidator(name, false)) errs.push(fieldErr.invalid(child(fld, 'name'), name, msg));

  const namespace = typeof m.namespace === 'string' ? m.namespace : '';
  if (opts.namespaced) {
    if (namespace === '') errs.push(fieldErr.required(child(fld, 'namespace')));
    else for (const msg of validateNamespaceName(namespace, false)) errs.push(fieldErr.invalid(child(fld, 'namespace'), namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldErr.forbidden(child(fld, 'namespace'), 'not allowed on this type'));
  }
  errs.push(...validateGeneration(m.generation, fld));
  errs.push(...validateLabels(m.labels, child(fld, 'labels')));
  errs.push(...validateAnnotations(m.annotations, child(fld, 'annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(fld, 'ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, child(fld, 'finalizers')));
  errs.push(...validateManagedFields(m.managedFields, child(fld, 'managedFields')));
  return errs;
}

function validateGeneration(generation: unknown, fld: string): FieldError[] {
  if (typeof generation === 'number' && generation < 0) {
    return [fieldErr.invalid(child(fld, 'generation'), generation, 'must be greater than or equal to 0')];
  }
  return [];
}

// apimachinery's semantic equality compares metav1.Time as instants, not as strings.
function semanticEqual(a: unknown, b: unknown, isTime: boolean): boolean {
  const na = a === undefined || a === '' ? null : a;
  const nb = b === undefined || b === '' ? null : b;
  if (na === null || nb === null) return na === nb;
  if (isTime && typeof na === 'string' && typeof nb === 'string') {
    const ta = Date.parse(na);
    const tb = Date.parse(nb);
    if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta === tb;
  }
  return JSON.stringify(na) === JSON.stringify(nb);
}

function immutable(newVal: unknown, oldVal: unknown, path: string, isTime = false): FieldError[] {
  if (semanticEqual(newVal, oldVal, isTime)) return [];
  const shown = newVal === undefined ? (isTime ? null : '') : newVal;
  return [fieldErr.invalid(path, shown, FieldImmutableErrorMsg)];
}

/** ValidateObjectMetaUpdate: what an update may not change, plus the checks every write repeats. */
export function validateObjectMetaUpdate(newMeta: any, oldMeta: any, fieldPath = 'metadata'): FieldError[] {
  const n: Meta = isObj(newMeta) ? newMeta : {};
  const o: Meta = isObj(oldMeta) ? oldMeta : {};
  const fld = fieldPath;
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const oldSet = new Set<string>(Array.isArray(o.finalizers) ? o.finalizers : []);
    const extra = [...new Set<string>(Array.isArray(n.finalizers) ? n.finalizers : [])].filter((f) => !oldSet.has(f)).sort();
    if (extra.length > 0) {
      errs.push(fieldErr.forbidden(child(fld, 'finalizers'),
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`));
    }
  }
  const rv = typeof n.resourceVersion === 'string' ? n.resourceVersion : '';
  if (rv === '') errs.push(fieldErr.invalid(child(fld, 'resourceVersion'), rv, 'must be specified for an update'));
  const newGen = typeof n.generation === 'number' ? n.generation : 0;
  const oldGen = typeof o.generation === 'number' ? o.generation : 0;
  if (newGen < oldGen) errs.push(fieldErr.invalid(child(fld, 'generation'), newGen, 'must not be decremented'));

  errs.push(...immutable(n.name ?? '', o.name ?? '', child(fld, 'name')));
  errs.push(...immutable(n.namespace ?? '', o.namespace ?? '', child(fld, 'namespace')));
  errs.push(...immutable(n.uid ?? '', o.uid ?? '', child(fld, 'uid')));
  errs.push(...immutable(n.creationTimestamp, o.creationTimestamp, child(fld, 'creationTimestamp'), true));
  errs.push(...immutable(n.deletionTimestamp, o.deletionTimestamp, child(fld, 'deletionTimestamp'), true));
  errs.push(...immutable(n.deletionGracePeriodSeconds ?? null, o.deletionGracePeriodSeconds ?? null, child(fld, 'deletionGracePeriodSeconds')));

  errs.push(...validateLabels(n.labels, child(fld, 'labels')));
  errs.push(...validateAnnotations(n.annotations, child(fld, 'annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, child(fld, 'ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields, child(fld, 'managedFields')));
  return errs;
}
