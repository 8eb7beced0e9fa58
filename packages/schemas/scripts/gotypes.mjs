#!/usr/bin/env node
// Derives, from the Go types of k8s.io/api and k8s.io/apimachinery, how Go's encoding/json
// writes each built-in struct: which fields it always writes (non-pointer structs, fields
// without omitempty), which it leaves out when empty (omitempty), and the struct types of
// nested fields. kube-apiserver stores and answers what its Go structs serialize to, so
// Windlass normalizes every built-in object the same way (src/gofill.ts). Written as
// src/generated/gotypes.ts; run by hand after a Kubernetes version bump and commit the output.
//
// Usage: node scripts/gotypes.mjs <k8s.io/api git dir> <k8s.io/apimachinery git dir> [tag]
//        [<k8s.io/kube-aggregator git dir> <k8s.io/apiextensions-apiserver git dir>]
//   e.g. node scripts/gotypes.mjs /work/.mirror/kubernetes+api/repo /work/.mirror/kubernetes+apimachinery/repo v0.35.7 \
//          /work/.mirror/kubernetes+kube-aggregator/repo /work/.mirror/kubernetes+apiextensions-apiserver/repo
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResourceTable } from '../dist/generated/resources.js';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [apiRepo, machineryRepo, tag = 'v0.35.7', aggregatorRepo, apiextensionsRepo] = process.argv.slice(2);
if (!apiRepo || !machineryRepo) {
  console.error('usage: gotypes.mjs <k8s.io/api git dir> <k8s.io/apimachinery git dir> [tag]');
  process.exit(2);
}

const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

/** Go import path → OpenAPI definition prefix. */
function defPrefix(importPath) {
  if (importPath.startsWith('k8s.io/api/')) return `io.k8s.api.${importPath.slice('k8s.io/api/'.length).replaceAll('/', '.')}`;
  if (importPath.startsWith('k8s.io/apimachinery/')) return `io.k8s.apimachinery.${importPath.slice('k8s.io/apimachinery/'.length).replaceAll('/', '.')}`;
  for (const repo of ['kube-aggregator', 'apiextensions-apiserver']) {
    if (importPath.startsWith(`k8s.io/${repo}/`)) return `io.k8s.${repo}.${importPath.slice(`k8s.io/${repo}/`.length).replaceAll('/', '.')}`;
  }
  return null;
}

/** Types with their own MarshalJSON, and what their zero value writes. */
const customZero = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': null,
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': null,
  'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': '0s',
  'io.k8s.apimachinery.pkg.api.resource.Quantity': '0',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 0,
  'io.k8s.apimachinery.pkg.runtime.RawExtension': null,
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': null,
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': null,
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': null,
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': null,
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': null,
};

/** package def prefix → { structs: name → raw fields, aliases: name → type expression } */
const packages = new Map();

function parsePackage(repo, dir, importPath, ref = tag) {
  const prefix = defPrefix(importPath);
  const files = git(repo, 'ls-tree', '--name-only', `${ref}:${dir}`).split('\n')
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && !f.includes('generated.pb'));
  const pkg = { structs: new Map(), aliases: new Map() };
  packages.set(prefix, pkg);
  for (const f of files) {
    const src = git(repo, 'show', `${ref}:${dir}/${f}`);
    const imports = new Map();
    const importBlock = /^import \(([\s\S]*?)^\)/m.exec(src)?.[1] ?? (/^import ((?:\w+ )?"[^"]+")/m.exec(src)?.[1] ?? '');
    for (const m of importBlock.matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"/gm)) {
      const alias = m[1] ?? m[2].slice(m[2].lastIndexOf('/') + 1);
      imports.set(alias, m[2]);
    }
    const lines = src.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const st = /^type (\w+) struct \{\s*$/.exec(lines[i]);
      if (st) {
        const fields = [];
        let depth = 1;
        for (i++; i < lines.length && depth > 0; i++) {
          const line = lines[i];
          if (/^\}/.test(line)) { depth = 0; break; }
          const t = line.replace(/\/\/.*$/, '');
          const fm = /^\t(?:(\w+)\s+)?([\w.*[\]]+(?:\[[\w.*]+\][\w.*[\]]+)?)\s+`([^`]*)`/.exec(t);
          if (!fm) continue;
          const json = /json:"([^"]*)"/.exec(fm[3])?.[1];
          if (json === undefined) continue;
          const [jsonName, ...opts] = json.split(',');
          if (jsonName === '-') continue;
          fields.push({ goName: fm[1], type: fm[2], json: jsonName, omitempty: opts.includes('omitempty'), inline: opts.includes('inline') || (fm[1] === undefined && jsonName === ''), imports });
        }
        pkg.structs.set(st[1], fields);
        continue;
      }
      const al = /^type (\w+) ([\w.*[\]]+)\s*(?:\/\/.*)?$/.exec(lines[i]);
      if (al && al[2] !== 'struct' && al[2] !== 'interface') pkg.aliases.set(al[1], { type: al[2], imports });
    }
  }
}

const apiDirs = git(apiRepo, 'ls-tree', '-r', '--name-only', tag).split('\n').filter((f) => f.endsWith('/types.go')).map((f) => dirname(f));
for (const dir of apiDirs) parsePackage(apiRepo, dir, `k8s.io/api/${dir}`);
for (const dir of ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/api/resource', 'pkg/util/intstr', 'pkg/types']) parsePackage(machineryRepo, dir, `k8s.io/apimachinery/${dir}`);
/** The newest tag of the same minor release (kube-aggregator's patch tags can lag behind). */
const sameMinor = (repo) => git(repo, 'tag', '--list', `${tag.replace(/\.\d+$/, '')}.*`).split('\n').filter(Boolean).sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2])).pop() ?? tag;
if (aggregatorRepo) parsePackage(aggregatorRepo, 'pkg/apis/apiregistration/v1', 'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1', sameMinor(aggregatorRepo));
if (apiextensionsRepo) parsePackage(apiextensionsRepo, 'pkg/apis/apiextensions/v1', 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1', sameMinor(apiextensionsRepo));

const scalarZero = (goType) => {
  if (goType === 'string') return '';
  if (goType === 'bool') return false;
  if (/^u?int(8|16|32|64)?$|^float(32|64)$|^byte$|^rune$/.test(goType)) return 0;
  return undefined;
};

/**
 * A type expression in a package, resolved: { k: 'struct'|'custom'|'scalar'|'slice'|'map'|'ptr'|'any', def?, zero?, elem? }.
 */
function resolveType(expr, prefix, imports, seen = new Set()) {
  if (expr.startsWith('*')) return { k: 'ptr', elem: resolveType(expr.slice(1), prefix, imports, seen) };
  if (expr.startsWith('[]')) return { k: 'slice', elem: resolveType(expr.slice(2), prefix, imports, seen) };
  const mm = /^map\[[^\]]+\](.+)$/.exec(expr);
  if (mm) return { k: 'map', elem: resolveType(mm[1], prefix, imports, seen) };
  let pkgPrefix = prefix;
  let name = expr;
  const dot = expr.indexOf('.');
  if (dot > 0) {
    const importPath = imports.get(expr.slice(0, dot));
    pkgPrefix = importPath ? defPrefix(importPath) : null;
    name = expr.slice(dot + 1);
  } else {
    const zero = scalarZero(expr);
    if (zero !== undefined) return { k: 'scalar', zero };
    if (expr === 'interface{}' || expr === 'any') return { k: 'any' };
  }
  if (!pkgPrefix) return { k: 'any' };
  const def = `${pkgPrefix}.${name}`;
  if (def in customZero) return { k: 'custom', def, zero: customZero[def] };
  const pkg = packages.get(pkgPrefix);
  if (pkg?.structs.has(name)) return { k: 'struct', def };
  const alias = pkg?.aliases.get(name);
  if (alias && !seen.has(def)) return resolveType(alias.type, pkgPrefix, alias.imports, new Set([...seen, def]));
  return { k: 'any' };
}

/** The fields of a struct as JSON sees them, inline (embedded) structs flattened. */
function jsonFields(def) {
  const p = def.lastIndexOf('.');
  const prefix = def.slice(0, p);
  const pkg = packages.get(prefix);
  const raw = pkg?.structs.get(def.slice(p + 1)) ?? [];
  const out = [];
  for (const f of raw) {
    const t = resolveType(f.type, prefix, f.imports);
    if (f.inline) {
      if (t.k === 'struct') out.push(...jsonFields(t.def));
      continue;
    }
    out.push({ json: f.json, omitempty: f.omitempty, t });
  }
  return out;
}

// Field codes, compact: [json, code, def?] where code's letter is the shape —
//   S struct (always written), P pointer to struct, A slice of structs, M map of structs,
//   C custom-marshalled value (always written), v scalar, p pointer to anything else,
//   a slice of anything else, m map of anything else —
// and a trailing '?' marks omitempty. Scalars carry their zero value as a 4th element when
// always written.
const out = {};
const queue = [];
const enqueue = (def) => {
  if (!(def in out) && !queue.includes(def)) queue.push(def);
};
for (const r of builtinResourceTable) {
  if (!r.servedByDefault) continue;
  const segs = r.group === '' ? ['core'] : [r.group.replace(/\.k8s\.io$/, '').replace(/\.authorization$/, '').replace(/^apiserver\./, '')];
  const candidates = [
    `io.k8s.api.${segs[0]}.${r.version}.${r.kind}`,
    `io.k8s.api.${r.group.split('.')[0]}.${r.version}.${r.kind}`,
    `io.k8s.kube-aggregator.pkg.apis.${r.group.split('.')[0]}.${r.version}.${r.kind}`,
    `io.k8s.apiextensions-apiserver.pkg.apis.${r.group.split('.')[0]}.${r.version}.${r.kind}`,
  ];
  const def = candidates.find((d) => packages.get(d.slice(0, d.lastIndexOf('.')))?.structs.has(r.kind));
  if (def) enqueue(def);
  else console.error(`no Go type for ${r.group}/${r.version} ${r.kind}`);
}
enqueue('io.k8s.api.autoscaling.v1.Scale');
while (queue.length) {
  const def = queue.shift();
  const fields = [];
  for (const f of jsonFields(def)) {
    const t = f.t;
    const o = f.omitempty ? '?' : '';
    if (t.k === 'struct') { fields.push([f.json, 'S' + o, t.def]); enqueue(t.def); }
    else if (t.k === 'custom') fields.push([f.json, 'C' + o, t.def, t.zero]);
    else if (t.k === 'scalar') fields.push(f.omitempty ? [f.json, 'v?'] : [f.json, 'v', '', t.zero]);
    else if (t.k === 'ptr' && t.elem.k === 'struct') { fields.push([f.json, 'P' + o, t.elem.def]); enqueue(t.elem.def); }
    else if (t.k === 'ptr') fields.push([f.json, 'p' + o]);
    else if (t.k === 'slice' && t.elem.k === 'struct') { fields.push([f.json, 'A' + o, t.elem.def]); enqueue(t.elem.def); }
    else if (t.k === 'slice') fields.push([f.json, 'a' + o]);
    else if (t.k === 'map' && t.elem.k === 'struct') { fields.push([f.json, 'M' + o, t.elem.def]); enqueue(t.elem.def); }
    else if (t.k === 'map') fields.push([f.json, 'm' + o]);
    else fields.push([f.json, 'p' + o]);
  }
  out[def] = fields;
}

const header = `// Generated by scripts/gotypes.mjs from k8s.io/api and k8s.io/apimachinery ${tag}; do not edit.\n// How Go's encoding/json writes each built-in struct (see scripts/gotypes.mjs for the field codes).\n`;
const body = `export const goStructs: Record<string, Array<[string, string, string?, unknown?]>> = ${JSON.stringify(out)};\n`;
writeFileSync(resolve(pkgDir, 'src/generated/gotypes.ts'), header + body);
console.log(`${Object.keys(out).length} structs`);
