/** Write options from the query (and DeleteOptions from the body), validated as kube does (422 on the options kind). */
import { decodeProtobuf, fieldErr, newInvalid, protobufMediaType, type FieldError } from '@windlass/machinery';
import type { DeleteOptions } from '../registry/store.js';
import { parseDocument } from './body.js';
import { bodyMediaType } from '../negotiation.js';

function invalidOptions(kind: string, errs: FieldError[]): void {
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind }, '', errs);
}

function dryRunErrors(values: string[]): FieldError[] {
  return values.filter((v) => v !== 'All').map((v) => fieldErr.notSupported('dryRun', v, ['All']));
}

export interface ModifyOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: string;
}

/** CreateOptions, UpdateOptions and PatchOptions share these parameters. */
export function parseModifyOptions(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): ModifyOptions {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fieldValidation = query.get('fieldValidation') ?? '';
  const errs = dryRunErrors(dryRun);
  if (fieldManager.length > 128) errs.push(fieldErr.tooLong('fieldManager', 128));
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(fieldValidation)) errs.push(fieldErr.notSupported('fieldValidation', fieldValidation, ['Ignore', 'Strict', 'Warn']));
  if (kind === 'PatchOptions' && query.has('force')) errs.push(fieldErr.forbidden('force', 'may not be specified for non-apply patch'));
  invalidOptions(kind, errs);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation };
}

interface DeleteOptionsBody {
  dryRun?: string[];
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export function parseDeleteOptions(query: URLSearchParams, body: unknown, contentType: string | undefined): DeleteOptions {
  let opts: DeleteOptionsBody = {};
  if (Buffer.isBuffer(body) && body.length > 0) {
    const mt = bodyMediaType(contentType);
    const doc = mt === protobufMediaType ? decodeProtobuf(body, { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' }).object : parseDocument(body, mt === 'application/yaml' ? mt : 'application/json');
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) opts = doc as DeleteOptionsBody;
  }
  const dryRun = [...(opts.dryRun ?? []), ...query.getAll('dryRun')];
  const propagationPolicy = query.get('propagationPolicy') ?? opts.propagationPolicy;
  const orphan = query.get('orphanDependents') ?? opts.orphanDependents;
  const errs = dryRunErrors(dryRun);
  if (propagationPolicy !== undefined && propagationPolicy !== null) {
    if (orphan !== undefined && orphan !== null) errs.push(fieldErr.invalid('propagationPolicy', propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
    if (!['Foreground', 'Background', 'Orphan'].includes(propagationPolicy)) errs.push(fieldErr.notSupported('propagationPolicy', propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  const grace = query.get('gracePeriodSeconds') ?? opts.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && !Number.isInteger(Number(grace))) errs.push(fieldErr.invalid('gracePeriodSeconds', grace, 'must be an integer'));
  invalidOptions('DeleteOptions', errs);
  return { dryRun: dryRun.length > 0, preconditions: opts.preconditions };
}
