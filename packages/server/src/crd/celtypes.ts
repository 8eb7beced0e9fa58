/**
 * The CEL type a CRD schema gives `self`, as kube's SchemaDeclType (k8s.io/apiserver
 * pkg/cel/common/schemas.go) declares it: objects with properties are object types whose
 * fields are the escaped property names, `additionalProperties` maps, arrays lists; a resource's
 * root (and an embedded resource) always has `apiVersion`, `kind`, `metadata.name` and
 * `metadata.generateName`, and no other metadata. What kube does not expose — a field that only
 * preserves unknown fields, a list whose items are not exposed — is undefined here: a rule
 * cannot reach it.
 *
 * Object types are named as kube names them under the rule's root (`<root>.spec`,
 * `<root>.items.@idx`, `<root>.labels.@elem`), so two fields of the same shape are different
 * types, as in kube.
 *
 * Each declaration also carries kube's size bounds for cost estimation: the most elements
 * (characters, items, entries) a value may have, and the fewest bytes it serializes to, both
 * from the schema's limits or else from the largest request a write may carry.
 */
import { structural } from '@windlass/schemas';
import { BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, listOf, mapOf, type CelT } from '../cel/checktypes.js';
import { escapeProperty, reserved } from './celvalues.js';

type Schema = structural.StructuralSchema;

/** kube's celconfig.MaxRequestSizeBytes. */
export const maxRequestSizeBytes = 3n * 1024n * 1024n;

export interface Decl {
  type: CelT;
  /** kube's DeclType.MaxElements. */
  maxElements: bigint;
  /** kube's DeclType.MinSerializedSize. */
  minSize: bigint;
  /** An object's fields by their escaped names. */
  fields?: ReadonlyMap<string, Decl>;
  elem?: Decl;
  key?: Decl;
}

const str: Schema = { type: 'string' };
const simple = (type: CelT, minSize: bigint, maxElements = 0n): Decl => ({ type, minSize, maxElements });
const nonNegative = (n: number) => BigInt(Math.max(0, Math.trunc(n)));

/** kube's WithTypeAndObjectMeta: apiVersion, kind and metadata's name and generateName, declared. */
function withTypeAndObjectMeta(s: Schema): Schema {
  const p = s.properties ?? {};
  const meta = p.metadata?.properties;
  if (p.kind?.type === 'string' && p.apiVersion?.type === 'string' && p.metadata?.type === 'object' && meta?.name?.type === 'string' && meta?.generateName?.type === 'string') return s;
  return { ...s, properties: { ...p, kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } } } };
}

/** kube's estimateMaxStringLengthPerRequest. */
function maxStringLength(s: Schema): bigint {
  if (s['x-kubernetes-int-or-string']) return maxRequestSizeBytes - 2n;
  switch (s.format) {
    case 'duration': return 32n;
    case 'date': return 12n;
    case 'date-time': return 32n;
    default: return maxRequestSizeBytes - 2n;
  }
}

const embedded = (x: Schema) => x['x-kubernetes-embedded-resource'] === true;

export function schemaDecl(s: Schema | undefined, isResourceRoot: boolean, name: string): Decl | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return simple(DYN, 1n, s.maxLength !== undefined ? nonNegative(s.maxLength) * 4n : maxStringLength(s));
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = schemaDecl(s.items, embedded(s.items), `${name}.@idx`);
      if (!items) return undefined;
      const maxItems = s.maxItems !== undefined ? nonNegative(s.maxItems) : (maxRequestSizeBytes - 2n) / (items.minSize + 1n);
      return { type: listOf(items.type), minSize: 2n, maxElements: maxItems, elem: items };
    }
    case 'object': {
      if (structural.isObject(s.additionalProperties)) {
        const ap = s.additionalProperties as Schema;
        const values = schemaDecl(ap, embedded(ap), `${name}.@elem`);
        if (!values) return undefined;
        const maxProps = s.maxProperties !== undefined ? nonNegative(s.maxProperties) : (maxRequestSizeBytes - 2n) / (values.minSize + 6n);
        return { type: mapOf(STRING, values.type), minSize: 2n, maxElements: maxProps, elem: values, key: simple(STRING, 2n) };
      }
      const fields = new Map<string, Decl>();
      const required = new Set(s.required ?? []);
      // An object serializes at least as {}, plus its required properties that have no default.
      let minSize = 2n;
      for (const [prop, ps] of Object.entries(s.properties ?? {})) {
        const escaped = escapeProperty(prop);
        const d = schemaDecl(ps, embedded(ps), `${name}.${escaped ?? prop}`);
        if (!d) continue;
        if (escaped !== undefined) fields.set(escaped, d);
        if (required.has(prop) && ps.default === undefined) minSize += BigInt(Buffer.byteLength(prop)) + d.minSize + 4n;
      }
      // kube (compatibility 1.31+) also reaches a field named by a reserved word unescaped.
      const field = (f: string) => fields.get(f) ?? (reserved.has(f) ? fields.get(`__${f}__`) : undefined);
      return { type: { k: 'object', name, field: (f) => field(f)?.type }, minSize, maxElements: 0n, fields };
    }
    case 'string':
      switch (s.format) {
        case 'byte': return simple(BYTES, 2n, s.maxLength !== undefined ? nonNegative(s.maxLength) : maxStringLength(s));
        case 'duration': return simple(DURATION, 3n, maxStringLength(s));
        case 'date': return simple(TIMESTAMP, 12n, maxStringLength(s));
        case 'date-time': return simple(TIMESTAMP, 21n, maxStringLength(s));
      }
      if (s.maxLength !== undefined) return simple(STRING, 2n, nonNegative(s.maxLength) * 4n);
      if (s.enum?.length) return simple(STRING, 2n, s.enum.reduce<bigint>((m, v) => (typeof v === 'string' && BigInt(Buffer.byteLength(v)) > m ? BigInt(Buffer.byteLength(v)) : m), 0n));
      return simple(STRING, 2n, maxStringLength(s));
    case 'boolean': return simple(BOOL, 4n);
    case 'number': return simple(DOUBLE, 1n);
    case 'integer': return simple(INT, 1n);
    default: return undefined;
  }
}

export function schemaDeclType(s: Schema | undefined, isResourceRoot: boolean, name: string): CelT | undefined {
  return schemaDecl(s, isResourceRoot, name)?.type;
}
