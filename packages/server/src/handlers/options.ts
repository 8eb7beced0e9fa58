/**
 * Write options from the query (and DeleteOptions from the body), read and validated as kube
 * does (k8s.io/apimachinery pkg/apis/meta/v1/validation: 422 on the options kind, `dryRun:
 * Unsupported value: []string{"Some"}: supported values: "All"`).
 */
import { decodeProtobuf, fieldErr, goJSONType, goStringSlice, newBadRequest, newInvalid, protobufMediaType, isStatusError, type FieldError } from '@windlass/machinery';
import type { DeleteOptions } from '../registry/store.js';
import { boolParam, int64Param } from '../registry/queryparams.js';
import { interpretKind, parseDocument } from './body.js';
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

/** The meta scheme's unversioned kinds: decoded in any version, then refused by conversion. */
const unversionedMetaKinds = new Set(['CreateOptions', 'UpdateOptions', 'Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);

/** Go's json.Unmarshal into DeleteOptions: its type errors for the fields read here. */
function deleteOptionsTypeError(doc: Record<string, unknown>): string | undefined {
  const { gracePeriodSeconds: grace, orphanDependents: orphan, propagationPolicy: policy, dryRun, preconditions } = doc;
  if (grace != null && !Number.isInteger(grace)) {
    return `json: cannot unmarshal ${typeof grace === 'number' ? `number ${grace}` : goJSONType(grace)} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`;
  }
  if (orphan != null && typeof orphan !== 'boolean') return `json: cannot unmarshal ${goJSONType(orphan)} into Go struct field DeleteOptions.orphanDependents of type bool`;
  if (policy != null && typeof policy !== 'string') return `json: cannot unmarshal ${goJSONType(policy)} into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation`;
  if (dryRun != null) {
    if (!Array.isArray(dryRun)) return `json: cannot unmarshal ${goJSONType(dryRun)} into Go struct field DeleteOptions.dryRun of type []string`;
    const bad = dryRun.find((v) => v !== null && typeof v !== 'string');
    if (bad !== undefined) return `json: cannot unmarshal ${goJSONType(bad)} into Go struct field DeleteOptions.dryRun of type string`;
  }
  if (preconditions != null) {
    if (typeof preconditions !== 'object' || Array.isArray(preconditions)) return `json: cannot unmarshal ${goJSONType(preconditions)} into Go struct field DeleteOptions.preconditions of type v1.Preconditions`;
    const { uid, resourceVersion } = preconditions as Record<string, unknown>;
    if (uid != null && typeof uid !== 'string') return `json: cannot unmarshal ${goJSONType(uid)} into Go struct field Preconditions.preconditions.uid of type types.UID`;
    if (resourceVersion != null && typeof resourceVersion !== 'string') return `json: cannot unmarshal ${goJSONType(resourceVersion)} into Go struct field Preconditions.preconditions.resourceVersion of type string`;
  }
  return undefined;
}

/**
 * A DeleteOptions body as kube 1.35's delete handler decodes it (the meta scheme's decoder into
 * DeleteOptions, whose kind is unversioned): whatever it cannot decode, or a body of another
 * kind, is 400 with the decoder's message (1.34 and before answered an untyped 500).
 */
function decodeDeleteOptionsBody(body: Buffer, contentType: string | undefined): DeleteOptionsBody {
  const mt = bodyMediaType(contentType);
  let doc: unknown;
  try {
    doc = mt === protobufMediaType ? decodeProtobuf(body, { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' }).object : parseDocument(body, mt === 'application/yaml' ? mt : 'application/json');
  } catch (err) {
    throw newBadRequest(isStatusError(err) ? (err.status.message ?? String(err)) : String(err));
  }
  if (doc === null || doc === undefined) return {};
  const kindError = interpretKind(doc);
  if (kindError) throw newBadRequest(`couldn't get version/kind; json parse error: ${kindError}`);
  const d = doc as Record<string, unknown>;
  const kind = typeof d.kind === 'string' ? d.kind : '';
  const apiVersion = typeof d.apiVersion === 'string' && d.apiVersion !== '' ? d.apiVersion : 'meta.k8s.io/v1';
  if (apiVersion.split('/').length > 2) throw newBadRequest(`unexpected GroupVersion string: ${apiVersion}`);
  if (kind !== '' && kind !== 'DeleteOptions') {
    if (unversionedMetaKinds.has(kind)) throw newBadRequest(`converting (v1.${kind}) to (v1.DeleteOptions): unknown conversion`);
    throw newBadRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"`);
  }
  const typeError = deleteOptionsTypeError(d);
  if (typeError) throw newBadRequest(typeError);
  return d as DeleteOptionsBody;
}

/**
 * DeleteOptions: from the body when there is one (the query is then not read at all, as in
 * kube's delete handler), else from the query.
 */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, contentType: string | undefined): DeleteOptions {
  let opts: DeleteOptionsBody;
  if (Buffer.isBuffer(body) && body.length > 0) {
    opts = decodeDeleteOptionsBody(body, contentType);
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
