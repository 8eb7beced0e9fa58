#!/usr/bin/env node
// Extracts Windlass's own schema data from Kubernetes' OpenAPI v2 document: every path of
// the group versions kube-apiserver serves by default (GA, not feature-gated off: the rule
// scripts/resources.mjs applies), the definitions and parameters they reference and the API
// machinery's own types. Written as src/generated/openapi.ts, a JSON text inside a module:
// the server imports it only when a request first needs a schema, and JSON.parse reads it
// far faster than V8 would compile the same data as an object literal.
//
// Usage: node scripts/extract.mjs [path/to/openapi-v2.json]
//   default: ../../../shared/reference/openapi-v2.json relative to this package.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATED_OFF } from './resources-facts.mjs';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Types used by the API machinery itself, whether or not a served path names them. */
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const EXTRA_DEFINITIONS = [
  `${META}ObjectMeta`, `${META}ListMeta`, `${META}Status`, `${META}StatusDetails`, `${META}StatusCause`,
  `${META}DeleteOptions`, `${META}WatchEvent`, `${META}Patch`, `${META}APIResourceList`, `${META}APIResource`,
  `${META}APIVersions`, `${META}APIGroupList`, `${META}APIGroup`, `${META}GroupVersionForDiscovery`,
  'io.k8s.apimachinery.pkg.version.Info',
];

/**
 * Properties named `description` went with the descriptions stripped from the reference
 * document; these Go types do have one (k8s.io/api scheduling/v1 PriorityClass,
 * apiextensions/v1 JSONSchemaProps and CustomResourceColumnDefinition), and decoding would drop it as unknown.
 */
const RESTORED_PROPERTIES = {
  'io.k8s.api.scheduling.v1.PriorityClass': { description: { type: 'string' } },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': { description: { type: 'string' } },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition': { description: { type: 'string' } },
};

const source = resolve(pkgDir, process.argv[2] ?? '../../../shared/reference/openapi-v2.json');
const raw = readFileSync(source);
const doc = JSON.parse(raw.toString('utf8'));
for (const [name, props] of Object.entries(RESTORED_PROPERTIES)) {
  const def = doc.definitions[name];
  def.properties = Object.fromEntries(Object.entries({ ...def.properties, ...props }).sort(([a], [b]) => a.localeCompare(b)));
}

const isGA = (v) => /^v\d+$/.test(v);

/** Whether kube-apiserver serves a path by default; discovery paths always are. */
function servedByDefault(path) {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.*)$/.exec(path);
  if (!m) return true; // /api/, /apis/, /apis/<group>/, /version/, /.well-known/…
  const group = m[2] ?? '';
  const version = m[1] ?? m[3];
  if (!isGA(version)) return false;
  let segs = m[4].split('/').filter(Boolean);
  if (segs[0] === 'watch') segs = segs.slice(1);
  if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
  return segs.length === 0 || !GATED_OFF.has(`${group}/${segs[0]}`);
}

function collectRefs(value, out) {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

const paths = {};
for (const [p, item] of Object.entries(doc.paths)) if (servedByDefault(p)) paths[p] = item;
// A group whose versions are all unserved keeps no /apis/<group>/ path.
const groupsServed = new Set(Object.keys(paths).map((p) => /^\/apis\/([^/]+)\/[^/]+\//.exec(p)?.[1]).filter(Boolean));
for (const p of Object.keys(paths)) {
  const g = /^\/apis\/([^/]+)\/$/.exec(p)?.[1];
  if (g && !groupsServed.has(g)) delete paths[p];
}

const parameters = {};
for (const ref of collectRefs(paths, new Set())) {
  if (ref.startsWith('#/parameters/')) parameters[ref.slice('#/parameters/'.length)] = doc.parameters[ref.slice('#/parameters/'.length)];
}

// Transitive closure of definitions, seeded by the paths, the parameters and the extras.
const wanted = new Set(EXTRA_DEFINITIONS);
for (const ref of collectRefs([paths, parameters], new Set())) {
  if (ref.startsWith('#/definitions/')) wanted.add(ref.slice('#/definitions/'.length));
}
const definitions = {};
const queue = [...wanted];
while (queue.length) {
  const name = queue.shift();
  if (definitions[name]) continue;
  const def = doc.definitions[name];
  if (!def) throw new Error(`definition ${name} not found in ${source}`);
  definitions[name] = def;
  for (const ref of collectRefs(def, new Set())) queue.push(ref.slice('#/definitions/'.length));
}

const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
const extracted = {
  source: { file: relative(pkgDir, source), sha256: createHash('sha256').update(raw).digest('hex'), info: doc.info },
  swagger: doc.swagger,
  info: doc.info,
  definitions: sorted(definitions),
  parameters: sorted(parameters),
  paths: sorted(paths),
  security: doc.security,
  securityDefinitions: doc.securityDefinitions,
};

/** Compact JSON with one definition, parameter or path per line, so a regeneration diffs by entry. */
function layout(obj) {
  const lines = ['{'];
  const keys = Object.keys(obj);
  keys.forEach((k, i) => {
    const v = obj[k];
    const comma = i < keys.length - 1 ? ',' : '';
    if (v && typeof v === 'object' && !Array.isArray(v) && ['definitions', 'parameters', 'paths'].includes(k)) {
      const entries = Object.entries(v).map(([n, d]) => `${JSON.stringify(n)}:${JSON.stringify(d)}`);
      lines.push(`${JSON.stringify(k)}:{`, entries.join(',\n'), `}${comma}`);
    } else {
      lines.push(`${JSON.stringify(k)}:${JSON.stringify(v)}${comma}`);
    }
  });
  lines.push('}');
  return lines.join('\n');
}

const json = layout(extracted);
JSON.parse(json); // the layout must stay valid JSON
// Inside String.raw`…` the text is kept verbatim except for these two sequences.
if (json.includes('`') || json.includes('${')) throw new Error('the document contains ` or ${; choose another quoting');

const outDir = join(pkgDir, 'src/generated');
mkdirSync(outDir, { recursive: true });
const body = `// Code generated by scripts/extract.mjs from the Kubernetes OpenAPI v2 document. DO NOT EDIT.

// Re-run \`node scripts/extract.mjs\` after updating the reference document. Imported only
// through load.ts, when a request first needs a schema.
import type { ExtractedOpenAPI } from '../types.js';

export const extracted: ExtractedOpenAPI = JSON.parse(String.raw\`${json}\`);
`;
writeFileSync(join(outDir, 'openapi.ts'), body);
console.log(
  `wrote src/generated/openapi.ts: ${Object.keys(definitions).length} definitions, ${Object.keys(paths).length} paths, ${Object.keys(parameters).length} parameters, ${body.length} bytes`,
);
