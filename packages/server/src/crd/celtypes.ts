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
 */
import { structural } from '@windlass/schemas';
import { BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, listOf, mapOf, type CelT } from '../cel/checktypes.js';
import { escapeProperty, reserved } from './celvalues.js';

type Schema = structural.StructuralSchema;

const str: Schema = { type: 'string' };

/** kube's WithTypeAndObjectMeta: apiVersion, kind and metadata's name and generateName, declared. */
function withTypeAndObjectMeta(s: Schema): Schema {
  const p = s.properties ?? {};
  const meta = p.metadata?.properties;
  if (p.kind?.type === 'string' && p.apiVersion?.type === 'string' && p.metadata?.type === 'object' && meta?.name?.type === 'string' && meta?.generateName?.type === 'string') return s;
  return { ...s, properties: { ...p, kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } } } };
}

export function schemaDeclType(s: Schema | undefined, isResourceRoot: boolean, name: string): CelT | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return DYN;
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  const embedded = (x: Schema) => x['x-kubernetes-embedded-resource'] === true;
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = schemaDeclType(s.items, embedded(s.items), `${name}.@idx`);
      return items && listOf(items);
    }
    case 'object': {
      if (structural.isObject(s.additionalProperties)) {
        const ap = s.additionalProperties as Schema;
        const values = schemaDeclType(ap, embedded(ap), `${name}.@elem`);
        return values && mapOf(STRING, values);
      }
      const props = s.properties ?? {};
      let fields: Map<string, CelT> | undefined;
      return {
        k: 'object',
        name,
        field(f) {
          if (!fields) {
            fields = new Map();
            for (const [prop, ps] of Object.entries(props)) {
              const escaped = escapeProperty(prop);
              const t = escaped === undefined ? undefined : schemaDeclType(ps, embedded(ps), `${name}.${escaped}`);
              if (t) fields.set(escaped!, t);
            }
          }
          // kube (compatibility 1.31+) also reaches a field named by a reserved word unescaped.
          return fields.get(f) ?? (reserved.has(f) ? fields.get(`__${f}__`) : undefined);
        },
      };
    }
    case 'string':
      switch (s.format) {
        case 'byte': return BYTES;
        case 'duration': return DURATION;
        case 'date': case 'date-time': return TIMESTAMP;
        default: return STRING;
      }
    case 'boolean': return BOOL;
    case 'number': return DOUBLE;
    case 'integer': return INT;
    default: return undefined;
  }
}
