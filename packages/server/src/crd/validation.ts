/**
 * CustomResourceDefinition validation, ported from kube's pkg/apis/apiextensions/validation
 * (ValidateCustomResourceDefinition) for the mistakes people make: the name, group, scope and
 * names, the versions and their single storage version, schemas required and structural
 * (pkg/apiserver/schema ValidateStructural), uniqueItems, list-map keys, and defaults that
 * their own schema refuses. Field paths are kube's: a schema shared by every version is
 * checked once as the internal `spec.validation`, as kube lifts identical schemas.
 */
import { fieldErr, isDNS1035Label, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import { ruleCompileErrors } from './cel.js';
import type { CRD, CRDVersion } from './types.js';

type Schema = structural.StructuralSchema;

/** Whether every version carries the same value at `pick` (kube's conversion lifts it to the spec then). */
function shared<T>(versions: CRDVersion[], pick: (v: CRDVersion) => T): boolean {
  const first = JSON.stringify(pick(versions[0]) ?? null);
  return versions.every((v) => JSON.stringify(pick(v) ?? null) === first);
}

/**
 * The internal CustomResourceDefinitionVersion as kube 1.35's field errors print it (JSON of the
 * untagged Go struct). Fields every version shares are lifted to the spec and null here.
 */
function internalVersion(v: CRDVersion, lifted: { schema: boolean; subresources: boolean; columns: boolean }): Record<string, unknown> {
  return {
    Name: v.name, Served: v.served === true, Storage: v.storage === true, Deprecated: v.deprecated === true,
    DeprecationWarning: v.deprecationWarning ?? null,
    Schema: lifted.schema || !v.schema ? null : { OpenAPIV3Schema: v.schema.openAPIV3Schema ?? null },
    Subresources: lifted.subresources || !v.subresources ? null : v.subresources,
    AdditionalPrinterColumns: lifted.columns || !v.additionalPrinterColumns ? null : v.additionalPrinterColumns,
    SelectableFields: v.selectableFields ?? null,
  };
}

export function validateCRD(crd: CRD): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? ({} as CRD['spec']);
  const names = spec.names ?? ({} as CRD['spec']['names']);
  const name = crd.metadata.name ?? '';
  if (name !== `${names.plural}.${spec.group}`) errs.push(fieldErr.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(crd));
  return errs;
}

export function validateCRDUpdate(crd: CRD, old: CRD): FieldError[] {
  const errs = validateCRD(crd);
  if (crd.spec?.scope !== old.spec?.scope && (old.status?.storedVersions?.length ?? 0) > 0 && crd.spec?.scope) {
    // kube allows a scope change only while nothing is stored; established CRDs have stored versions.
    errs.push(fieldErr.invalid('spec.scope', crd.spec.scope, 'field is immutable'));
  }
  if (crd.spec?.group !== old.spec?.group) errs.push(fieldErr.invalid('spec.group', crd.spec?.group, 'field is immutable'));
  if (crd.spec?.names?.plural !== old.spec?.names?.plural) errs.push(fieldErr.invalid('spec.names.plural', crd.spec?.names?.plural, 'field is immutable'));
  return errs;
}

function validateSpec(crd: CRD): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec;
  const group = spec.group ?? '';
  if (group === '') errs.push(fieldErr.required('spec.group'));
  else {
    const msgs = isDNS1123Subdomain(group);
    for (const m of msgs) errs.push(fieldErr.invalid('spec.group', group, m));
    if (msgs.length === 0 && group.split('.').length < 2) errs.push(fieldErr.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    if (!spec.scope) errs.push(fieldErr.required('spec.scope'));
    else errs.push(fieldErr.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }
  errs.push(...validateNames(spec.names ?? ({} as CRD['spec']['names']), 'spec.names'));
  const versions = spec.versions ?? [];
  if (versions.length === 0) {
    errs.push(fieldErr.required('spec.versions', 'must have exactly one version marked as storage version'));
    return errs;
  }
  const lifted = {
    schema: shared(versions, (v) => v.schema),
    subresources: shared(versions, (v) => v.subresources),
    columns: shared(versions, (v) => v.additionalPrinterColumns),
  };
  const storage = versions.filter((v) => v.storage);
  if (storage.length !== 1) {
    errs.push(fieldErr.invalid('spec.versions', versions.map((v) => internalVersion(v, lifted)), 'must have exactly one version marked as storage version'));
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (seen.has(v.name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, detail: `Duplicate value: ${JSON.stringify(v.name)}` });
    seen.add(v.name);
    for (const m of isDNS1035Label(v.name ?? '')) errs.push(fieldErr.invalid(`${path}.name`, v.name, m));
  });
  if (!versions.some((v) => v.served)) errs.push(fieldErr.invalid('spec.versions', versions.map((v) => internalVersion(v, lifted)), 'must have at least one version marked as served'));
  if (lifted.schema) {
    const schema = versions[0].schema?.openAPIV3Schema;
    if (!schema) versions.forEach((_, i) => errs.push(fieldErr.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required')));
    else errs.push(...validateSchema(schema, 'spec.validation.openAPIV3Schema'));
  } else {
    versions.forEach((v, i) => {
      const path = `spec.versions[${i}].schema.openAPIV3Schema`;
      if (!v.schema?.openAPIV3Schema) errs.push(fieldErr.required(path, 'schemas are required'));
      else errs.push(...validateSchema(v.schema.openAPIV3Schema, path));
    });
  }
  // kube's ValidateCustomResourceDefinitionStoredVersions, over the status its strategy set.
  const stored = crd.status?.storedVersions ?? [];
  if (stored.length === 0) errs.push(fieldErr.invalid('status.storedVersions', stored, 'must have at least one stored version'));
  for (const v of versions) if (v.storage && !stored.includes(v.name)) errs.push(fieldErr.invalid('status.storedVersions', stored, `must have the storage version ${v.name}`));
  return errs;
}


function validateNames(names: CRD['spec']['names'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const dns = (value: string | undefined, field: string, required: boolean) => {
    if (!value) {
      if (required) errs.push(fieldErr.required(`${path}.${field}`));
      return;
    }
    for (const m of isDNS1035Label(value)) errs.push(fieldErr.invalid(`${path}.${field}`, value, m));
  };
  dns(names.plural, 'plural', true);
  dns(names.singular, 'singular', false);
  if (!names.kind) errs.push(fieldErr.required(`${path}.kind`));
  else for (const m of isDNS1035Label(names.kind.toLowerCase())) errs.push(fieldErr.invalid(`${path}.kind`, names.kind, m));
  if (names.listKind) for (const m of isDNS1035Label(names.listKind.toLowerCase())) errs.push(fieldErr.invalid(`${path}.listKind`, names.listKind, m));
  if (names.kind && names.listKind && names.kind === names.listKind) errs.push(fieldErr.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.shortNames ?? []).forEach((s, i) => { for (const m of isDNS1035Label(s)) errs.push(fieldErr.invalid(`${path}.shortNames[${i}]`, s, m)); });
  (names.categories ?? []).forEach((c, i) => { for (const m of isDNS1035Label(c)) errs.push(fieldErr.invalid(`${path}.categories[${i}]`, c, m)); });
  return errs;
}

/** The structural-schema rules and kube's extra checks of one schema, walked with kube's paths. */
function validateSchema(root: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (root.type !== 'object' && !root['x-kubernetes-preserve-unknown-fields']) {
    if (!root.type) errs.push(fieldErr.required(`${path}.type`, 'must not be empty at the root'));
    else errs.push(fieldErr.invalid(`${path}.type`, root.type, 'must be object at the root'));
  }
  walk(root, path, 'root', errs);
  // kube compiles the rules only of a schema without other errors (their types come from it).
  if (errs.length === 0) celRules(root, path, errs);
  return errs;
}

function celRules(s: Schema, path: string, errs: FieldError[]): void {
  if (!s || typeof s !== 'object') return;
  errs.push(...ruleCompileErrors(s, path));
  for (const [name, prop] of Object.entries(s.properties ?? {})) celRules(prop, `${path}.properties[${name}]`, errs);
  if (structural.isObject(s.additionalProperties)) celRules(s.additionalProperties as Schema, `${path}.additionalProperties`, errs);
  if (s.items) celRules(s.items, `${path}.items`, errs);
}

function walk(s: Schema, path: string, where: 'root' | 'field' | 'item' | 'value', errs: FieldError[]): void {
  if (!s || typeof s !== 'object') return;
  const loose = s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (where !== 'root' && !s.type && !loose) {
    const message = where === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(fieldErr.required(`${path}.type`, message));
  }
  if ((s as { uniqueItems?: boolean }).uniqueItems === true) errs.push(fieldErr.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(fieldErr.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(fieldErr.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  if (listType === 'map' && !(s['x-kubernetes-list-map-keys']?.length)) errs.push(fieldErr.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  if (listType !== undefined && s.type !== 'array') errs.push(fieldErr.invalid(`${path}.type`, s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
  if (s.default !== undefined) {
    const withoutDefault: Schema = { ...s };
    delete withoutDefault.default;
    const found: FieldError[] = [];
    structural.validateValue(s.default, withoutDefault, '', found);
    for (const e of found) errs.push({ ...e, field: e.field ? `${path}.default.${e.field}` : `${path}.default` });
  }
  for (const [name, prop] of Object.entries(s.properties ?? {})) walk(prop, `${path}.properties[${name}]`, 'field', errs);
  if (structural.isObject(s.additionalProperties)) walk(s.additionalProperties as Schema, `${path}.additionalProperties`, 'value', errs);
  if (s.items) walk(s.items, `${path}.items`, 'item', errs);
}
