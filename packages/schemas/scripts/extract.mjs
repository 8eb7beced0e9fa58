#!/usr/bin/env node
// Extracts Windlass's own schema data from Kubernetes' OpenAPI v2 document: the
// definitions of the kinds Windlass serves (and everything they reference) plus the
// paths of their resources and of the discovery endpoints, written as a TypeScript
// module so the runtime needs neither the reference file nor a JSON loader.
//
// Usage: node scripts/extract.mjs [path/to/openapi-v2.json]
//   default: ../../../shared/reference/openapi-v2.json relative to this package.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The resources Windlass serves; add a line here and re-run to serve another kind. */
const RESOURCES = [
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces' },
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps' },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets' },
];

/** Types used by the API machinery itself, whether or not a served path names them. */
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const EXTRA_DEFINITIONS = [
  `${META}ObjectMeta`,
  `${META}ListMeta`,
  `${META}Status`,
  `${META}StatusDetails`,
  `${META}StatusCause`,
  `${META}DeleteOptions`,
  `${META}WatchEvent`,
  `${META}Patch`,
  `${META}APIResourceList`,
  `${META}APIResource`,
  `${META}APIVersions`,
  `${META}APIGroupList`,
  `${META}APIGroup`,
  `${META}GroupVersionForDiscovery`,
  'io.k8s.apimachinery.pkg.version.Info',
];

/** Discovery paths served whatever the resources are. */
const DISCOVERY_PATHS = ['/api/', '/apis/', '/version/'];

const source = resolve(pkgDir, process.argv[2] ?? '../../../shared/reference/openapi-v2.json');
const raw = readFileSync(source);
const doc = JSON.parse(raw.toString('utf8'));

/** Splits a resource path into its API prefix, resource and subresource. */
function parsePath(path) {
  const m = path.match(/^\/(api\/v1|apis\/[^/]+\/[^/]+)\/(.*)$/);
  if (!m) return undefined;
  let segs = m[2].split('/').filter(Boolean);
  if (segs[0] === 'watch') segs = segs.slice(1);
  if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
  if (segs.length === 0) return undefined;
  return { prefix: m[1], resource: segs[0], subresource: segs[2] };
}

function prefixOf(r) {
  return r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`;
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
for (const [p, item] of Object.entries(doc.paths)) {
  const parsed = parsePath(p);
  const keep =
    DISCOVERY_PATHS.includes(p) ||
    RESOURCES.some((r) => `/${prefixOf(r)}/` === p || `/apis/${r.group}/` === p) ||
    (parsed && RESOURCES.some((r) => prefixOf(r) === parsed.prefix && r.resource === parsed.resource));
  if (keep) paths[p] = item;
}

const parameters = {};
for (const ref of collectRefs(paths, new Set())) {
  const name = ref.startsWith('#/parameters/') ? ref.slice('#/parameters/'.length) : undefined;
  if (name) parameters[name] = doc.parameters[name];
}

// Transitive closure of definitions, seeded by the kinds, their lists, the extras and the paths.
const wanted = new Set(EXTRA_DEFINITIONS);
for (const [name, def] of Object.entries(doc.definitions)) {
  const gvks = def['x-kubernetes-group-version-kind'] ?? [];
  const served = gvks.some((g) =>
    RESOURCES.some((r) => r.group === g.group && r.version === g.version && (g.kind === r.kind || g.kind === `${r.kind}List`)),
  );
  if (served) wanted.add(name);
}
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
  source: {
    file: relative(pkgDir, source),
    sha256: createHash('sha256').update(raw).digest('hex'),
    info: doc.info,
  },
  resources: RESOURCES,
  swagger: doc.swagger,
  info: doc.info,
  definitions: sorted(definitions),
  parameters: sorted(parameters),
  paths: sorted(paths),
  security: doc.security,
  securityDefinitions: doc.securityDefinitions,
};

const outDir = join(pkgDir, 'src/generated');
mkdirSync(outDir, { recursive: true });
const body = `// Generated by scripts/extract.mjs from the Kubernetes OpenAPI v2 document; do not edit.
// Re-run \`node scripts/extract.mjs\` after changing the resource list there.
import type { ExtractedOpenAPI } from '../types.js';

export const extracted: ExtractedOpenAPI = ${JSON.stringify(extracted, null, 1)};
`;
writeFileSync(join(outDir, 'openapi.ts'), body);
console.log(
  `wrote src/generated/openapi.ts: ${Object.keys(definitions).length} definitions, ${Object.keys(paths).length} paths, ${Object.keys(parameters).length} parameters`,
);
