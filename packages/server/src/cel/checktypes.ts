/**
 * The types of cel-go's checker (common/types), as far as kube's environments need them: the
 * scalars, lists and maps, the object types a CRD schema declares (by name, with their fields),
 * the opaque library types (`kubernetes.Quantity`, `net.IP`, `optional_type(T)`), `type(T)`,
 * and the type parameters of generic overloads (`_==_(A, A)`, `_[_](list(A), int) -> A`).
 *
 * Assignability follows cel-go's checker/types.go: `dyn` (and an error) is assignable both ways,
 * `null` only to and from object types, and a type parameter binds to the first type it meets
 * and widens to the more general of two compatible ones.
 */
import type { CelType } from '@bufbuild/cel';

export type PrimName = 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null_type' | 'google.protobuf.Timestamp' | 'google.protobuf.Duration';

export type CelT =
  | { k: 'dyn' }
  | { k: 'error' }
  | { k: 'prim'; name: PrimName }
  | { k: 'list'; elem: CelT }
  | { k: 'map'; key: CelT; value: CelT }
  /** A schema's object: fields by their escaped names, computed when first asked for. */
  | { k: 'object'; name: string; field(name: string): CelT | undefined }
  | { k: 'opaque'; name: string; params: CelT[] }
  | { k: 'type'; of: CelT }
  | { k: 'param'; name: string };

const prim = (name: PrimName): CelT => ({ k: 'prim', name });
export const DYN: CelT = { k: 'dyn' };
export const ERROR: CelT = { k: 'error' };
export const INT = prim('int');
export const UINT = prim('uint');
export const DOUBLE = prim('double');
export const STRING = prim('string');
export const BOOL = prim('bool');
export const BYTES = prim('bytes');
export const NULL = prim('null_type');
export const TIMESTAMP = prim('google.protobuf.Timestamp');
export const DURATION = prim('google.protobuf.Duration');
export const listOf = (elem: CelT): CelT => ({ k: 'list', elem });
export const mapOf = (key: CelT, value: CelT): CelT => ({ k: 'map', key, value });
export const opaque = (name: string, ...params: CelT[]): CelT => ({ k: 'opaque', name, params });
export const optionalOf = (t: CelT): CelT => opaque('optional_type', t);
export const typeOf = (of: CelT): CelT => ({ k: 'type', of });
export const param = (name: string): CelT => ({ k: 'param', name });

/** cel-go's FormatCELType. */
export function formatType(t: CelT): string {
  switch (t.k) {
    case 'dyn': return 'dyn';
    case 'error': return '!error!';
    case 'prim':
      switch (t.name) {
        case 'null_type': return 'null';
        case 'google.protobuf.Timestamp': return 'timestamp';
        case 'google.protobuf.Duration': return 'duration';
        default: return t.name;
      }
    case 'list': return `list(${formatType(t.elem)})`;
    case 'map': return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case 'object': return t.name;
    case 'opaque': return t.params.length ? `${t.name}(${t.params.map(formatType).join(', ')})` : t.name;
    case 'type': return `type(${formatType(t.of)})`;
    case 'param': return t.name;
  }
}

const isWild = (t: CelT) => t.k === 'dyn' || t.k === 'error';

/** Whether `t` says nothing more than `dyn` anywhere inside (cel-go's mostGeneral picks such a type). */
function lessOrEquallySpecific(a: CelT, b: CelT): boolean {
  if (isWild(a) || a.k === 'param') return true;
  if (isWild(b) || b.k === 'param') return false;
  if (a.k === 'list' && b.k === 'list') return lessOrEquallySpecific(a.elem, b.elem);
  if (a.k === 'map' && b.k === 'map') return lessOrEquallySpecific(a.key, b.key) && lessOrEquallySpecific(a.value, b.value);
  if (a.k === 'type' && b.k === 'type') return lessOrEquallySpecific(a.of, b.of);
  if (a.k === 'opaque' && b.k === 'opaque') return a.name === b.name && a.params.every((p, i) => lessOrEquallySpecific(p, b.params[i]));
  return sameType(a, b);
}

export const mostGeneral = (a: CelT, b: CelT) => (lessOrEquallySpecific(a, b) ? a : b);

export function sameType(a: CelT, b: CelT): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'prim': return a.name === (b as typeof a).name;
    case 'list': return sameType(a.elem, (b as typeof a).elem);
    case 'map': return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'object': return a.name === (b as typeof a).name;
    case 'opaque': return a.name === (b as typeof a).name && a.params.every((p, i) => sameType(p, (b as typeof a).params[i]));
    case 'type': return sameType(a.of, (b as typeof a).of);
    case 'param': return a.name === (b as typeof a).name;
    default: return true;
  }
}

/** cel-go's isLegacyNullable: what `null` may stand for (objects, opaque values, timestamps and durations). */
const nullable = (t: CelT) => t.k === 'object' || t.k === 'opaque'
  || (t.k === 'prim' && (t.name === 'null_type' || t.name === 'google.protobuf.Timestamp' || t.name === 'google.protobuf.Duration'));

export type Bindings = Map<string, CelT>;

/** Whether a value of type `from` may be passed where `to` is declared, binding type parameters in `b`. */
export function assignable(b: Bindings, to: CelT, from: CelT): boolean {
  if (to.k === 'param') return bindParam(b, to.name, from, (bound) => assignable(b, bound, from));
  if (from.k === 'param') return bindParam(b, from.name, to, (bound) => assignable(b, to, bound));
  if (isWild(to) || isWild(from)) return true;
  if (to.k === 'prim' && to.name === 'null_type') return nullable(from);
  if (from.k === 'prim' && from.name === 'null_type') return nullable(to);
  if (to.k !== from.k) return false;
  switch (to.k) {
    case 'list': return assignable(b, to.elem, (from as typeof to).elem);
    case 'map': return assignable(b, to.key, (from as typeof to).key) && assignable(b, to.value, (from as typeof to).value);
    case 'opaque': {
      const f = from as typeof to;
      return to.name === f.name && to.params.length === f.params.length && to.params.every((p, i) => assignable(b, p, f.params[i]));
    }
    case 'type': return true;
    default: return sameType(to, from);
  }
}

/** A type parameter bound to the first type it meets, then widened to the more general of it and a compatible one. */
function bindParam(b: Bindings, name: string, other: CelT, compatible: (bound: CelT) => boolean): boolean {
  const bound = b.get(name);
  if (bound === undefined) {
    b.set(name, other);
    return true;
  }
  if (!compatible(bound)) return false;
  b.set(name, mostGeneral(bound, other));
  return true;
}

/** `t` with its bound type parameters replaced; unbound ones are `dyn`. */
export function substitute(b: Bindings, t: CelT): CelT {
  switch (t.k) {
    case 'param': {
      const bound = b.get(t.name);
      return bound === undefined || (bound.k === 'param' && bound.name === t.name) ? DYN : substitute(b, bound);
    }
    case 'list': return listOf(substitute(b, t.elem));
    case 'map': return mapOf(substitute(b, t.key), substitute(b, t.value));
    case 'opaque': return t.params.length ? opaque(t.name, ...t.params.map((p) => substitute(b, p))) : t;
    case 'type': return typeOf(substitute(b, t.of));
    default: return t;
  }
}

/** A type of @bufbuild/cel's function declarations (the runtime's), in the checker's terms. */
export function fromCelType(t: CelType): CelT {
  switch (t.kind) {
    case 'scalar':
      if (t.name === 'dyn') return DYN;
      if (t.name === 'type') return typeOf(DYN);
      return prim(t.name as PrimName);
    case 'list': return listOf(fromCelType(t.element));
    case 'map': return mapOf(fromCelType(t.key), fromCelType(t.value));
    case 'object': {
      const name = t.desc ? t.desc.typeName : t.name;
      if (name === 'google.protobuf.Timestamp' || name === 'google.protobuf.Duration') return prim(name);
      // The runtime declares optionals without their contents' type.
      return name === 'optional_type' ? optionalOf(DYN) : opaque(name);
    }
  }
}
