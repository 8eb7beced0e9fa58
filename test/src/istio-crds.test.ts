/**
 * Istio's CRDs against istio/api's own validation cases (test/crd-validation/istio-api,
 * provenance in test/crd-validation/README.md): its tests/validation_test.go validates every
 * object of tests/testdata with apiextensions-apiserver's validators and expects either no error or
 * one containing the object's `_err`. Here each object goes to Windlass with kubectl (so Go's YAML
 * reads it, as in the upstream test) as a server-side dry-run create with strict field validation
 * (the upstream validator refuses unknown fields).
 *
 * Where the upstream validator and a server differ, the test expects what kube-apiserver answers:
 * - it runs apiextensions-apiserver from before 1.34, whose failed CEL rules print the schema's
 *   type as the value (`Invalid value: "object": …`), where 1.35 prints the value itself and
 *   nothing for objects and arrays;
 * - it validates objects as written, where a server first drops nulls of fields that are neither
 *   nullable nor defaulted (`spec: null` is then a missing `spec`: `Required value`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlAsync, type RunningServer, useWindlass } from './harness.js';
import { kubectlOk, parallel, waitEstablished } from './realkubectl.js';

const yaml = createRequire(import.meta.url)('js-yaml') as { load(s: string): any; loadAll(s: string): any[] };
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'crd-validation', 'istio-api');

/** A case's expected error as kube-apiserver 1.35 words it, where it differs from istio's validator's. */
const asKube135: Record<string, string> = {
  'spec.configPatches[0].match: Invalid value: "object": only support waypointMatch when context is WAYPOINT':
    'spec.configPatches[0].match: Invalid value: only support waypointMatch when context is WAYPOINT',
  'spec.configPatches[0].match.waypoint.portNumber: Invalid value: "integer": port must be between 1-65535':
    'spec.configPatches[0].match.waypoint.portNumber: Invalid value: 65536: port must be between 1-65535',
  'spec in body must be of type object: "null"': 'spec: Required value',
  'spec.url in body must be of type string: "null"': 'spec.url: Required value',
};

interface Case {
  file: string;
  name: string;
  /** The document as written, its `_err` line left out. */
  text: string;
  want?: string;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const file of readdirSync(join(dir, 'testdata')).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of readFileSync(join(dir, 'testdata', file), 'utf8').split(/^---\s*$/m)) {
      if (!doc.trim()) continue;
      const parsed = yaml.load(doc);
      const want = parsed._err === undefined ? undefined : String(parsed._err);
      out.push({ file, name: parsed.metadata.name, text: doc.replace(/^_err:.*$/m, ''), want: want && (asKube135[want] ?? want) });
    }
  }
  return out;
}

const server = useWindlass();
let s: RunningServer;

beforeAll(() => {
  s = server();
  const crds = readFileSync(join(dir, 'customresourcedefinitions.gen.yaml'), 'utf8');
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], crds);
  expect(waitEstablished(s.kubeconfig, yaml.loadAll(crds).filter(Boolean))).toEqual([]);
}, 60000);

test('every istio/api validation case is accepted or refused as the project expects', async () => {
  const all = cases();
  expect(all.length).toBe(111);
  expect(all.filter((c) => c.want).length).toBe(76);
  const results = await parallel(all, (c) => kubectlAsync(s.kubeconfig, ['create', '-n', 'default', '--dry-run=server', '--validate=strict', '-f', '-'], c.text));
  const wrong: string[] = [];
  all.forEach((c, i) => {
    const r = results[i];
    const ok = c.want === undefined ? r.code === 0 && r.stderr === '' : r.code !== 0 && r.stderr.includes(c.want);
    if (!ok) wrong.push(`${c.file} ${c.name}: exit ${r.code} ${r.stderr.trim()}\n  want: ${c.want ?? 'created'}`);
  });
  expect(wrong).toEqual([]);
}, 120000);
