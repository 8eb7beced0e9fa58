/**
 * Write options from the query (and DeleteOptions from the body), read and validated as kube
 * does (k8s.io/apimachinery pkg/apis/meta/v1/validation: 422 on the options kind, `dryRun:
 * Unsupported value: []string{"Some"}: supported values: "All"`).
 */
import { decodeProtobuf, fieldErr, goStringSlice, newInvalid, newUntypedError, protobufMediaType, isStatusError, type FieldError } from '@windlass/machinery';
import type { DeleteOptions } from '../registry/store.js';
import { boolParam, int64Param } from '../registry/queryparams.js';
import { parseDocument } from './body.js';
import { bodyMediaType } from '../negotiation.js';

function invalidOptions(kind: string, errs: FieldError[]): void {
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind }, '', errs);
}

/** ValidateDryRun: one error naming the whole list when any value is not `All`. */
function dryRunErrors(values: string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [fieldErr.notSupported('dryRun', goStringSlice(values), ['All'])];
}

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, every character printable. */
function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager, 'utf8') > 128) errs.push(fieldErr.tooLong('fieldManager', 128));
  let offset = 0;
  for (const ch of manager) {
    if (!printable.test(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push(fieldErr.invalid('fieldManager', manager, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

export interface ModifyOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: string;
}

/** CreateOptions, UpdateOptions and PatchOptions share these parameters, validated in kube's order. */
export function parseModifyOptions(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false): ModifyOptions {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fieldValidation = query.get('fieldValidation') ?? '';
  const errs: FieldError[] = [];
  if (kind === 'PatchOptions' && !apply && query.has('force')) errs.push(fieldErr.forbidden('force', 'may not be specified for non-apply patch'));
  // kubectl defaults it; controllers have to name themselves.
  if (apply && fieldManager === '') errs.push(fieldErr.required('fieldManager', 'is required for apply patch'));
  errs.push(...fieldManagerErrors(fieldManager));
  errs.push(...dryRunErrors(dryRun));
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(fieldValidation)) errs.push(fieldErr.notSupported('fieldValidation', fieldValidation, ['', 'Ignore', 'Strict', 'Warn']));
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

/**
 * DeleteOptions: from the body when there is one (the query is then not read at all, as in
 * kube's delete handler; a body it cannot decode is its untyped 500), else from the query.
 */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, contentType: string | undefined): DeleteOptions {
  let opts: DeleteOptionsBody;
  if (Buffer.isBuffer(body) && body.length > 0) {
    const mt = bodyMediaType(contentType);
    let doc: unknown;
    try {
      doc = mt === protobufMediaType ? decodeProtobuf(body, { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' }).object : parseDocument(body, mt === 'application/yaml' ? mt : 'application/json');
    } catch (err) {
      throw newUntypedError(isStatusError(err) ? (err.status.message ?? String(err)) : String(err));
    }
    opts = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as DeleteOptionsBody) : {};
  } else {
    opts = {
      dryRun: query.getAll('dryRun'),
      gracePeriodSeconds: int64Param(query, 'gracePeriodSeconds'),
      orphanDependents: boolParam(query, 'orphanDependents'),
      propagationPolicy: query.get('propagationPolicy') ?? undefined,
    };
  }
  const dryRun = opts.dryRun ?? [];
  const { propagationPolicy, orphanDependents } = opts;
  const errs: FieldError[] = [];
  if (propagationPolicy !== undefined && propagationPolicy !== null) {
    if (orphanDependents !== undefined && orphanDependents !== null) errs.push(fieldErr.invalid('propagationPolicy', propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
    if (!['Foreground', 'Background', 'Orphan'].includes(propagationPolicy)) errs.push(fieldErr.notSupported('propagationPolicy', propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  errs.push(...dryRunErrors(dryRun));
  invalidOptions('DeleteOptions', errs);
  return {
    dryRun: dryRun.length > 0, preconditions: opts.preconditions,
    gracePeriodSeconds: typeof opts.gracePeriodSeconds === 'number' ? opts.gracePeriodSeconds : undefined,
    propagationPolicy: (propagationPolicy ?? undefined) as DeleteOptions['propagationPolicy'],
    orphanDependents: orphanDependents ?? undefined,
  };
}
