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
import { childCardinality, TotalCost } from './celcost.js';
import { ruleCompileErrors, ruleSchemaErrors, type RuleContext } from './celcompile.js';
import { validateStructural } from './structural.js';
import { validateClientConfig } from '../registry/kinds/admissionregistration/validation.js';
import type { CRD, CRDVersion, PrinterColumn } from './types.js';

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

/** `old` on updates, where an API approval left as it was is not checked again. */
export function validateCRD(crd: CRD, old?: CRD): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? ({} as CRD['spec']);
  const names = spec.names ?? ({} as CRD['spec']['names']);
  const name = crd.metadata.name ?? '';
  if (name !== `${names.plural}.${spec.group}`) errs.push(fieldErr.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(crd, old));
  errs.push(...validateAPIApproval(crd, old));
  return errs;
}

export function validateCRDUpdate(crd: CRD, old: CRD): FieldError[] {
  const errs = validateCRD(crd, old);
  if (crd.spec?.scope !== old.spec?.scope && (old.status?.storedVersions?.length ?? 0) > 0 && crd.spec?.scope) {
    // kube allows a scope change only while nothing is stored; established CRDs have stored versions.
    errs.push(fieldErr.invalid('spec.scope', crd.spec.scope, 'field is immutable'));
  }
  if (crd.spec?.group !== old.spec?.group) errs.push(fieldErr.invalid('spec.group', crd.spec?.group, 'field is immutable'));
  if (crd.spec?.names?.plural !== old.spec?.names?.plural) errs.push(fieldErr.invalid('spec.names.plural', crd.spec?.names?.plural, 'field is immutable'));
  return errs;
}

/** kube's findVersionsWithUnchangedSchemas: the versions whose schema an update leaves as it was. */
function unchangedSchemas(crd: CRD, old: CRD | undefined): Set<string> {
  const oldSchemas = new Map((old?.spec?.versions ?? []).map((v) => [v.name, v.schema?.openAPIV3Schema]));
  return new Set((crd.spec?.versions ?? []).filter((v) => oldSchemas.has(v.name) && structural.jsonEqual(v.schema?.openAPIV3Schema as never, oldSchemas.get(v.name) as never)).map((v) => v.name));
}

function validateSpec(crd: CRD, old: CRD | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec;
  const unchanged = unchangedSchemas(crd, old);
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
  // kube's validateCustomResourceDefinitionVersion: each version's own schema, subresources and
  // columns; then validateCustomResourceDefinitionSpec checks those lifted to the spec.
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (!lifted.schema) {
      if (!v.schema?.openAPIV3Schema) errs.push(fieldErr.required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
      else errs.push(...validateSchema(v.schema.openAPIV3Schema, `${path}.schema.openAPIV3Schema`, unchanged.has(v.name)));
    }
    if (!lifted.subresources) errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
    if (!lifted.columns) (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${j}]`)));
  });
  if (lifted.schema) {
    const schema = versions[0].schema?.openAPIV3Schema;
    if (!schema) versions.forEach((_, i) => errs.push(fieldErr.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required')));
    else errs.push(...validateSchema(schema, 'spec.validation.openAPIV3Schema', unchanged.has(versions[0].name)));
  }
  if (lifted.subresources) errs.push(...validateSubresources(versions[0].subresources, 'spec.subresources'));
  if (lifted.columns) (versions[0].additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${j}]`)));
  errs.push(...validateConversion(spec.conversion));
  // kube's ValidateCustomResourceDefinitionStoredVersions, over the status its strategy set.
  const stored = crd.status?.storedVersions ?? [];
  if (stored.length === 0) errs.push(fieldErr.invalid('status.storedVersions', stored, 'must have at least one stored version'));
  for (const v of versions) if (v.storage && !stored.includes(v.name)) errs.push(fieldErr.invalid('status.storedVersions', stored, `must have the storage version ${v.name}`));
  return errs;
}


/**
 * kube's validateCustomResourceConversion, at the internal version's paths: v1's
 * conversion.webhook.clientConfig and .conversionReviewVersions are the internal
 * conversion.webhookClientConfig and .conversionReviewVersions.
 */
function validateConversion(conversion: CRD['spec']['conversion'], path = 'spec.conversion'): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = conversion.strategy ?? '';
  if (strategy === '') errs.push(fieldErr.required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldErr.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = conversion.webhook;
  if (strategy === 'Webhook') {
    if (!webhook?.clientConfig) errs.push(fieldErr.required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else errs.push(...validateClientConfig(webhook.clientConfig, `${path}.webhookClientConfig`));
    errs.push(...conversionReviewVersions(webhook?.conversionReviewVersions ?? [], `${path}.conversionReviewVersions`));
  } else {
    if (webhook?.clientConfig) errs.push(fieldErr.forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (webhook?.conversionReviewVersions?.length) errs.push(fieldErr.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

/** kube's validateConversionReviewVersions: DNS labels, no repeats, one that kube speaks (v1, v1beta1). */
function conversionReviewVersions(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [fieldErr.required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErr.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(fieldErr.invalid(`${path}[${i}]`, v, m));
  });
  if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) errs.push(fieldErr.invalid(path, versions, 'must include at least one of v1, v1beta1'));
  return errs;
}

const columnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** kube's validateSimpleJSONPath: a path in the dot notation, starting with a dot. */
function simpleJSONPath(path: string, field: string): FieldError[] {
  if (path === '') return [fieldErr.invalid(field, path, 'must not be empty')];
  if (!path.startsWith('.')) return [fieldErr.invalid(field, path, 'must be a simple json path starting with .')];
  return [];
}

/** kube's ValidateCustomResourceColumnDefinition; the internal field name JSONPath is its path. */
function validateColumn(c: PrinterColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErr.required(`${path}.name`));
  if (!c.type) errs.push(fieldErr.required(`${path}.type`, `must be one of ${columnTypes.join(',')}`));
  else if (!columnTypes.includes(c.type)) errs.push(fieldErr.invalid(`${path}.type`, c.type, `must be one of ${columnTypes.join(',')}`));
  if (c.format && !columnFormats.includes(c.format)) errs.push(fieldErr.invalid(`${path}.format`, c.format, `must be one of ${columnFormats.join(',')}`));
  if (!c.jsonPath) errs.push(fieldErr.required(`${path}.JSONPath`));
  else errs.push(...simpleJSONPath(c.jsonPath, `${path}.JSONPath`));
  return errs;
}

/** kube's ValidateCustomResourceDefinitionSubresources: the scale paths are under .spec and .status. */
function validateSubresources(sub: CRDVersion['subresources'], path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const under = (value: string | undefined, field: string, prefixes: string[], message: string, required: boolean) => {
    if (!value) {
      if (required) errs.push(fieldErr.required(`${path}.scale.${field}`));
      return;
    }
    const bad = simpleJSONPath(value, `${path}.scale.${field}`);
    if (bad.length > 0) errs.push(...bad);
    else if (!prefixes.some((p) => value.startsWith(p))) errs.push(fieldErr.invalid(`${path}.scale.${field}`, value, message));
  };
  under(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  under(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  under(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false);
  return errs;
}

const approvalAnnotation = 'api-approved.kubernetes.io';

/** apihelpers.GetAPIApprovalState: a URL approves, "unapproved…" bypasses, anything else is invalid. */
function approvalState(crd: CRD): { state: 'missing' | 'bypassed' | 'approved' | 'invalid'; value: string } {
  const value = crd.metadata.annotations?.[approvalAnnotation] ?? '';
  if (value === '') return { state: 'missing', value };
  if (value.startsWith('unapproved')) return { state: 'bypassed', value };
  // Go's url.ParseRequestURI: an absolute URL (or path); approved when it has a scheme and a host.
  try {
    const u = new URL(value);
    if (u.host !== '' && /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(value)) return { state: 'approved', value };
  } catch {
    // not a URL
  }
  return { state: 'invalid', value };
}

/**
 * kube's validateAPIApproval: a CRD in a group of the Kubernetes community (k8s.io,
 * kubernetes.io and their subdomains) needs the api-approved.kubernetes.io annotation; an update
 * that leaves its state as it was is not checked.
 */
function validateAPIApproval(crd: CRD, old: CRD | undefined): FieldError[] {
  const group = crd.spec?.group ?? '';
  const isProtected = ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
  if (!isProtected) return [];
  const now = approvalState(crd);
  if (old && approvalState(old).state === now.state) return [];
  const field = `metadata.annotations[${approvalAnnotation}]`;
  const link = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (now.state === 'missing') return [fieldErr.required(field, `protected groups must have approval annotation "${approvalAnnotation}", ${link}`)];
  if (now.state === 'invalid') {
    return [fieldErr.invalid(field, now.value, `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", ${link}`)];
  }
  return [];
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

/**
 * The structural-schema rules and kube's extra checks of one schema, walked with kube's paths.
 * `unchanged`: an update leaves this version's schema as it was, so its rules are not refused for
 * their own cost (their total still is).
 */
function validateSchema(root: Schema, path: string, unchanged: boolean): FieldError[] {
  // kube's validateCustomResourceDefinitionValidation: the standard validator's checks, then a
  // schema that is not structural has its errors said, else its defaults are validated.
  const structuralErrs = validateStructural(root as never, path);
  const standard: FieldError[] = [];
  const defaults: FieldError[] = [];
  walk(root, path, structuralErrs.length === 0 ? defaults : undefined, standard);
  const errs = [...standard, ...structuralErrs, ...defaults];
  // kube compiles the rules only of a schema without other errors (their types come from it).
  if (errs.length === 0) {
    const total = new TotalCost();
    celRules(root, path, errs, { isResourceRoot: true, cardinality: 1n, total, suppressPerExpressionCost: unchanged });
    errs.push(...total.errors(path));
  }
  return errs;
}

/**
 * Every schema's rules compiled, as kube walks them: `self` at the root and at embedded resources
 * is a resource; below a list that is not a map list, or an atomic map, old and new values cannot
 * be correlated (`uncorrelatable` is the path of the highest such schema); below a list or map,
 * a rule may run as many times as it may have items or properties.
 */
function celRules(s: Schema, path: string, errs: FieldError[], ctx: RuleContext): void {
  if (!s || typeof s !== 'object') return;
  errs.push(...ruleCompileErrors(s, path, { ...ctx, isResourceRoot: ctx.isResourceRoot || s['x-kubernetes-embedded-resource'] === true }));
  const child = (uncorrelatable: string | undefined): RuleContext => ({ ...ctx, isResourceRoot: false, uncorrelatable, cardinality: childCardinality(s, ctx.cardinality) });
  const inProperties = child(ctx.uncorrelatable ?? (s['x-kubernetes-map-type'] === 'atomic' ? path : undefined));
  for (const [name, prop] of Object.entries(s.properties ?? {})) celRules(prop, `${path}.properties[${name}]`, errs, inProperties);
  if (structural.isObject(s.additionalProperties)) celRules(s.additionalProperties as Schema, `${path}.additionalProperties`, errs, child(ctx.uncorrelatable));
  if (s.items) celRules(s.items, `${path}.items`, errs, child(ctx.uncorrelatable ?? (s['x-kubernetes-list-type'] !== 'map' ? path : undefined)));
}

/** The standard validator's checks into `errs`; defaults that their schema refuses into `defaultErrs`, when given. */
function walk(s: Schema, path: string, defaultErrs: FieldError[] | undefined, errs: FieldError[]): void {
  if (!s || typeof s !== 'object') return;
  standardChecks(s, path, errs);
  if ((s as { uniqueItems?: boolean }).uniqueItems === true) errs.push(fieldErr.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(fieldErr.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldErr.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(fieldErr.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  if (listType === 'map' && !(s['x-kubernetes-list-map-keys']?.length)) errs.push(fieldErr.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  if (listType !== undefined && s.type !== 'array') errs.push(fieldErr.invalid(`${path}.type`, s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
  if (s.default !== undefined && defaultErrs) {
    const withoutDefault: Schema = { ...s };
    delete withoutDefault.default;
    // kube's ValidateDefaults: a default its own schema would prune is refused (v1 requires pruned defaults).
    if (structural.pruneAt(structuredClone(s.default), s, s['x-kubernetes-embedded-resource'] === true).length > 0) {
      defaultErrs.push(fieldErr.invalid(`${path}.default`, s.default, 'must not have unknown fields'));
    }
    const found: FieldError[] = [];
    structural.validateValue(s.default, withoutDefault, '', found);
    for (const e of found) defaultErrs.push({ ...e, field: e.field ? `${path}.default.${e.field}` : `${path}.default` });
  }
  for (const [name, prop] of Object.entries(s.properties ?? {})) walk(prop, `${path}.properties[${name}]`, defaultErrs, errs);
  if (structural.isObject(s.additionalProperties)) walk(s.additionalProperties as Schema, `${path}.additionalProperties`, defaultErrs, errs);
  if (Array.isArray(s.items)) (s.items as Schema[]).forEach((item, i) => walk(item, `${path}.items[${i}]`, defaultErrs, errs));
  else if (s.items) walk(s.items, `${path}.items`, defaultErrs, errs);
  errs.push(...ruleSchemaErrors(s, path));
}

const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** The JSON Schema features a CRD schema may not use (kube's specStandardValidatorV3.validate), in its order. */
const unsupported: Array<[string, (s: Record<string, unknown>) => boolean]> = [
  ['id', (s) => typeof s.id === 'string' && s.id !== ''],
  ['additionalItems', (s) => s.additionalItems !== undefined && s.additionalItems !== null],
  ['patternProperties', (s) => isNonEmptyObject(s.patternProperties)],
  ['definitions', (s) => isNonEmptyObject(s.definitions)],
  ['dependencies', (s) => s.dependencies !== undefined && s.dependencies !== null],
  ['$ref', (s) => s.$ref !== undefined && s.$ref !== null],
];

const isNonEmptyObject = (v: unknown) => structural.isObject(v) && Object.keys(v).length > 0;

function standardChecks(s: Schema, path: string, errs: FieldError[]): void {
  const raw = s as unknown as Record<string, unknown>;
  const type = raw.type;
  if (typeof type === 'string' && type !== '' && !openAPIV3Types.includes(type)) errs.push(fieldErr.notSupported(`${path}.type`, type, openAPIV3Types));
  for (const [name, present] of unsupported) if (present(raw)) errs.push(fieldErr.forbidden(`${path}.${name}`, `${name} is not supported`));
  if (type === 'null') errs.push(fieldErr.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(raw.items) && raw.items.length > 0) errs.push(fieldErr.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
}
