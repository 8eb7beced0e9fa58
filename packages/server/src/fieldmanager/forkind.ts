/** The field manager of a served kind, built once from its OpenAPI schema and Go zero value. */
import { goRequestEncoderFor, loadGoTypes, loadedSchemas, loadSchemas, type Schemas } from '@windlass/schemas';
import type { KubeObject, ResourceDefinition } from '../registry/types.js';
import { FieldManager } from './fieldmanager.js';
import { TypeConverter, type JsonSchema } from './typeconverter.js';

const converters = new WeakMap<Schemas, TypeConverter>();
const managers = new WeakMap<ResourceDefinition, Promise<FieldManager | null>>();

function converterFor(schemas: Schemas): TypeConverter {
  let c = converters.get(schemas);
  if (!c) converters.set(schemas, (c = new TypeConverter((ref) => schemas.resolveRef(ref) as JsonSchema | undefined)));
  return c;
}

/**
 * Fields a write through each path may not take ownership of (kube's strategies'
 * GetResetFields): the main resource of a kind with a status subresource resets status, and
 * a status write resets the spec and labels.
 */
function resetFieldsOf(def: ResourceDefinition): Record<string, string[][]> | undefined {
  if (def.resetFields) return def.resetFields;
  if (!def.subresources?.some((r) => r.name === 'status')) return undefined;
  return { '': [['status']], status: [['spec'], ['metadata', 'labels']] };
}

/** null for kinds without a schema (they are served without managedFields). */
export function fieldManagerFor(def: ResourceDefinition): Promise<FieldManager | null> {
  let m = managers.get(def);
  if (!m) managers.set(def, (m = build(def)));
  return m;
}

async function build(def: ResourceDefinition): Promise<FieldManager | null> {
  const [schemas] = await Promise.all([loadedSchemas() ?? loadSchemas(), loadGoTypes()]);
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const root = schemas.definitionFor(gvk) ?? def.openAPISchema;
  if (!root) return null;
  const type = converterFor(schemas).typeOf(root as JsonSchema);
  const encode = goRequestEncoderFor(schemas, gvk);
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  return new FieldManager({
    ...gvk,
    type,
    zero: () => {
      const obj = { apiVersion, kind: def.kind, metadata: {} } as KubeObject;
      encode?.(obj);
      return obj;
    },
    // kube's structured merge manager defaults what it merged (its objectDefaulter): a built-in
    // kind's defaulting functions, a custom resource's schema defaults.
    defaults: (obj) => {
      def.strategy.defaults?.(obj);
      def.schemaDefaults?.(obj);
    },
    goEncode: encode ?? undefined,
    versioned: def.strategy.versioned?.bind(def.strategy),
    resetFields: resetFieldsOf(def),
  });
}
