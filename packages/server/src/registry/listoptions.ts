/**
 * List and watch options from the query string, validated as kube's
 * ValidateListOptions does (422 Invalid on ListOptions.meta.k8s.io).
 */
import {
  fieldErr, fieldErrorString, newBadRequest, newInvalid, parseFieldSelector, parseLabelSelector,
  type FieldError, type FieldSelector, type LabelSelector,
} from '@windlass/machinery';
import { boolParam, int64Param } from './queryparams.js';

export interface ListOptions {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  resourceVersion: string;
  resourceVersionMatch: string;
  limit: number;
  continue: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

const listOptionsKind = { group: 'meta.k8s.io', kind: 'ListOptions' };

/**
 * ListOptions from the query, converted in the order kube's generated conversion reads them
 * (the integers while converting url.Values, the selectors when converting to the internal
 * version), then defaulted and validated as kube's ListResource does.
 *
 * `watch`: the request is served as a watch. Defaulting and validation look at the query's
 * own `watch` parameter, as kube's do: a watch by the legacy /watch/ path without
 * `?watch=true` (ListResource's forceWatch) is neither defaulted nor validated as a watch.
 */
export function parseListOptions(query: URLSearchParams, watch: boolean): ListOptions {
  const timeoutSeconds = int64Param(query, 'timeoutSeconds');
  const limit = int64Param(query, 'limit') ?? 0;
  const opts: ListOptions = {
    labelSelector: parseLabelSelector(query.get('labelSelector') ?? ''),
    fieldSelector: parseFieldSelector(query.get('fieldSelector') ?? ''),
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    limit: Math.max(0, limit),
    continue: query.get('continue') ?? '',
    watch,
    allowWatchBookmarks: boolParam(query, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: boolParam(query, 'sendInitialEvents'),
    timeoutSeconds,
  };
  const watchParam = boolParam(query, 'watch') ?? false;
  if (watchParam) setWatchListDefaults(opts);
  const errs = watchParam ? validateWatchOptions(opts) : validateListOptions(opts);
  if (errs.length > 0) throw newInvalid(listOptionsKind, '', errs);
  return opts;
}

/**
 * metainternalversion.SetListOptionsDefaults with the WatchList gate on (its 1.35 default): a
 * watch from "" or "0" that names neither sendInitialEvents nor resourceVersionMatch is a
 * watch-list, so with allowWatchBookmarks its initial state ends with the
 * `k8s.io/initial-events-end` bookmark.
 */
function setWatchListDefaults(o: ListOptions): void {
  if (o.sendInitialEvents !== undefined || o.resourceVersionMatch !== '') return;
  if (o.resourceVersion === '' || o.resourceVersion === '0') {
    o.sendInitialEvents = true;
    o.resourceVersionMatch = 'NotOlderThan';
  }
}

function validateListOptions(o: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (match) {
    if (!o.resourceVersion) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && o.resourceVersion === '0') errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined) errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

function validateWatchOptions(o: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(fieldErr.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (o.sendInitialEvents === undefined) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/** Parses a client-supplied resourceVersion; kube answers 400 for a non-numeric one. */
export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv) || BigInt(rv) > maxUint64) {
    // kube's APIObjectVersioner.ParseResourceVersion (strconv.ParseUint's error as a field error),
    // as storage.ValidateListOptions reports it. kube's GET and watch return the same text as a
    // 500 (the versioner's error is not a Status there); a client's mistake is a 400 here.
    const why = /^\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
    const detail = `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
    throw newBadRequest(`invalid resource version: ${fieldErrorString(fieldErr.invalid('resourceVersion', rv, detail))}`);
  }
  return Number(rv);
}

const maxUint64 = 2n ** 64n - 1n;
