/**
 * resource.Quantity as kube's validation sees it, over @windlass/machinery's port of
 * ParseQuantity (the decoder's too): a value that does not parse is undefined here, since
 * malformed strings are the decoder's to refuse (400). Adds what only messages need: the Go
 * `%#v` rendering field.Invalid prints for a Quantity value (LimitRange messages).
 */
import { canonicalQuantity as canonical, parseQuantity as parseKubeQuantity, type ParsedQuantity } from '@windlass/machinery';

export { compareQuantities, isIntegral, quantitySign, scaledValue, type QuantityFormat } from '@windlass/machinery';

export interface Quantity extends ParsedQuantity {
  /** How Go holds it: the int64 fast path (value, scale), or an inf.Dec (sums and products computed here are). */
  internal: { kind: 'int64'; value: bigint; scale: number } | { kind: 'dec' };
  /** The cached string Go keeps when the input already was canonical, else ''. */
  cached: string;
}

/** ParseQuantity of a value as stored (surrounding spaces ignored). Undefined for what kube refuses to decode. */
export function parseQuantity(input: string): Quantity | undefined {
  const q = parseKubeQuantity(input.trim());
  if (typeof q === 'string') return undefined;
  const internal: Quantity['internal'] = q.infDec ? { kind: 'dec' } : { kind: 'int64', value: q.mantissa, scale: q.exponent };
  return { mantissa: q.mantissa, exponent: q.exponent, format: q.format, internal, cached: q.cached ?? '' };
}

/** Quantity.String(): kube's canonical form (`1000m` → `1`, `1024Mi` → `1Gi`, `1.5Gi` → `1536Mi`). */
export const canonicalQuantity = (q: Quantity): string => canonical(q);

/** Canonical form of a quantity string; the string itself when it does not parse. */
export function canonicalQuantityString(s: string): string {
  const q = parseQuantity(s);
  return q ? canonicalQuantity(q) : s;
}

/**
 * Go's `%#v` of a resource.Quantity value, as field.Invalid prints one (its String method
 * has a pointer receiver, so a value is printed field by field).
 */
export function goQuantityRepr(q: Quantity): string {
  const i = q.internal.kind === 'int64' ? `resource.int64Amount{value:${q.internal.value}, scale:${q.internal.scale}}` : 'resource.int64Amount{value:0, scale:0}';
  const d = q.internal.kind === 'dec' ? 'resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}' : 'resource.infDecAmount{Dec:(*inf.Dec)(nil)}';
  return `resource.Quantity{i:${i}, d:${d}, s:${JSON.stringify(q.cached)}, Format:${JSON.stringify(q.format)}}`;
}

/** Quantities of a ResourceList object that parse, by resource name. */
export function quantityEntries(list: unknown): Array<[string, Quantity]> {
  if (!list || typeof list !== 'object' || Array.isArray(list)) return [];
  const out: Array<[string, Quantity]> = [];
  for (const [k, v] of Object.entries(list as Record<string, unknown>)) {
    const q = typeof v === 'string' ? parseQuantity(v) : typeof v === 'number' ? parseQuantity(String(v)) : undefined;
    if (q) out.push([k, q]);
  }
  return out;
}
