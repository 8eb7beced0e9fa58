/**
 * cel-go's optional values, as far as functions reach them: `optional.of`, `optional.none`,
 * `optional.ofNonZeroValue`, `hasValue()`, `value()`, `orValue()` and `or()`, which kube's format
 * library returns. The optional syntax (`a.?b`, `a[?k]`, `[?x]`, `{?k: v}`) is the parser's and
 * @bufbuild/cel 0.6.1's parser does not read it.
 */
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, isCelUint, type CelValue } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { opaqueType } from './opaque.js';

const { BOOL, DYN } = CelScalar;

interface Optional {
  value?: CelValue;
}

let unique = 0;

/** A key equal for equal contents where the contents have a plain form; unique otherwise. */
function contentKey(v: CelValue): string {
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'bigint' || typeof v === 'number') return `n${String(v)}`;
  if (typeof v === 'boolean' || v === null) return `l${String(v)}`;
  if (isCelUint(v)) return `n${v.value}`;
  if (isCelList(v)) return `[${[...v].map(contentKey).join(',')}]`;
  if (isReflectMessage(v) && v.desc.fields.length === 1 && v.desc.fields[0].name === 'key') return `o${v.desc.typeName}:${String(v.get(v.desc.fields[0]))}`;
  return `#${++unique}`;
}

export const OptionalType = opaqueType<Optional>(
  'optional_type',
  (o) => (o.value === undefined ? '' : `some:${contentKey(o.value)}`),
  (k) => {
    if (k === '') return {};
    throw new Error('optional value lost');
  },
);

const OPT = OptionalType.type;
export const none = () => OptionalType.of({});
export const some = (value: CelValue) => OptionalType.of({ value });

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array || isCelList(v) || isCelMap(v)) return (v instanceof Uint8Array ? v.length : v.size) === 0;
  return false;
}

export const optionalFunctions = [
  celFunc('optional.of', [DYN], OPT, (v) => some(v)),
  celFunc('optional.none', [], OPT, () => none()),
  celFunc('optional.ofNonZeroValue', [DYN], OPT, (v) => (isZero(v) ? none() : some(v))),
  celMethod('hasValue', OPT, [], BOOL, function () { return OptionalType.get(this).value !== undefined; }),
  celMethod('value', OPT, [], DYN, function () {
    const v = OptionalType.get(this).value;
    if (v === undefined) throw new Error('optional.none() dereference');
    return v;
  }),
  celMethod('orValue', OPT, [DYN], DYN, function (other) { return OptionalType.get(this).value ?? other; }),
  celMethod('or', OPT, [OPT], OPT, function (other) { return OptionalType.get(this).value !== undefined ? this : other; }),
];
