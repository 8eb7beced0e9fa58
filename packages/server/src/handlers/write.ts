/** create (POST), update (PUT) and patch (PATCH). */
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@windlass/patch';
import { loadedSchemas, loadSchemas, patchMetaFor } from '@windlass/schemas';
import { requireBodyType, patchBodyTypes } from '../negotiation.js';
import type { KubeObject } from '../registry/types.js';
import { decodeObjectBody } from './body.js';
import { parseModifyOptions } from './options.js';
import { writeResult } from './read.js';
import type { RequestScope } from './scope.js';

export async function createResource(s: RequestScope): Promise<void> {
  const opts = parseModifyOptions(s.query, 'CreateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  writeResult(s, 201, await s.store.create(s.info.namespace, obj, opts));
}

export async function updateResource(s: RequestScope): Promise<void> {
  const opts = parseModifyOptions(s.query, 'UpdateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  writeResult(s, 200, await s.store.update(s.info.namespace, s.info.name, obj, opts));
}

export async function patchResource(s: RequestScope): Promise<void> {
  const patchType = requireBodyType(s.req.headers['content-type'], patchBodyTypes);
  const opts = parseModifyOptions(s.query, 'PatchOptions');
  const body = s.body;
  const schemas = loadedSchemas() ?? (await loadSchemas());
  const meta = patchMetaFor(schemas, { group: s.def.group, version: s.def.version, kind: s.def.kind });
  const apply = (current: KubeObject): KubeObject => {
    switch (patchType) {
      case 'application/json-patch+json':
        return applyJsonPatch(current, body) as KubeObject;
      case 'application/merge-patch+json':
        return applyMergePatch(current, body) as KubeObject;
      default:
        return applyStrategicMergePatch(current, body, meta) as KubeObject;
    }
  };
  writeResult(s, 200, await s.store.patch(s.info.namespace, s.info.name, apply, opts));
}
