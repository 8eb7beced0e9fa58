#!/usr/bin/env node
// Derives the table of built-in resources from Kubernetes' OpenAPI v2 document: every
// resource path's group, version, kind, scope, verbs (the operations' x-kubernetes-action)
// and subresources, plus the facts OpenAPI does not carry (short names, categories, storage
// key layout, storage versions, which versions are served by default) from
// scripts/resources-facts.mjs. Written as src/generated/resources.ts; run by hand after
// changing either input, and commit the output.
//
// Usage: node scripts/resources.mjs [path/to/openapi-v2.json]
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATEGORIES, COHABITING, GATED_OFF, GROUP_ORDER, KEY_PREFIXES, SHORT_NAMES, STORAGE_VERSIONS } from './resources-facts.mjs';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = resolve(pkgDir, process.argv[2] ?? '../../../shared/reference/openapi-v2.json');
const raw = readFileSync(source);
const doc = JSON.parse(raw.toString('utf8'));

/** An operation's x-kubernetes-action as a discovery verb (kube's toDiscoveryKubeVerb). */
const actionVerb = { get: 'get', list: 'list', watch: 'watch', watchlist: 'watch', post: 'create', put: 'update', patch: 'patch', delete: 'delete', deletecollection: 'deletecollection' };
/** A connect operation (proxy, exec, attach, portforward) is listed by its HTTP method; HEAD and OPTIONS are not. */
const connectVerb = { get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' };

/** kube's version priority: GA before beta before alpha, higher numbers first (version.CompareKubeAwareVersionStrings). */
function versionRank(v) {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [0, 0, 0];
  return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
}
function compareVersions(a, b) {
  const ra = versionRank(a), rb = versionRank(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return 0;
}
const isGA = (v) => versionRank(v)[0] === 3;

/** kube's discovery.StorageVersionHash: sha256 of "<group>/<version>/<kind>", first 8 bytes, base64. */
function storageVersionHash(group, version, kind) {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const resources = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(path);
  if (!m) continue;
  const group = m[2] ?? '';
  const version = m[1] ?? m[3];
  let segs = m[4].split('/').filter(Boolean);
  if (segs[0] === 'watch') segs = segs.slice(1);
  let namespaced = false;
  if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) {
    segs = segs.slice(2);
    namespaced = true;
  }
  const [resource, , sub] = segs;
  const key = `${group}/${version}/${resource}`;
  let r = resources.get(key);
  if (!r) resources.set(key, (r = { group, version, resource, namespaced: false, verbs: new Set(), kind: undefined, subresources: new Map() }));
  r.namespaced ||= namespaced;
  for (const [method, op] of Object.entries(item)) {
    const action = op?.['x-kubernetes-action'];
    if (!action) continue;
    const gvk = op['x-kubernetes-group-version-kind'];
    if (sub === undefined) {
      r.verbs.add(actionVerb[action]);
      r.kind ??= gvk.kind;
      continue;
    }
    let s = r.subresources.get(sub);
    if (!s) r.subresources.set(sub, (s = { name: sub, gvk, verbs: new Set() }));
    const verb = action === 'connect' ? connectVerb[method] : actionVerb[action];
    if (verb) s.verbs.add(verb);
  }
}

/** Kinds that have a list kind in the document (review kinds have none). */
const listKinds = new Set();
for (const def of Object.values(doc.definitions)) {
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) listKinds.add(`${g.group}/${g.version}/${g.kind}`);
}

// Versions of each group/resource, to find the storage version (the group's preferred one).
const versionsOf = new Map();
for (const r of resources.values()) {
  const gr = `${r.group}/${r.resource}`;
  versionsOf.set(gr, [...(versionsOf.get(gr) ?? []), r.version].sort(compareVersions));
}

const out = [];
for (const r of resources.values()) {
  const gr = `${r.group}/${r.resource}`;
  if (!r.kind) throw new Error(`${r.group}/${r.version}/${r.resource}: no operation names its kind`);
  const storedAs = COHABITING[gr] ?? gr;
  const [storageGroup, storageResource] = storedAs.split('/');
  const storageVersion = STORAGE_VERSIONS[storedAs] ?? versionsOf.get(storedAs)[0];
  const storageKind = [...resources.values()].find((o) => o.group === storageGroup && o.resource === storageResource && o.version === storageVersion)?.kind;
  if (!storageKind) throw new Error(`${gr}: no kind for storage version ${storageGroup}/${storageVersion}`);
  const listKind = `${r.kind}List`;
  const e = {
    group: r.group, version: r.version, kind: r.kind,
    listKind: listKinds.has(`${r.group}/${r.version}/${listKind}`) ? listKind : '',
    resource: r.resource, singularName: r.kind.toLowerCase(), namespaced: r.namespaced,
    verbs: [...r.verbs].sort(),
  };
  if (SHORT_NAMES[gr]) e.shortNames = SHORT_NAMES[gr];
  if (CATEGORIES[gr]) e.categories = CATEGORIES[gr];
  e.subresources = [...r.subresources.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => {
    const sr = { name: s.name, kind: s.gvk.kind };
    // Discovery names the subresource's group and version only where they differ from the resource's.
    if (s.gvk.group !== r.group || s.gvk.version !== r.version) Object.assign(sr, { group: s.gvk.group, version: s.gvk.version });
    sr.verbs = [...s.verbs].sort();
    return sr;
  });
  // Only what is kept in storage can be watched; bindings, componentstatuses and the review
  // kinds are computed per request and, as in kube, carry no storage version.
  if (r.verbs.has('watch')) {
    e.keyPrefix = KEY_PREFIXES[storedAs] ?? storageResource;
    e.storageVersion = storageGroup ? `${storageGroup}/${storageVersion}` : storageVersion;
    e.storageVersionHash = storageVersionHash(storageGroup, storageVersion, storageKind);
  }
  e.servedByDefault = isGA(r.version) && !GATED_OFF.has(gr);
  out.push(e);
}

const groupRank = (g) => {
  const i = GROUP_ORDER.indexOf(g);
  if (i < 0) throw new Error(`group ${g} is missing from GROUP_ORDER in resources-facts.mjs`);
  return i;
};
out.sort((a, b) => groupRank(a.group) - groupRank(b.group) || compareVersions(a.version, b.version) || a.resource.localeCompare(b.resource));

const outDir = join(pkgDir, 'src/generated');
mkdirSync(outDir, { recursive: true });
const lines = out.map((e) => `  ${JSON.stringify(e)},`);
writeFileSync(join(outDir, 'resources.ts'), `// Code generated by scripts/resources.mjs from the Kubernetes OpenAPI v2 document
// (sha256 ${createHash('sha256').update(raw).digest('hex')}) and scripts/resources-facts.mjs. DO NOT EDIT.
import type { BuiltinResource } from '../resources.js';

/** Every resource of the document, in discovery order: groups by priority, versions preferred first. */
export const builtinResourceTable: readonly BuiltinResource[] = [
${lines.join('\n')}
];
`);
console.log(`wrote src/generated/resources.ts: ${out.length} resources (${out.filter((e) => e.servedByDefault).length} served by default)`);
