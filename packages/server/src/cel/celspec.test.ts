/**
 * The CEL specification's conformance suites (cel-spec v0.25.1, as @bufbuild/cel-spec carries
 * them) evaluated in kube's environment (./index.ts, with ./syntax.ts's rewriting): the sections
 * that need no protobuf message types. Each case's expected value or expected error must come
 * out, except the few listed below, each with its reason.
 */
import { isCelError, isCelList, isCelMap, isCelUint, plan } from '@bufbuild/cel';
import { getConformanceSuite, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { kubeCelEnv, parseKube } from './index.js';

const env = kubeCelEnv();

const sections = ['basic', 'comparisons', 'conversions', 'fp_math', 'integer_math', 'lists', 'logic', 'macros', 'macros2', 'optionals', 'string', 'string_ext', 'timestamps', 'fields', 'plumbing'];

/** Cases that differ, by suite path and name. */
const knownDifferences: Record<string, string> = {
  // cel-go's ident escape syntax (`a.\`b-c\``) is a parser option kube's environment does not enable.
  'fields/quoted_map_fields/field_access_slash': 'backquoted field names are not CEL as kube parses it',
  'fields/quoted_map_fields/field_access_dash': 'backquoted field names are not CEL as kube parses it',
  'fields/quoted_map_fields/field_access_dot': 'backquoted field names are not CEL as kube parses it',
  'fields/quoted_map_fields/has_field_slash': 'backquoted field names are not CEL as kube parses it',
  'fields/quoted_map_fields/has_field_dash': 'backquoted field names are not CEL as kube parses it',
  'fields/quoted_map_fields/has_field_dot': 'backquoted field names are not CEL as kube parses it',
  'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous': '@bufbuild/cel keeps the first of two keys equal as numbers ({0: 1, 0u: 2}) where cel-go refuses the literal',
  'optionals/optionals/map_optional_select_has': 'a select on an optional held in a map is not known to be optional without type checking',
};

type Plain = unknown;

/** cel.expr.Value as plain data. */
function fromValue(v: any): Plain {
  const k = v.kind;
  switch (k.case) {
    case 'int64Value': return k.value;
    case 'uint64Value': return { uint: k.value };
    case 'doubleValue': return Number.isNaN(k.value) ? 'NaN' : k.value;
    case 'stringValue': case 'boolValue': return k.value;
    case 'nullValue': return null;
    case 'bytesValue': return { bytes: Buffer.from(k.value).toString('hex') };
    case 'listValue': return k.value.values.map(fromValue);
    case 'mapValue': return { map: k.value.entries.map((e: any) => [fromValue(e.key), fromValue(e.value)]).sort(byKey) };
    default: return undefined;
  }
}

const byKey = (a: [Plain, Plain], b: [Plain, Plain]) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0);

/** A result as plain data, comparable with fromValue's. */
function toPlain(r: unknown): Plain {
  if (typeof r === 'number' && Number.isNaN(r)) return 'NaN';
  if (isCelUint(r)) return { uint: r.value };
  if (r instanceof Uint8Array) return { bytes: Buffer.from(r).toString('hex') };
  if (isCelList(r)) return [...r].map(toPlain);
  if (isCelMap(r)) return { map: [...r].map(([k, v]) => [toPlain(k), toPlain(v)] as [Plain, Plain]).sort(byKey) };
  return r;
}

interface Outcome { path: string; expr: string; got: Plain; want: Plain }

function run(suite: IncrementalTestSuite, path: string, out: { passed: number; failed: Outcome[]; known: string[] }): void {
  for (const t of suite.tests) {
    const o = t.original;
    const matcher = o.resultMatcher;
    // Cases with bound variables, a container, or an expected type or message value need a type checker or proto types.
    if (Object.keys(o.bindings ?? {}).length > 0 || o.container || o.checkOnly) continue;
    if (matcher.case !== 'value' && matcher.case !== 'evalError') continue;
    const want = matcher.case === 'value' ? fromValue(matcher.value) : 'error';
    if (want === undefined) continue;
    let r: unknown;
    try {
      r = plan(env, parseKube(o.expr))({});
    } catch (err) {
      r = err;
    }
    const failed = isCelError(r) || r instanceof Error;
    const got = failed ? 'error' : toPlain(r);
    const ok = JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) === JSON.stringify(want, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
    const id = `${path}/${t.name}`;
    if (ok) out.passed++;
    else if (knownDifferences[id]) out.known.push(id);
    else out.failed.push({ path: id, expr: o.expr, got: failed ? `error: ${(r as Error).message}` : got, want });
  }
  for (const s of suite.suites) run(s, `${path}/${s.name}`, out);
}

test.each(sections)('cel-spec conformance: %s', (name) => {
  const suite = getConformanceSuite().suites.find((s) => s.name === name)!;
  expect(suite).toBeDefined();
  const out = { passed: 0, failed: [] as Outcome[], known: [] as string[] };
  run(suite, name, out);
  // Every difference listed for this section still differs (one that no longer does is to be taken off the list).
  expect(out.known.sort()).toEqual(Object.keys(knownDifferences).filter((k) => k.startsWith(`${name}/`)).sort());
  expect(out.failed.map((f) => ({ ...f, got: JSON.stringify(f.got, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)), want: JSON.stringify(f.want, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) }))).toEqual([]);
  expect(out.passed).toBeGreaterThan(0);
});
