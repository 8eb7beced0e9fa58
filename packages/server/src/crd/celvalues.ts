/**
 * A custom resource's JSON as kube's CEL sees it under its structural schema
 * (k8s.io/apiserver pkg/cel/common/valuesunstructured.go and pkg/cel/escaping.go, 1.35):
 * integers are ints and `type: number` doubles; strings of format duration, date, date-time and
 * byte are durations, timestamps and bytes; an object with properties is reached by its escaped
 * property names (`__namespace__`, `a__dash__b`), names that cannot be escaped are not reachable;
 * a map (additionalProperties) keeps its keys.
 */
import { type CelInput } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { reflect } from '@bufbuild/protobuf/reflect';
import { DurationSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { structural } from '@windlass/schemas';

type Schema = structural.StructuralSchema;

/** CEL's reserved words: a property so named is reached as `__word__`. */
export const reserved: ReadonlySet<string> = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** kube's Escape: the CEL identifier a property name is reached by, or undefined when none. */
export function escapeProperty(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (reserved.has(name)) return `__${name}__`;
  if (/[^A-Za-z0-9_./-]/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (s) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[s]!);
}

const goUnits: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration, in nanoseconds (bigint), or undefined. */
function goDuration(s: string): bigint | undefined {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) return undefined;
  let total = 0;
  for (const [, num, unit] of m[2].matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(num) * goUnits[unit];
  return BigInt(Math.round(m[1] === '-' ? -total : total));
}

const strfmtUnits: Array<[RegExp, number]> = [
  [/^(ns|nanos?(econds?)?)$/, 1], [/^(us|µs|μs|micros?(econds?)?)$/, 1e3], [/^(ms|millis?(econds?)?)$/, 1e6],
  [/^(s|secs?|seconds?)$/, 1e9], [/^(m|mins?|minutes?)$/, 60e9], [/^(h|hrs?|hours?)$/, 3600e9],
  [/^(d|days?)$/, 86400e9], [/^(w|wks?|weeks?)$/, 7 * 86400e9],
];

/** go-openapi strfmt.ParseDuration: Go's form, else `<n> <unit>` with day and week units. */
export function parseDuration(s: string): bigint | undefined {
  const go = goDuration(s);
  if (go !== undefined) return go;
  const m = /^(-?\s?\d+)\s*([A-Za-zµμ]+)$/.exec(s.trim());
  if (!m) return undefined;
  const unit = strfmtUnits.find(([re]) => re.test(m[2].toLowerCase()));
  return unit ? BigInt(parseInt(m[1].replace(/\s/g, ''), 10)) * BigInt(unit[1]) : undefined;
}

function duration(nanos: bigint): CelInput {
  const seconds = nanos / 1_000_000_000n;
  return reflect(DurationSchema, create(DurationSchema, { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) })) as unknown as CelInput;
}

function timestamp(ms: number, extraNanos = 0): CelInput {
  const seconds = BigInt(Math.floor(ms / 1000));
  return reflect(TimestampSchema, create(TimestampSchema, { seconds, nanos: (ms % 1000) * 1e6 + extraNanos })) as unknown as CelInput;
}

/** A string of the schema's format as kube types it; an error text when it does not parse. */
function formatted(v: string, format: string | undefined): CelInput | Error {
  switch (format) {
    case 'duration': {
      const d = parseDuration(v);
      return d === undefined ? new Error(`Invalid duration ${v}: time: invalid duration "${v}"`) : duration(d);
    }
    case 'date': {
      const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
      return Number.isNaN(t) ? new Error(`Invalid date formatted string ${v}`) : timestamp(t);
    }
    case 'date-time': {
      const t = Date.parse(v);
      const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
      return Number.isNaN(t) ? new Error(`Invalid date-time formatted string ${v}`) : timestamp(t, Number((frac.slice(3, 9) || '0').padEnd(6, '0')));
    }
    case 'byte':
      return /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? (Buffer.from(v, 'base64') as unknown as CelInput) : new Error(`Invalid byte formatted string ${v}`);
  }
  return v;
}

/**
 * A JSON value as CEL sees it under its schema. A string that its format refuses (which schema
 * validation reports first) stays a string.
 */
export function toCel(v: unknown, s: Schema | undefined): CelInput {
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items)) as CelInput;
  if (structural.isObject(v)) {
    const props = s?.properties;
    if (props && Object.keys(props).length > 0 || s?.['x-kubernetes-embedded-resource']) {
      const entries: Array<[string, CelInput]> = [];
      for (const [k, x] of Object.entries(v)) {
        const name = escapeProperty(k);
        if (name === undefined) continue;
        const value = toCel(x, props?.[k]);
        entries.push([name, value]);
        // kube (compatibility 1.31+) also reaches a field named by a reserved word unescaped: `self.namespace`.
        if (reserved.has(k)) entries.push([k, value]);
      }
      return new Map(entries) as CelInput;
    }
    const additional = structural.isObject(s?.additionalProperties) ? (s!.additionalProperties as Schema) : undefined;
    return new Map(Object.entries(v).map(([k, x]) => [k, toCel(x, additional)])) as CelInput;
  }
  if (typeof v === 'number' && Number.isInteger(v) && s?.type !== 'number') return BigInt(v);
  if (typeof v === 'string' && s?.type === 'string' && s.format) {
    const f = formatted(v, s.format);
    return f instanceof Error ? v : f;
  }
  return v as CelInput;
}
