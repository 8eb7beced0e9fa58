type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * apimachinery's semantic DeepEqual over decoded JSON: a nil map or slice equals an empty one,
 * and values Go's encoder writes for zero structs (`{}`, `creationTimestamp: null`) equal their
 * absence, so a body before and after the zero-value fill compares equal.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => canonical(x) ?? null);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) {
      const c = canonical(v[k]);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v === null ? undefined : v;
}
