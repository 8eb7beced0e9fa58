/**
 * kube-apiserver's --admission-control-config-file (k8s.io/apiserver pkg/admission/config.go,
 * v0.35): an AdmissionConfiguration (apiserver.config.k8s.io/v1, or apiserver.k8s.io/v1alpha1)
 * whose `plugins` give each plugin its configuration, embedded or in a file of its own (a
 * relative path is read from the configuration file's directory). Read once at start, YAML or
 * JSON; a file that is not an AdmissionConfiguration is refused (kube's fallback only serves two
 * legacy plugins Windlass does not have). Of the plugins Windlass runs only ResourceQuota takes
 * a configuration.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parseYAMLBody } from '../handlers/yamlbody.js';
import type { StoreContext } from '../registry/types.js';
import { isObject, list } from './resourcequota-lists.js';
import { ConfigurationError, configureResourceQuota, parseResourceQuotaConfiguration } from './resourcequota-config.js';

export interface AdmissionPluginConfiguration {
  name: string;
  /** Absolute once read. */
  path: string;
  configuration?: unknown;
}

export interface AdmissionConfiguration {
  plugins: AdmissionPluginConfiguration[];
}

const admissionConfigurationVersions = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];

/** A document of a file: YAML's first document (JSON is YAML); a repeated key is refused as the strict decoder does. */
function parseDocument(text: string): unknown {
  const { value, duplicates } = parseYAMLBody(text);
  if (duplicates.length > 0) throw new ConfigurationError(`yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
  return value;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigurationError(`unable to read admission control configuration from ${JSON.stringify(file)} [${(err as Error).message}]`);
  }
}

/** ReadAdmissionConfiguration. */
export function readAdmissionConfiguration(file: string): AdmissionConfiguration {
  const doc = parseDocument(readText(file));
  if (!isObject(doc)) throw new ConfigurationError(`couldn't get version/kind; json parse error: ${JSON.stringify(file)} is not an object`);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  if (!apiVersion) throw new ConfigurationError(`Object 'apiVersion' is missing in '${JSON.stringify(doc)}'`);
  if (doc.kind !== 'AdmissionConfiguration' || !admissionConfigurationVersions.includes(apiVersion)) {
    throw new ConfigurationError(`no kind "${String(doc.kind ?? '')}" is registered for version "${apiVersion}"`);
  }
  const unknown = Object.keys(doc).filter((k) => !['apiVersion', 'kind', 'plugins'].includes(k));
  const plugins = list(doc.plugins).map((p, i): AdmissionPluginConfiguration => {
    unknown.push(...Object.keys(p).filter((k) => !['name', 'path', 'configuration'].includes(k)).map((k) => `plugins[${i}].${k}`));
    const path = typeof p.path === 'string' ? p.path : '';
    return {
      name: typeof p.name === 'string' ? p.name : '',
      path: path === '' || isAbsolute(path) ? path : join(dirname(file), path),
      configuration: p.configuration ?? undefined,
    };
  });
  if (unknown.length > 0) throw new ConfigurationError(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  return { plugins };
}

/** ConfigFor: the first entry naming the plugin, its embedded configuration else its file's. */
export function pluginConfiguration(config: AdmissionConfiguration, name: string): unknown {
  const entry = config.plugins.find((p) => p.name === name);
  if (!entry) return undefined;
  if (entry.configuration !== undefined) return entry.configuration;
  if (entry.path) return parseDocument(readText(entry.path));
  return undefined;
}

/** Reads the file and configures the server's plugins from it (kube: at start, failing it on an error). */
export function applyAdmissionConfigurationFile(ctx: StoreContext, file: string): void {
  const config = readAdmissionConfiguration(file);
  const quota = pluginConfiguration(config, 'ResourceQuota');
  if (quota !== undefined) configureResourceQuota(ctx, parseResourceQuotaConfiguration(quota));
}
