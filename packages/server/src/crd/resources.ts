/**
 * The served resources of a CustomResourceDefinition: one ResourceDefinition per served
 * version, as the apiextensions-apiserver's crdHandler builds one storage per version
 * (pkg/apiserver/customresource_handler.go getOrCreateServingInfoFor) with the custom resource
 * strategy (pkg/registry/customresource/strategy.go): status and scale subresources, generation
 * on every change outside metadata (and status, with a status subresource), the version's
 * schema for pruning, defaulting and validation, printer columns, versions converted with the
 * `None` strategy (only apiVersion changes) to the storage version they share a key and cache with.
 */
import { createHash } from 'node:crypto';
import { fieldErr, GoValue, newInvalid, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import type { KubeObject, ResourceDefinition, ScaleDefinition, StatusStrategy, Strategy, TableColumn } from '../registry/types.js';
import { nameIsDNSSubdomain } from '../registry/names.js';
import { resourceQuotaAdmission } from '../admission/resourcequota.js';
import { compileJSONPath } from './jsonpath.js';
import { validateCELRules } from './cel.js';
import { fieldManagerSchema } from './openapi.js';
import { humanDuration } from '../registry/age.js';
import type { CRD, CRDVersion, PrinterColumn } from './types.js';
import { conversionWebhookOf, convertByWebhook } from './conversionwebhook.js';
import type { ServiceResolver } from '../admission/webhook/client.js';

/** The patch types kube accepts for custom resources: no strategic merge patch (no Go struct to read patch keys from). */
export const customResourcePatchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

const crVerbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** kube's discovery.StorageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** kube's version.CompareKubeAwareVersionStrings order: GA before beta before alpha, higher first; others last, alphabetically. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a), pb = parse(b);
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (!pa) return 1;
  if (!pb) return -1;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

const schemas = new WeakMap<ResourceDefinition, structural.StructuralSchema>();

/** The openAPIV3Schema of a custom resource version's definition (for OpenAPI). */
export function schemaOfDefinition(def: ResourceDefinition): structural.StructuralSchema | undefined {
  return schemas.get(def);
}

/** The version a stored-form object was written through (for validating against that version's schema). */
const servedVersionOf = new WeakMap<object, string>();

function nested(obj: unknown, path: string): { found: boolean; value: unknown } {
  let v: unknown = obj;
  for (const part of path.split('.').slice(1)) {
    if (!structural.isObject(v) || !(part in v)) return { found: false, value: undefined };
    v = v[part];
  }
  return { found: true, value: v };
}

/**
 * apiextensions' selectableFields as field selectors: each JSON path names a field whose value is
 * what Go's fmt.Sprint prints (validation allows strings, integers and booleans), '' when absent.
 */
function selectableFieldsOf(paths: string[]): Record<string, (obj: KubeObject) => string> | undefined {
  if (paths.length === 0) return undefined;
  return Object.fromEntries(paths.map((path) => [path.replace(/^\./, ''), (obj: KubeObject) => {
    const { value } = nested(obj, path.startsWith('.') ? path : `.${path}`);
    return value === undefined || value === null ? '' : String(value);
  }]));
}

function setNested(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.').slice(1);
  let v = obj;
  for (const part of parts.slice(0, -1)) {
    if (!structural.isObject(v[part])) v[part] = {};
    v = v[part] as Record<string, unknown>;
  }
  v[parts[parts.length - 1]] = value;
}

function scaleDefinition(scale: NonNullable<NonNullable<CRDVersion['subresources']>['scale']>): ScaleDefinition {
  const int = (obj: KubeObject, path: string) => {
    const v = nested(obj, path).value;
    return typeof v === 'number' ? v : 0;
  };
  return {
    specReplicas: (obj) => int(obj, scale.specReplicasPath),
    statusReplicas: (obj) => int(obj, scale.statusReplicasPath),
    selector: (obj) => {
      if (!scale.labelSelectorPath) return '';
      const v = nested(obj, scale.labelSelectorPath).value;
      return typeof v === 'string' ? v : '';
    },
    setSpecReplicas: (obj, replicas) => setNested(obj, scale.specReplicasPath, replicas),
    // kube's customresource scale mappings: the path without its leading dot, split at dots.
    replicasPath: scale.specReplicasPath.replace(/^\./, '').split('.'),
  };
}

/** kube's customResourceValidator.ValidateScaleSpec and ValidateScaleStatus. */
function validateScale(obj: KubeObject, scale: NonNullable<NonNullable<CRDVersion['subresources']>['scale']>): FieldError[] {
  const errs: FieldError[] = [];
  const check = (path: string) => {
    const { found, value } = nested(obj, path);
    if (!found) return;
    const field = path.slice(1);
    if (typeof value !== 'number' || !Number.isInteger(value)) errs.push(fieldErr.invalid(field, 0, `${path} accessor error: ${JSON.stringify(value)} is of the type ${typeof value}, expected int64`));
    else if (value < 0) errs.push(fieldErr.invalid(field, value, 'should be a non-negative integer'));
    else if (value > 2147483647) errs.push(fieldErr.invalid(field, value, 'should be less than or equal to 2147483647'));
  };
  check(scale.specReplicasPath);
  check(scale.statusReplicasPath);
  return errs;
}

/** Everything outside metadata (and status, when a status subresource owns it): what generation counts changes of. */
function generationContent(obj: KubeObject, withStatus: boolean): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...obj };
  delete rest.metadata;
  if (withStatus) delete rest.status;
  return rest;
}

function coerce(obj: KubeObject, schema: structural.StructuralSchema | undefined): void {
  structural.prune(obj, schema);
  structural.pruneNulls(obj, schema);
  structural.applyDefaults(obj, schema);
}

/** swaggerMetadataDescriptions of ObjectMeta's name and creationTimestamp, as kube's CRD tables describe them. */
const nameDescription = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDescription = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** kube's tableconvertor.New: Name, then the printer columns (a CRD without them has Age). */
function tableFor(columns: PrinterColumn[] | undefined): ResourceDefinition['table'] {
  const cols = columns && columns.length > 0 ? columns : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: creationTimestampDescription }];
  const paths = cols.map((c) => compileJSONPath(c.jsonPath));
  const defs: TableColumn[] = cols.map((c) => ({
    name: c.name, type: c.type, format: c.format ?? '', priority: c.priority ?? 0,
    description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
  }));
  return {
    ownNameColumn: true,
    columns: [{ name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 }, ...defs],
    cells: (obj) => [obj.metadata.name ?? '', ...cols.map((c, i) => {
      const found = paths[i].find(obj);
      if (found.length === 0) return null;
      return cellFor(c.type, found[0]);
    })],
  };
}

/** kube's cellForJSONValue, and jsonpath's printing for string columns. */
function cellFor(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      // metatable.ConvertToHumanReadableDateType: the age, as kubectl prints it.
      if (typeof v !== 'string') return null;
      const at = Date.parse(v);
      return Number.isNaN(at) ? '<invalid>' : humanDuration(Date.now() - at);
    }
    default:
      return v;
  }
}

export interface CRDResources {
  /** One definition per served version, in kube's version priority order (the preferred first). */
  definitions: ResourceDefinition[];
  storageVersion: string;
}

/** `conversionResolver` reaches the services of conversion webhooks (the admission webhooks' resolver). */
export function crdResources(crd: CRD, conversionResolver: () => ServiceResolver | undefined = () => undefined): CRDResources {
  const { group, names, scope } = crd.spec;
  const versions = [...crd.spec.versions].sort((a, b) => compareKubeVersions(a.name, b.name));
  const storage = crd.spec.versions.find((v) => v.storage) ?? versions[0];
  const schemaOf = new Map(crd.spec.versions.map((v) => [v.name, v.schema?.openAPIV3Schema]));
  // kube's unstructuredDefaulter: the schema of the object's own version.
  const schemaDefaults = crd.spec.versions.some((v) => structural.hasDefaults(v.schema?.openAPIV3Schema))
    ? (obj: KubeObject) => structural.applyDefaults(obj, schemaOf.get(String(obj.apiVersion ?? '').slice(group.length + 1)))
    : undefined;
  const storageGV = `${group}/${storage.name}`;
  const accepted = { ...names, ...(crd.status?.acceptedNames ?? {}) };
  const kind = accepted.kind ?? names.kind;
  const listKind = accepted.listKind || `${kind}List`;
  const hash = storageVersionHash(group, storage.name, kind);
  const storageSchema = storage.schema?.openAPIV3Schema;
  const webhook = conversionWebhookOf(crd);

  const definitions = versions.filter((v) => v.served).map((v): ResourceDefinition => {
    const schema = v.schema?.openAPIV3Schema;
    const withStatus = v.subresources?.status !== undefined;
    const scale = v.subresources?.scale;
    const schemaFor = (obj: KubeObject) => schemaOf.get(servedVersionOf.get(obj) ?? v.name) ?? schema;
    // kube's customResourceStrategy.Validate: the schema (ratcheted on updates), scale, then the
    // CEL rules, unless a blocking error came first (kube then says they were not checked).
    const validate = (obj: KubeObject, old?: KubeObject, statusOnly = false): FieldError[] => {
      const errs: FieldError[] = [];
      const s = schemaFor(obj);
      // A status write is checked against the status schema alone (kube's ValidateStatusUpdate).
      errs.push(...(statusOnly ? structural.validateCustomResourceStatus(obj, s, old) : structural.validateCustomResource(obj, s, old)));
      if (scale) errs.push(...validateScale(obj, scale));
      if (!structural.hasValidationRules(s)) return errs;
      const blocked = structural.blockingRulesError(errs);
      errs.push(...(blocked ? [blocked] : validateCELRules(obj, s, old)));
      return errs;
    };
    const strategy: Strategy = {
      nameValidator: nameIsDNSSubdomain,
      prepareForCreate(obj) {
        obj.metadata.generation = 1;
      },
      prepareForUpdate(obj, old) {
        // The custom resource strategy's AllowUnconditionalUpdate is false: a PUT names the resourceVersion it replaces.
        if (!obj.metadata.resourceVersion) {
          throw newInvalid({ group, kind: names.plural }, obj.metadata.name ?? '', [fieldErr.invalid('metadata.resourceVersion', new GoValue('0x0'), 'must be specified for an update')]);
        }
        const changed = !structural.jsonEqual(generationContent(obj, withStatus), generationContent(old, withStatus));
        obj.metadata.generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
      },
      validate: (obj) => validate(obj),
      validateUpdate: (obj, old) => validate(obj, old),
    };
    const subresourceStrategies: Record<string, StatusStrategy> = {};
    const subresources: ResourceDefinition['subresources'] = [];
    if (withStatus) {
      subresources.push({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
      subresourceStrategies.status = {
        // kube's statusStrategy.PrepareForUpdate: the old object with the new status (and managedFields).
        prepareForUpdate(obj, old) {
          const status = obj.status;
          const managedFields = obj.metadata?.managedFields;
          for (const key of Object.keys(obj)) delete obj[key];
          Object.assign(obj, structuredClone(old));
          if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
          else delete obj.metadata.managedFields;
          if (status !== undefined) obj.status = status;
          else delete obj.status;
        },
        validateUpdate: (obj, old) => validate(obj, old, true),
      };
    }
    if (scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
    const def: ResourceDefinition = {
      group, version: v.name, kind, listKind, resource: accepted.plural ?? names.plural,
      singularName: accepted.singular || (accepted.kind ?? names.kind).toLowerCase(),
      namespaced: scope === 'Namespaced', verbs: crVerbs, strategy,
      table: tableFor(v.additionalPrinterColumns),
      keyPrefix: `${group}/${names.plural}`,
      storageVersionHash: hash,
      subresourceStrategies,
      patchTypes: customResourcePatchTypes,
      customResource: true,
      schemaDefaults,
      decoder: (obj, unknown) => {
        unknown.push(...structural.prune(obj, schema));
        structural.pruneNulls(obj, schema);
        structural.applyDefaults(obj, schema);
      },
    };
    if (subresources.length > 0) def.subresources = subresources;
    const paths = (versions: CRDVersion[]) => [...new Set(versions.flatMap((x) => (x.selectableFields ?? []).map((f) => f.jsonPath)))];
    const selectable = selectableFieldsOf(paths([v]));
    if (selectable) def.selectableFields = selectable;
    // Versions share the storage version's cache, whose objects carry every version's selectable
    // fields (under None conversion the paths read the same values).
    if (v === storage) {
      const cached = selectableFieldsOf(paths(crd.spec.versions));
      if (cached && Object.keys(cached).length > Object.keys(selectable ?? {}).length) def.cachedSelectableFields = cached;
    }
    // kube's custom resource strategies' GetResetFields: the main resource resets status, a status write spec.
    if (withStatus) def.resetFields = { '': [['status']], status: [['spec']] };
    if (schema) schemas.set(def, schema);
    def.openAPISchema = fieldManagerSchema(def, schema as Record<string, unknown> | undefined);
    if (accepted.shortNames?.length) def.shortNames = accepted.shortNames;
    if (accepted.categories?.length) def.categories = accepted.categories;
    if (scale) def.scale = scaleDefinition(scale);
    // kube's ResourceQuota admission counts custom resources too (count/<plural>.<group>).
    if (def.namespaced) def.admission = [resourceQuotaAdmission(group, def.resource)];
    if (v.deprecated) def.deprecation = v.deprecationWarning ?? `${group}/${v.name} ${kind} is deprecated`;
    if (v.name !== storage.name) {
      const servedGV = `${group}/${v.name}`;
      def.conversion = {
        storageVersion: storage.name,
        // kube's schemaCoercingConverter: converting to a version prunes and defaults with that version's schema.
        toStorage: (obj) => {
          const out = { ...obj, apiVersion: storageGV };
          coerce(out, storageSchema);
          servedVersionOf.set(out, v.name);
          return out;
        },
        fromStorage: (obj) => {
          const out = structuredClone({ ...obj, apiVersion: servedGV });
          coerce(out, schema);
          return out;
        },
      };
      // The Webhook strategy: what the webhook answers is coerced to the target version's schema too.
      if (webhook) {
        def.conversion.convert = async (objs, toStorage) => {
          const out = await convertByWebhook(webhook, objs, toStorage ? storageGV : servedGV, conversionResolver);
          return out.map((o, i) => {
            if (o !== objs[i]) coerce(o, toStorage ? storageSchema : schema);
            return o;
          });
        };
      }
    }
    return def;
  });
  return { definitions, storageVersion: storage.name };
}
