/**
 * Typed decoding of a decoded body against its kind's schema, and fieldValidation: wrong JSON
 * types are 400 with encoding/json's message; unknown and repeated fields are named in a
 * Warning header each (Warn, the default), ignored (Ignore) or refused (Strict: 400 on create
 * and update, 422 on patches), as kube's strict decoder reports them.
 */
import type { ServerResponse } from 'node:http';
import { fieldErr, goMarshalSorted, goSprintValue, mayHaveDuplicateKeys, newBadRequest, newInvalid, parseJSONWithDuplicates } from '@windlass/machinery';
import { checkObjectMeta, DecodeError, decoderFor, goDecoderFor, loadGoTypes, loadedSchemas, loadSchemas, type ObjectDecoder } from '@windlass/schemas';
import type { KubeObject, ResourceDefinition } from '../registry/types.js';
import { bodyMediaType } from '../negotiation.js';
import { bodyStrictErrors } from './body.js';

const kDecoder = Symbol('windlass.typedDecoder');
type WithDecoder = ResourceDefinition & { [kDecoder]?: ObjectDecoder | null };

/**
 * The kind's decoder, compiled at its first use; null where no schema describes the kind. What
 * it leaves is what kube's Go struct holds: `omitempty` fields at their zero value are dropped
 * (goDecoderFor), so defaults, validation and the update comparisons see what kube's see.
 */
export async function typedDecoder(def: ResourceDefinition): Promise<ObjectDecoder | null> {
  const d = def as WithDecoder;
  if (d[kDecoder] !== undefined) return d[kDecoder];
  if (def.decoder && !def.customResource) return (d[kDecoder] = def.decoder as ObjectDecoder);
  const [schemas] = await Promise.all([loadedSchemas() ?? loadSchemas(), loadGoTypes()]);
  if (def.customResource) {
    // Unstructured but for its metadata, which kube's CRD handler decodes into ObjectMeta first.
    const own = def.decoder as ObjectDecoder | undefined;
    return (d[kDecoder] = (obj, unknown) => {
      checkObjectMeta(schemas, obj.metadata);
      own?.(obj, unknown);
    });
  }
  const decode = decoderFor(schemas, def) ?? null;
  const prune = goDecoderFor(schemas, def) ?? null;
  return (d[kDecoder] = decode && prune ? (obj, unknown) => (decode(obj, unknown), prune(obj)) : decode);
}

const cannotHandle = (def: ResourceDefinition) => `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}`;

/** Whether `path` is a field dropped as unknown, or inside one (whose content Go never reads). */
function underUnknown(path: string, unknown: Set<string>): boolean {
  for (let p = path; ; ) {
    if (unknown.has(p)) return true;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) return false;
    p = p.slice(0, cut);
  }
}

/**
 * The strict errors of a decoded object, as runtime.NewStrictDecodingError lists them: YAML's
 * repeated keys first (one error of several lines), then the unknown and repeated fields,
 * each reported once.
 */
function strictErrorList(obj: object, unknown: string[]): { errors: string[]; yaml: string[] } {
  const found = bodyStrictErrors(obj);
  const errors: string[] = [];
  const seen = new Set<string>();
  const unknownSet = new Set(unknown);
  for (const f of unknown) {
    const e = `unknown field ${JSON.stringify(f)}`;
    if (!seen.has(e)) errors.push(e), seen.add(e);
  }
  for (const f of found?.duplicates ?? []) {
    if (underUnknown(f, unknownSet)) continue;
    const e = `duplicate field ${JSON.stringify(f)}`;
    if (!seen.has(e)) errors.push(e), seen.add(e);
  }
  // kube lists them in document order; sorted here, which clients cannot tell apart from a
  // different document order (the golden replay sorts them too).
  return { errors: errors.sort(), yaml: found?.yaml ?? [] };
}

/**
 * Warning headers, one per message (a YAML error one per line), as kube's warning recorder
 * adds them: a message already sent is not repeated (a retried update warns again).
 */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  const previous = res.getHeader('Warning');
  const headers = previous === undefined ? [] : Array.isArray(previous) ? previous.map(String) : [String(previous)];
  for (const w of warnings) {
    const header = `299 - ${JSON.stringify(w)}`;
    if (!headers.includes(header)) headers.push(header);
  }
  res.setHeader('Warning', headers);
}

/**
 * Decodes `obj` in place. `patch` holds the patch text for a patch (kube refuses a strict
 * patch with 422 showing the patched object), undefined for a create or update (400).
 */
export function decodeTyped(decoder: ObjectDecoder | null, obj: KubeObject, def: ResourceDefinition, fieldValidation: string, res: ServerResponse, patch?: string): void {
  const strict = fieldValidation === 'Strict' && patch !== undefined ? patchedForMessage(obj, res, patch) : undefined;
  const unknown: string[] = [];
  if (decoder !== null) {
    try {
      decoder(obj, unknown);
    } catch (err) {
      if (err instanceof DecodeError) {
        if (patch !== undefined) throw newInvalid({ group: '', kind: '' }, '', [fieldErr.invalid('patch', strict ?? patchedForMessage(obj, res, patch), err.message)]);
        throw newBadRequest(`${cannotHandle(def)}: ${err.message}`);
      }
      throw err;
    }
  }
  if (fieldValidation === 'Ignore') return;
  const { errors, yaml } = strictErrorList(obj, unknown);
  if (patch !== undefined) errors.unshift(...patchStrictErrors(patch, patchType(res)));
  if (errors.length === 0 && yaml.length === 0) return;
  if (fieldValidation === 'Strict') {
    const all = [...(yaml.length > 0 ? [`yaml: unmarshal errors:\n  ${yaml.join('\n  ')}`] : []), ...errors];
    const message = `strict decoding error: ${all.join(', ')}`;
    if (patch === undefined) throw newBadRequest(`${cannotHandle(def)}: ${message}`);
    throw newInvalid({ group: '', kind: '' }, '', [fieldErr.invalid('patch', strict, message)]);
  }
  addWarnings(res, [...yaml, ...errors]);
}

const jsonPatchOpFields = new Set(['op', 'path', 'from', 'value']);

/**
 * The strict errors of the patch itself, which kube decodes strictly before applying it under
 * Warn and Strict: repeated keys anywhere, and for a JSON patch fields an operation does not
 * have (`json patch unknown field "[0].foo"`).
 */
function patchStrictErrors(patch: string, type: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(patch);
  } catch {
    return [];
  }
  const errs: string[] = [];
  if (mayHaveDuplicateKeys(patch, parsed)) for (const d of parseJSONWithDuplicates(patch).duplicates) errs.push(`duplicate field ${JSON.stringify(d)}`);
  if (type !== 'application/json-patch+json') return errs;
  if (Array.isArray(parsed)) {
    parsed.forEach((op, i) => {
      if (op === null || typeof op !== 'object' || Array.isArray(op)) return;
      for (const key of Object.keys(op)) if (!jsonPatchOpFields.has(key)) errs.push(`unknown field ${JSON.stringify(`[${i}].${key}`)}`);
    });
  }
  return errs.map((e) => `json patch ${e}`);
}

/** The patch's media type, from the request the response answers. */
function patchType(res: ServerResponse): string {
  return bodyMediaType((res as ServerResponse & { req?: { headers: Record<string, string | string[] | undefined> } }).req?.headers['content-type'] as string | undefined);
}

/**
 * What kube's 422 shows as the patch's value: for JSON and merge patches the patched object
 * as json-patch writes it (keys sorted), for strategic merge patches the patch map printed
 * with `%+v`. Taken before decoding drops unknown fields.
 */
function patchedForMessage(obj: KubeObject, res: ServerResponse, patch: string): string {
  if (patchType(res) === 'application/strategic-merge-patch+json') {
    try {
      return goSprintValue(JSON.parse(patch));
    } catch {
      return patch;
    }
  }
  return goMarshalSorted(obj);
}
