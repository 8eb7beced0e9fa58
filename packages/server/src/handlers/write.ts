/** create (POST), update (PUT) and patch (PATCH). */
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@windlass/patch';
import { patchMetaFor } from '@windlass/schemas';
import { requireBodyType, patchBodyTypes } from '../negotiation.js';
import { writeObject } from '../respond.js';
import type { KubeObject } from '../registry/types.js';
import { decodeObjectBody } from './body.js';
import { parseModifyOptions } from './options.js';
import { representObject } from './read.js';
import type { RequestScope } from './scope.js';

export async function createResource(s: RequestScope): Promise<void> {
  const opts = parseModifyOptions(s.query, 'CreateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  const created = await s.store.create(s.info.namespace, obj, opts);
  writeObject(s.res, 201, representObject(s, created), s.negotiated);
}

export async function updateResource(s: RequestScope): Promise<void> {
  const opts = parseModifyOptions(s.query, 'UpdateOptions');
  const obj = decodeObjectBody(s.body, s.req.headers['content-type'], s.def);
  const updated = await s.store.update(s.info.namespace, s.info.name, obj, opts);
  writeObject(s.res, 200, representObject(s, updated), s.negotiated);
}

export async function patchResource(s: RequestScope): Promise<void> {
  const patchType = requireBodyType(s.req.headers['content-type'], patchBodyTypes);
  const opts = parseModifyOptions(s.query, 'PatchOptions');
  const body = s.body;
  const meta = patchMetaFor({ group: s.def.group, version: s.def.version, kind: s.def.kind });
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
  const patched = await s.store.patch(s.info.namespace, s.info.name, apply, opts);
  writeObject(s.res, 200, representObject(s, patched), s.negotiated);
}
