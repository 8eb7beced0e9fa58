/**
 * Errors of the strategic merge patch with the text Go's strategicpatch/mergepatch
 * packages produce, classified the way apiserver's interpretStrategicMergePatchError
 * turns them into HTTP statuses.
 */
import { goFormatG, newBadRequest, type StatusError } from '@windlass/machinery';
import { genericUnprocessable, unknownError } from '../errors.js';

/** 400: malformed directives; 422: unsupported shapes; 500: any other Go error, as kube answers. */
export type SMPErrorClass = 'badRequest' | 'unprocessable' | 'internal';

export class SMPError extends Error {
  constructor(message: string, readonly errorClass: SMPErrorClass = 'internal') {
    super(message);
    this.name = 'SMPError';
  }

  toStatusError(): StatusError {
    switch (this.errorClass) {
      case 'badRequest':
        return newBadRequest(this.message);
      case 'unprocessable':
        return genericUnprocessable(this.message);
      default:
        return unknownError(this.message);
    }
  }
}

export const errBadJSONDoc = () => new SMPError('invalid JSON document', 'badRequest');
export const errNoListOfLists = () => new SMPError('lists of lists are not supported', 'unprocessable');
export const errBadPatchFormatForPrimitiveList = () => new SMPError('invalid patch format of primitive list', 'badRequest');
export const errBadPatchFormatForRetainKeys = () => new SMPError('invalid patch format of retainKeys', 'badRequest');
export const errBadPatchFormatForSetElementOrderList = () => new SMPError('invalid patch format of setElementOrder list', 'badRequest');

export const errNoMergeKey = (m: unknown, key: string) => new SMPError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);

/** mergepatch.ErrBadArgType: `expected` is the Go type the code asserted. */
export const errBadArgType = (expected: 'map' | 'slice', actual: unknown) =>
  new SMPError(`expected a ${goTypeName(expected === 'map' ? {} : [])}, but received a ${goTypeName(actual)}`);

export const errBadPatchType = (t: unknown, m: unknown) => new SMPError(`unknown patch type: ${goFormatS(t)} in map: ${goFormat(m)}`);

/** The dynamic Go type encoding/json (with kube's int preservation) gives a JSON value. */
export type GoKind = 'nil' | 'bool' | 'string' | 'int64' | 'float64' | 'slice' | 'map';

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map';
  }
}

export function goTypeName(v: unknown): string {
  const names: Record<GoKind, string> = {
    nil: '<nil>', bool: 'bool', string: 'string', int64: 'int64', float64: 'float64', slice: '[]interface {}', map: 'map[string]interface {}',
  };
  return names[goKind(v)];
}

/** Go's %v of a decoded JSON value: `map[a:1 b:[x y]]`, keys sorted. */
export function goFormat(v: unknown): string {
  switch (goKind(v)) {
    case 'nil':
      return '<nil>';
    case 'float64':
      return goFormatG(v as number);
    case 'slice':
      return `[${(v as unknown[]).map(goFormat).join(' ')}]`;
    case 'map': {
      const m = v as Record<string, unknown>;
      return `map[${Object.keys(m).sort().map((k) => `${k}:${goFormat(m[k])}`).join(' ')}]`;
    }
    default:
      return String(v);
  }
}

// %s of a non-string value prints as %!s(type=value).
function goFormatS(v: unknown): string {
  const k = goKind(v);
  if (k === 'string') return v as string;
  if (k === 'map' || k === 'slice') return goFormat(v);
  if (k === 'nil') return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goFormat(v)})`;
}
