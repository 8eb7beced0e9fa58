/**
 * YAML request bodies as kube reads them (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 scalars
 * (`y`, `on`, `no` are booleans; `0755` is octal; timestamps stay strings), a repeated key
 * keeps its last value, and yaml.v2's strict pass names each repetition by its line
 * (`line 7: key "a" already set in map`).
 */
import yaml from 'js-yaml';

const boolValues: Record<string, boolean> = {};
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) boolValues[w] = true;
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) boolValues[w] = false;
const nullValues = new Set(['', '~', 'null', 'Null', 'NULL']);
const specialFloats: Record<string, number> = {
  '.nan': NaN, '.NaN': NaN, '.NAN': NaN,
  '.inf': Infinity, '.Inf': Infinity, '.INF': Infinity, '+.inf': Infinity, '+.Inf': Infinity, '+.INF': Infinity,
  '-.inf': -Infinity, '-.Inf': -Infinity, '-.INF': -Infinity,
};
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const dotFloat = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

/** strconv.ParseInt(s, 0, 64)'s syntax: a sign, then 0x / 0o / 0b / leading-0 octal / decimal digits. */
function goParseInt(s: string, unsigned: boolean): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m || (unsigned && m[1] !== '')) return undefined;
  const body = m[2];
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (m[1] === '-') v = -v;
  if (unsigned) return v <= uint64Max ? v : undefined;
  return v <= int64Max && v >= -int64Max - 1n ? v : undefined;
}

/** go-yaml v2's resolve() of a plain scalar to a number, or undefined when it stays a string. */
function resolveNumber(s: string): number | undefined {
  const c = s[0];
  if (c === '.') {
    if (s in specialFloats) return specialFloats[s];
    return dotFloat.test(s) ? Number(s) : undefined;
  }
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9'))) return undefined;
  if (s in specialFloats) return specialFloats[s];
  const plain = s.replace(/_/g, '');
  const i = goParseInt(plain, false) ?? goParseInt(plain, true);
  if (i !== undefined) return Number(i);
  if (yamlStyleFloat.test(plain)) return Number(plain);
  return undefined;
}

const goYAMLNull = new yaml.Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (s: string) => nullValues.has(s),
  construct: () => null,
});
const goYAMLBool = new yaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (s: string) => s in boolValues,
  construct: (s: string) => boolValues[s],
});
const goYAMLNumber = new yaml.Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (s: string) => resolveNumber(s) !== undefined,
  construct: (s: string) => resolveNumber(s),
});

/** `<<` merge keys, which js-yaml recognizes by this tag. */
const goYAMLMerge = new yaml.Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (s: string | null) => s === '<<' || s === null,
});

/** YAML 1.1 as go-yaml v2 resolves plain scalars into interface{}; no timestamps or binary. */
export const goYAMLSchema = yaml.FAILSAFE_SCHEMA.extend({ implicit: [goYAMLNull, goYAMLBool, goYAMLNumber, goYAMLMerge] });

export class YAMLSyntaxError extends Error {}

/** Go's `%#v` of a key yaml.v2 decoded into interface{}. */
function goKeyRepr(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (key === null) return '<nil>';
  return String(key);
}

/** The scalar key starting at `pos`, as yaml.v2 decodes it. */
function keyAt(text: string, pos: number): unknown {
  const m = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\n]*?)[ \t]*:(?:[ \t\n]|$)/.exec(text.slice(pos));
  if (!m) return text.slice(pos, text.indexOf('\n', pos) === -1 ? undefined : text.indexOf('\n', pos));
  try {
    return yaml.load(m[1], { schema: goYAMLSchema });
  } catch {
    return m[1];
  }
}

const maxReportedDuplicates = 100;

export interface YAMLDocument {
  value: unknown;
  /** yaml.v2's strict errors, one per repeated key: `line 7: key "a" already set in map`. */
  duplicates: string[];
}

function loadFirst(text: string, json: boolean): unknown {
  let first: unknown = null;
  let seen = false;
  yaml.loadAll(text, (doc) => {
    if (!seen) first = doc;
    seen = true;
  }, { schema: goYAMLSchema, json });
  return first;
}

/**
 * Parses the first document of a YAML body. Throws YAMLSyntaxError with go-yaml's
 * `yaml: line N: …` form of the parser's complaint.
 */
export function parseYAMLBody(text: string): YAMLDocument {
  const duplicates: string[] = [];
  let probe = text;
  for (;;) {
    try {
      const value = loadFirst(probe, false);
      if (duplicates.length === 0) return { value, duplicates };
      break;
    } catch (err) {
      if (!(err instanceof yaml.YAMLException)) throw err;
      const mark = (err as yaml.YAMLException & { mark?: { line: number; position: number } }).mark;
      if (err.reason !== 'duplicated mapping key' || !mark) {
        if (duplicates.length > 0) break;
        throw new YAMLSyntaxError(`yaml: line ${(mark?.line ?? 0) + 1}: ${err.reason}`);
      }
      duplicates.push(`line ${mark.line + 1}: key ${goKeyRepr(keyAt(probe, mark.position))} already set in map`);
      if (duplicates.length >= maxReportedDuplicates) break;
      // Rename this occurrence so the next parse finds the following repetition; lines stay put.
      probe = `${probe.slice(0, mark.position)}windlass-duplicate-${duplicates.length}-${probe.slice(mark.position)}`;
    }
  }
  return { value: loadFirst(text, true), duplicates };
}
