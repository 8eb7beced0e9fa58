/**
 * Decoding request bodies (JSON, YAML or protobuf) into objects of the addressed kind, with
 * kube's messages for what cannot be decoded (k8s.io/apiserver handlers/rest.go
 * transformDecodeError over the json serializer's errors):
 *
 * - unreadable JSON or YAML, or a body whose apiVersion/kind cannot be read:
 *   `the object provided is unrecognized (must be of type ConfigMap): couldn't get
 *   version/kind; json parse error: unexpected end of JSON input (<summary>)`;
 * - a body of another kind: `Deployment in version "v1" cannot be handled as a ConfigMap:
 *   converting (v1.Deployment) to (core.ConfigMap): unknown conversion`;
 * - another version of the same kind: `the API version in the data (autoscaling/v1) does
 *   not match the expected API version (autoscaling/v2)`.
 *
 * Repeated fields are detected here (JSON with a cheap count, YAML by the parser) and left
 * for the typed decoding to report as fieldValidation asks (bodyStrictErrors).
 */
import { decodeProtobuf, fieldErr, goJSONType, goMarshalSorted, mayHaveDuplicateKeys, newBadRequest, newInvalid, parseJSONWithDuplicates, protobufMediaType } from '@windlass/machinery';
import { goJSONDepthError, goJSONSyntaxError } from '@windlass/patch';
import { builtinResourceTable } from '@windlass/schemas';
import { groupVersion, type KubeObject, type ResourceDefinition } from '../registry/types.js';
import { objectBodyTypes, requireBodyType, unstructuredBodyTypes } from '../negotiation.js';
import { parseYAMLBody, YAMLSyntaxError } from './yamlbody.js';
import { cborMediaType, decodeCBORObjectBody } from '../cbor.js';

/** summarizeData: `<empty>`, the first 30 bytes of an object, else their hex, ` ...` when cut. */
export function summarizeBody(body: Buffer, max = 30): string {
  if (body.length === 0) return '<empty>';
  const cut = body.length > max;
  const head = cut ? body.subarray(0, max) : body;
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return cut ? `${text} ...` : text;
}

function unrecognized(def: ResourceDefinition, err: string, body: Buffer) {
  return newBadRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${err} (${summarizeBody(body)})`);
}

/** What the typed decoding reports under fieldValidation Warn or Strict, besides unknown fields. */
export interface BodyStrictErrors {
  /** yaml.v2's strict errors, one per repeated YAML key (`line 7: key "a" already set in map`). */
  yaml: string[];
  /** Paths of repeated JSON fields (`data`, `spec.template.metadata.labels.app`). */
  duplicates: string[];
}

const strictErrors = new WeakMap<object, BodyStrictErrors>();

/** The repeated fields found in the body `obj` was decoded from. */
export function bodyStrictErrors(obj: object): BodyStrictErrors | undefined {
  return strictErrors.get(obj);
}

/**
 * A JSON or YAML document for the options kinds (DeleteOptions): parsed with the same
 * readers, its errors kube's generic ones.
 */
export function parseDocument(body: Buffer, mediaType: string): unknown {
  if (mediaType === 'application/yaml') {
    try {
      return parseYAMLBody(body.toString('utf8')).value;
    } catch (err) {
      if (err instanceof YAMLSyntaxError) throw newBadRequest(`error converting YAML to JSON: ${err.message}`);
      throw err;
    }
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw newBadRequest(`couldn't get version/kind; json parse error: ${goJSONSyntaxError(body) ?? 'unexpected end of JSON input'}`);
  }
  const tooDeep = goJSONDepthError(body);
  if (tooDeep) throw newBadRequest(`couldn't get version/kind; json parse error: ${tooDeep}`);
  return doc;
}

/** The anonymous struct kube's serializer reads apiVersion and kind into first. */
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** json.Unmarshal of the document into that struct: its type errors, in document order. */
function interpretError(doc: unknown): string | undefined {
  if (doc === null) return undefined;
  if (typeof doc !== 'object' || Array.isArray(doc)) return `json: cannot unmarshal ${goJSONType(doc)} into Go value of type ${findKindType}`;
  for (const key in doc as Record<string, unknown>) {
    if (key !== 'apiVersion' && key !== 'kind') continue;
    const v = (doc as Record<string, unknown>)[key];
    if (v !== null && typeof v !== 'string') return `json: cannot unmarshal ${goJSONType(v)} into Go struct field .${key} of type string`;
  }
  return undefined;
}

export { interpretError as interpretKind };

/** The package of kube's internal type for a group's kinds: `core.ConfigMap`, `apps.Deployment`. */
const internalPackages: Record<string, string> = {
  '': 'core',
  'events.k8s.io': 'core',
  'rbac.authorization.k8s.io': 'rbac',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol',
  'internal.apiserver.k8s.io': 'apiserverinternal',
};

function internalPackage(group: string): string {
  return internalPackages[group] ?? group.split('.')[0];
}

/** The internal type kube converts a registered kind to (extensions Ingresses are networking's). */
function internalType(group: string, kind: string): string {
  if (group === 'extensions' && (kind === 'Ingress' || kind === 'IngressList')) return 'networking.Ingress';
  return `${internalPackage(group)}.${kind}`;
}

let registered: Set<string> | undefined;

/** Whether the scheme knows the kind in that group version (every built-in version, served or not). */
function isRegistered(group: string, version: string, kind: string): boolean {
  if (!registered) {
    registered = new Set();
    for (const r of builtinResourceTable) {
      registered.add(`${r.group}/${r.version}/${r.kind}`);
      if (r.listKind) registered.add(`${r.group}/${r.version}/${r.listKind}`);
    }
  }
  return registered.has(`${group}/${version}/${kind}`);
}

const isBuiltin = (def: ResourceDefinition) => isRegistered(def.group, def.version, def.kind);

/** schema.ParseGroupVersion. */
function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return `unexpected GroupVersion string: ${gv}`;
}

/**
 * The body of a create or update: an object of the addressed kind. Missing kind and
 * apiVersion default to the URL's, as kube's decoder does; others are refused with kube's
 * messages.
 */
export function decodeObjectBody(raw: unknown, contentType: string | undefined, def: ResourceDefinition): KubeObject {
  const mediaType = requireBodyType(contentType, def.customResource ? unstructuredBodyTypes : objectBodyTypes);
  const body = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  const strict: BodyStrictErrors = { yaml: [], duplicates: [] };
  let doc: unknown;
  if (mediaType === protobufMediaType) {
    if (body.length === 0) throw newBadRequest('the body of the request is empty');
    doc = decodeProtobuf(body, def).object;
  } else if (mediaType === cborMediaType) {
    // Its own reading of apiVersion and kind replaces interpretError's JSON one below.
    doc = decodeCBORObjectBody(body, def, (err) => unrecognized(def, err, body));
  } else if (mediaType === 'application/yaml') {
    try {
      const parsed = parseYAMLBody(body.toString('utf8'));
      doc = parsed.value;
      strict.yaml = parsed.duplicates;
    } catch (err) {
      if (err instanceof YAMLSyntaxError) throw unrecognized(def, `error converting YAML to JSON: ${err.message}`, body);
      throw err;
    }
  } else {
    const text = body.toString('utf8');
    try {
      doc = JSON.parse(text);
    } catch {
      throw unrecognized(def, `couldn't get version/kind; json parse error: ${goJSONSyntaxError(body) ?? 'unexpected end of JSON input'}`, body);
    }
    // JSON.parse reads any depth; Go's decoder stops past 10000 levels, before anything else.
    const tooDeep = goJSONDepthError(body);
    if (tooDeep) throw unrecognized(def, `couldn't get version/kind; json parse error: ${tooDeep}`, body);
    if (mayHaveDuplicateKeys(text, doc)) {
      const parsed = parseJSONWithDuplicates(text);
      doc = parsed.value;
      strict.duplicates = parsed.duplicates;
    }
  }

  const kindError = mediaType === cborMediaType ? undefined : interpretError(doc);
  if (kindError) throw unrecognized(def, `couldn't get version/kind; json parse error: ${kindError}`, body);
  // A null document decodes to the empty object, every field defaulted.
  const obj = (doc ?? {}) as KubeObject;

  const gv = parseGroupVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  if (typeof gv === 'string') throw unrecognized(def, gv, body);
  // gvkWithDefaults: what the body leaves out comes from the URL.
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : def.kind;
  let { group, version } = gv;
  if (version === '' && group === '') ({ group, version } = def);
  else if (version === '' && group === def.group) version = def.version;

  if (kind !== def.kind || group !== def.group || version !== def.version) refuseOtherKind(def, { group, version, kind });

  obj.kind = def.kind;
  obj.apiVersion = groupVersion(def);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) {
    throw newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: json: cannot unmarshal ${goJSONType(obj.metadata)} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`);
  }
  // selfLink is no longer served: kube wipes it on create (WipeObjectMetaSystemFields) and never
  // stores it (PrepareObjectForStorage).
  delete (obj.metadata as { selfLink?: unknown }).selfLink;
  if (strict.yaml.length > 0 || strict.duplicates.length > 0) strictErrors.set(obj, strict);
  return obj;
}

/** A body naming another kind or version than the URL: kube's decoder or its version check refuses it. */
function refuseOtherKind(def: ResourceDefinition, gvk: { group: string; version: string; kind: string }): never {
  const gvString = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  const cannotHandle = `${gvk.kind} in version "${gvk.version}" cannot be handled as a ${def.kind}`;
  if (!isBuiltin(def)) {
    // Custom resources are decoded as unstructured objects and only compared.
    if (gvk.kind !== def.kind) throw newBadRequest(`${cannotHandle}: the kind in the data (${gvk.kind}) does not match the expected kind (${def.kind})`);
    throw newBadRequest(`the API version in the data (${gvString}) does not match the expected API version (${groupVersion(def)})`);
  }
  if (!isRegistered(gvk.group, gvk.version, gvk.kind)) {
    throw newBadRequest(`${cannotHandle}: no kind "${gvk.kind}" is registered for version "${gvString}" in scheme "pkg/api/legacyscheme/scheme.go:30"`);
  }
  const target = internalType(def.group, def.kind);
  if (internalType(gvk.group, gvk.kind) !== target) {
    throw newBadRequest(`${cannotHandle}: converting (${gvk.version}.${gvk.kind}) to (${target}): unknown conversion`);
  }
  // Decodable and convertible: the create handler then refuses the version.
  throw newBadRequest(`the API version in the data (${gvString}) does not match the expected API version (${groupVersion(def)})`);
}

/**
 * A patched object is decoded into the addressed kind as kube's jsonPatcher decodes it
 * (runtime.DecodeInto the hub type, handlers/patch.go): a kind or version the decoder cannot
 * read or convert is 422 on `patch`, showing the patched object; one it can (left out, or another
 * version of the same kind) becomes the addressed kind again. A custom resource is decoded as
 * unstructured: its kind is checked by the strategy's ValidateTypeMeta (422 on `kind`), its
 * version by the CR converter. A strategic merge patch is converted field by field into the
 * typed object, so the kind and version it writes are not read at all.
 */
export function checkPatchedKind(obj: KubeObject, def: ResourceDefinition, strategic: boolean): void {
  if (!strategic) {
    const error = patchedKindError(obj, def);
    if (error !== undefined) throw newInvalid({ group: '', kind: '' }, '', [fieldErr.invalid('patch', goMarshalSorted(obj), error)]);
    if (def.customResource && obj.kind !== def.kind) {
      throw newInvalid({ group: def.group, kind: String(obj.kind) }, String(obj.metadata?.name ?? ''), [fieldErr.invalid('kind', obj.kind, `must be ${def.kind}`)]);
    }
  }
  obj.kind = def.kind;
  obj.apiVersion = groupVersion(def);
}

/** The decoder's error for a patched document's kind and version, or undefined where it decodes. */
function patchedKindError(obj: KubeObject, def: ResourceDefinition): string | undefined {
  const kindError = interpretError(obj);
  if (kindError) return `couldn't get version/kind; json parse error: ${kindError}`;
  const gv = parseGroupVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  if (typeof gv === 'string') return gv;
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const gvString = gv.group ? `${gv.group}/${gv.version}` : gv.version;
  if (def.customResource) {
    if (kind === '') return `Object 'Kind' is missing in '${goMarshalSorted(obj)}'`;
    if (gv.group !== def.group) return `${gv.group}/${gv.version}, Kind=${kind} is unstructured and is not suitable for converting to "${groupVersion(def)}"`;
    return undefined;
  }
  // gvkWithDefaults: what the document leaves out is the hub type's.
  if (kind === '' || (gv.group === '' && gv.version === '')) return undefined;
  // The resource's own kind and version always decode (a kind defined outside the schema tables too).
  if (kind === def.kind && gv.group === def.group && (gv.version === '' || gv.version === def.version)) return undefined;
  const version = gv.version === '' && gv.group === def.group ? def.version : gv.version;
  if (!isRegistered(gv.group, version, kind)) return `no kind "${kind}" is registered for version "${gvString}" in scheme "pkg/api/legacyscheme/scheme.go:30"`;
  const target = internalType(def.group, def.kind);
  if (internalType(gv.group, kind) !== target) return `converting (${version}.${kind}) to (${target}): unknown conversion`;
  return undefined;
}
