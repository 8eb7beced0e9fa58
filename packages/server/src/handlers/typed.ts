/**
 * Typed decoding of a decoded body against its kind's schema, and fieldValidation: wrong JSON
 * types are 400 with encoding/json's message; unknown fields are dropped, then named in a
 * Warning header each (Warn, the default), dropped silently (Ignore) or refused (Strict).
 */
import type { ServerResponse } from 'node:http';
import { fieldErr, newBadRequest, newInvalid } from '@windlass/machinery';
import { DecodeTypeError, decoderFor, loadedSchemas, loadSchemas, type ObjectDecoder } from '@windlass/schemas';
import type { KubeObject, ResourceDefinition } from '../registry/types.js';

const kDecoder = Symbol('windlass.typedDecoder');
type WithDecoder = ResourceDefinition & { [kDecoder]?: ObjectDecoder | null };

/** The kind's decoder, compiled at its first use; null where no schema describes the kind. */
export async function typedDecoder(def: ResourceDefinition): Promise<ObjectDecoder | null> {
  const d = def as WithDecoder;
  if (d[kDecoder] !== undefined) return d[kDecoder];
  const schemas = loadedSchemas() ?? (await loadSchemas());
  return (d[kDecoder] = decoderFor(schemas, def) ?? null);
}

const cannotHandle = (def: ResourceDefinition) => `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}`;

/**
 * Decodes `obj` in place. `patch` holds the patch text for a patch (kube refuses a strict
 * patch with 422 naming it), undefined for a create or update (400).
 */
export function decodeTyped(decoder: ObjectDecoder | null, obj: KubeObject, def: ResourceDefinition, fieldValidation: string, res: ServerResponse, patch?: string): void {
  if (decoder === null) return;
  const unknown: string[] = [];
  try {
    decoder(obj, unknown);
  } catch (err) {
    if (err instanceof DecodeTypeError) throw newBadRequest(`${cannotHandle(def)}: ${err.message}`);
    throw err;
  }
  if (unknown.length === 0 || fieldValidation === 'Ignore') return;
  const named = unknown.map((f) => `unknown field "${f}"`).sort();
  if (fieldValidation === 'Strict') {
    if (patch === undefined) throw newBadRequest(`${cannotHandle(def)}: strict decoding error: ${named.join(', ')}`);
    throw newInvalid({ group: '', kind: '' }, '', [fieldErr.invalid('patch', patch, `strict decoding error: ${named.join(', ')}`)]);
  }
  res.setHeader('Warning', named.map((w) => `299 - ${JSON.stringify(w)}`));
}
