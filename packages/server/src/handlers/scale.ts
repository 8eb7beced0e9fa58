/**
 * The `scale` subresource: an autoscaling/v1 Scale view of a kind's replicas (kube's
 * ScaleREST). Reads answer the view; writes validate the Scale, then set the main object's
 * spec replicas through its Store, so the kind's own update rules apply.
 */
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@windlass/patch';
import { loadedSchemas, loadSchemas, patchMetaFor } from '@windlass/schemas';
import { fieldErr, newBadRequest, newConflict, newInvalid, newNotFound, newUnsupportedMediaType, OptimisticLockErrorMsg, type StatusError } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition, ScaleDefinition } from '../registry/types.js';
import { isApplyPatchType, patchBodyTypes, requireBodyType } from '../negotiation.js';
import { managerOrUserAgent } from '../fieldmanager/managedfields.js';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import { ScaleHandler } from '../fieldmanager/scalehandler.js';
import { applyCBORPatchType } from '../cbor.js';
import { boolParam } from '../registry/queryparams.js';
import { applier, parseApplyBody } from './apply.js';
import { ensureNameMatches } from '../registry/objectmeta.js';
import { withWarnings } from './write.js';
import { makePath } from '@windlass/patch';
import { writeObject } from '../respond.js';
import { checkUIDPrecondition } from '../registry/preconditions.js';
import { decodeObjectBody } from './body.js';
import { decodeTyped, typedDecoder } from './typed.js';
import { parseModifyOptions } from './options.js';
import type { RequestScope } from './scope.js';
import { checkPathSegmentName } from './pathname.js';

/** Scale as a kind of its own, for decoding bodies and naming it in errors. */
const scaleDef = {
  group: 'autoscaling', version: 'v1', kind: 'Scale', listKind: 'ScaleList', resource: 'scale', singularName: 'scale',
  namespaced: true, verbs: ['get', 'update', 'patch'], strategy: { nameValidator: () => [] }, table: { columns: [], cells: () => [] },
} as ResourceDefinition;

function toScale(obj: KubeObject, scale: ScaleDefinition): KubeObject {
  const m = obj.metadata;
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  metadata.uid = m.uid;
  metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp;
  const status: Record<string, unknown> = { replicas: scale.statusReplicas(obj) };
  const selector = scale.selector(obj);
  if (selector) status.selector = selector;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: { replicas: scale.specReplicas(obj) }, status };
}

function notFoundAsScale(s: RequestScope) {
  return (err: unknown): never => {
    if ((err as StatusError).code === 404) throw newNotFound({ group: s.def.group, resource: `${s.def.resource}/scale` }, s.info.name);
    throw err;
  };
}

export async function serveScale(s: RequestScope): Promise<void> {
  const scale = s.def.scale!;
  checkPathSegmentName(s.info.name);
  if (s.info.verb === 'get') {
    const cached = await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? '').catch(notFoundAsScale(s));
    return writeObject(s.res, 200, toScale(cached.object, scale), s.negotiated);
  }
  const patchType = s.info.verb === 'patch' ? requireBodyType(s.req.headers['content-type'], patchBodyTypes) : '';
  // CBOR apply (a gate off by default) is not offered here; YAML apply is, as on kube's every PATCH route.
  if (patchType === applyCBORPatchType) throw newUnsupportedMediaType(patchType, patchBodyTypes.filter((t) => t !== applyCBORPatchType));
  const apply = isApplyPatchType(patchType);
  const options = parseModifyOptions(s.query, s.info.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions', apply);
  // The replicas the Scale writes are recorded on the parent as this manager's, through "scale".
  const opts = { ...options, user: s.user, manager: managerOrUserAgent(options.fieldManager, s.req.headers['user-agent']), managerSubresource: 'scale' };
  if (apply) return applyScale(s, scale, opts);
  let desired: (current: KubeObject) => KubeObject;
  if (s.info.verb === 'update') {
    const body = decodeObjectBody(s.body, s.req.headers['content-type'], scaleDef);
    decodeTyped(await typedDecoder(scaleDef), body, scaleDef, opts.fieldValidation, s.res);
    ensureNameMatches(body, s.info.name);
    // kube's scaleUpdatedObjectInfo.Preconditions: the Scale's uid, checked by storage before the update runs.
    const uid = body.metadata.uid;
    desired = (current) => {
      if (uid) checkUIDPrecondition(s.store.gr, s.info.name, uid, current);
      return structuredClone(body);
    };
  } else {
    const patch = s.body;
    const schemas = loadedSchemas() ?? (await loadSchemas());
    const meta = patchMetaFor(schemas, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    desired = (current) => {
      const old = toScale(current, scale);
      if (patchType === 'application/json-patch+json') return applyJsonPatch(old, patch) as KubeObject;
      if (patchType === 'application/merge-patch+json') return applyMergePatch(old, patch) as KubeObject;
      return applyStrategicMergePatch(old, patch, meta) as KubeObject;
    };
  }
  const updated = await s.store.guaranteedUpdate(s.info.namespace, s.info.name, (current) => {
    scale.setSpecReplicas(current, checkedReplicas(s, desired(current), current));
    return current;
  }, opts).catch(notFoundAsScale(s));
  writeObject(s.res, 200, toScale(updated.object, scale), s.negotiated);
}

/** The replicas a written Scale asks for, once it decodes and validates; its resourceVersion is a precondition. */
function checkedReplicas(s: RequestScope, next: KubeObject, current: KubeObject): number {
  const replicas = (next.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) throw newBadRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
  if (replicas < 0) throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, s.info.name, [fieldErr.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  const rv = next.metadata?.resourceVersion;
  if (rv && rv !== current.metadata.resourceVersion) throw newConflict(s.store.gr, s.info.name, OptimisticLockErrorMsg);
  return replicas;
}

/**
 * Server-side apply of an autoscaling/v1 Scale (kube serves apply on every PATCH route, scale
 * included: scaleUpdatedObjectInfo runs the Scale's field manager between the ScaleHandler's
 * ToSubresource and ToParent). Conflicts name whoever owns the parent's replicas.
 */
async function applyScale(s: RequestScope, scale: ScaleDefinition, opts: ReturnType<typeof parseModifyOptions> & { manager: string; managerSubresource: string; user: RequestScope['user'] }): Promise<void> {
  const fm = await fieldManagerFor(scaleDef);
  if (!fm) throw newBadRequest('server-side apply is not supported for scale');
  const { patch, duplicates } = parseApplyBody(s.body);
  const force = boolParam(s.query, 'force') === true;
  const parentGroupVersion = s.def.group ? `${s.def.group}/${s.def.version}` : s.def.version;
  const replicasPath = makePath(...(scale.replicasPath ?? ['spec', 'replicas']));
  const warnings: string[] = [];
  const written = { ...opts, warnings, managedFieldsSet: true };
  const apply = applier(fm, patch, duplicates, written, force, 'scale');
  const updated = await withWarnings(s, warnings, () => s.store.guaranteedUpdate(s.info.namespace, s.info.name, (current) => {
    const handler = new ScaleHandler(current.metadata.managedFields, parentGroupVersion, replicasPath);
    const old = toScale(current, scale);
    const entries = handler.toSubresource();
    if (entries) old.metadata.managedFields = entries;
    const next = apply(old);
    ensureNameMatches(next, s.info.name);
    scale.setSpecReplicas(current, checkedReplicas(s, next, current));
    const parentEntries = handler.toParent(next.metadata.managedFields);
    if (parentEntries) current.metadata.managedFields = parentEntries;
    else delete current.metadata.managedFields;
    return current;
  }, written).catch(notFoundAsScale(s)));
  writeObject(s.res, 200, toScale(updated.object, scale), s.negotiated);
}
