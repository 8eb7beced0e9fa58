/**
 * The ResourceQuota plugin's configuration (k8s.io/apiserver
 * pkg/admission/plugin/resourcequota/apis/resourcequota, v0.35): `limitedResources`, resources
 * that may only be consumed where a quota covers them. kube's default is empty (LoadConfiguration
 * with no reader), which is what a server without --admission-control-config-file runs with.
 * Decoded as kube's strict codec does: the three registered kinds, unknown fields refused, and
 * ValidateConfiguration's one rule (every entry names its resource).
 */
import type { StoreContext } from '../registry/types.js';
import { isObject, list, scopeSelectorOf, type Json, type ScopeSelector } from './resourcequota-lists.js';

/** LimitedResource. */
export interface LimitedResource {
  apiGroup: string;
  resource: string;
  /** A consumed resource name containing one of these needs a covering quota. */
  matchContains: string[];
  /** An object matching one of these scopes needs a quota with a scope of that name. */
  matchScopes: ScopeSelector[];
}

export interface ResourceQuotaConfiguration {
  limitedResources: LimitedResource[];
}

/** The group versions ResourceQuotaConfiguration is registered under (install.Install). */
const kinds: Record<string, string> = {
  'apiserver.config.k8s.io/v1': 'ResourceQuotaConfiguration',
  'resourcequota.admission.k8s.io/v1beta1': 'Configuration',
  'resourcequota.admission.k8s.io/v1alpha1': 'Configuration',
};

export class ConfigurationError extends Error {}

/** Fields of `o` outside `known`, as the strict decoder names them. */
function unknownFields(o: Json, known: string[], path: string, out: string[]): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) out.push(`${path}${path ? '.' : ''}${k}`);
}

function stringsAt(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new ConfigurationError(`json: cannot unmarshal ${JSON.stringify(v)} into Go struct field ${path} of type []string`);
  return v as string[];
}

/** LoadConfiguration of a decoded document, then ValidateConfiguration. */
export function parseResourceQuotaConfiguration(doc: unknown): ResourceQuotaConfiguration {
  if (!isObject(doc)) throw new ConfigurationError('couldn\'t get version/kind; json parse error: the configuration is not an object');
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const kind = typeof doc.kind === 'string' ? doc.kind : '';
  if (!apiVersion) throw new ConfigurationError(`Object 'apiVersion' is missing in '${JSON.stringify(doc)}'`);
  if (!kind) throw new ConfigurationError(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (kinds[apiVersion] !== kind) throw new ConfigurationError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const unknown: string[] = [];
  unknownFields(doc, ['apiVersion', 'kind', 'limitedResources'], '', unknown);
  const limitedResources = list(doc.limitedResources).map((raw, i): LimitedResource => {
    unknownFields(raw, ['apiGroup', 'resource', 'matchContains', 'matchScopes'], `limitedResources[${i}]`, unknown);
    const scopes = list(raw.matchScopes);
    scopes.forEach((s, j) => unknownFields(s, ['scopeName', 'operator', 'values'], `limitedResources[${i}].matchScopes[${j}]`, unknown));
    return {
      apiGroup: typeof raw.apiGroup === 'string' ? raw.apiGroup : '',
      resource: typeof raw.resource === 'string' ? raw.resource : '',
      matchContains: stringsAt(raw.matchContains, 'LimitedResource.limitedResources.matchContains'),
      matchScopes: scopes.map(scopeSelectorOf),
    };
  });
  if (unknown.length > 0) throw new ConfigurationError(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  const required = limitedResources.flatMap((l, i) => (l.resource === '' ? [`limitedResources[${i}].resource: Required value`] : []));
  if (required.length > 0) throw new ConfigurationError(required.length === 1 ? required[0] : `[${required.join(', ')}]`);
  return { limitedResources };
}

const configured = new WeakMap<StoreContext, ResourceQuotaConfiguration>();
const empty: ResourceQuotaConfiguration = { limitedResources: [] };

/** Sets the configuration the plugin runs with for one server (its stores' shared context). */
export function configureResourceQuota(ctx: StoreContext, config: ResourceQuotaConfiguration): void {
  configured.set(ctx, config);
}

export function resourceQuotaConfiguration(ctx: StoreContext): ResourceQuotaConfiguration {
  return configured.get(ctx) ?? empty;
}
