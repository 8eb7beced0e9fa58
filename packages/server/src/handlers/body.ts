/** Decoding request bodies (JSON or YAML) into objects of the addressed kind. */
import yaml from 'js-yaml';
import { decodeProtobuf, newBadRequest, protobufMediaType } from '@windlass/machinery';
import { groupVersion, type KubeObject, type ResourceDefinition } from '../registry/types.js';
import { objectBodyTypes, requireBodyType } from '../negotiation.js';

function truncate(s: string): string {
  return s.length > 1024 ? s.slice(0, 1024) + '...' : s;
}

export function parseDocument(body: Buffer, mediaType: string): unknown {
  const text = body.toString('utf8');
  if (mediaType === 'application/yaml') {
    try {
      return yaml.load(text);
    } catch (err) {
      throw newBadRequest(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw newBadRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

/**
 * The body of a create or update: an object of the addressed kind. Missing kind and
 * apiVersion default to the URL's, as kube's decoder does; different ones are refused.
 */
export function decodeObjectBody(raw: unknown, contentType: string | undefined, def: ResourceDefinition): KubeObject {
  const mediaType = requireBodyType(contentType, objectBodyTypes);
  const body = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  if (body.length === 0) throw newBadRequest('the body of the request is empty');
  const doc = mediaType === protobufMediaType ? decodeProtobuf(body, def).object : parseDocument(body, mediaType);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: expected an object (${truncate(body.toString('utf8'))})`);
  }
  const obj = doc as KubeObject;
  const gv = groupVersion(def);
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== def.kind) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind}): no kind "${obj.kind}" is registered for the object's version (${truncate(body.toString('utf8'))})`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== gv) {
    throw newBadRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${gv})`);
  }
  obj.kind = def.kind;
  obj.apiVersion = gv;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) {
    throw newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: json: cannot unmarshal ${Array.isArray(obj.metadata) ? 'array' : typeof obj.metadata} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`);
  }
  return obj;
}
