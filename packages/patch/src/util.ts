/** Small JSON-value helpers shared by the patch implementations. */

export type JSONMap = Record<string, unknown>;

export const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep copy of a JSON value; patches must never alias or mutate the caller's objects. */
export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (isMap(v)) {
    const out: JSONMap = {};
    for (const k of Object.keys(v)) setKey(out, k, deepClone(v[k]));
    return out as T;
  }
  return v;
}

/** Assignment that also works for a key named `__proto__` (a legal JSON key). */
export function setKey(m: JSONMap, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
  else m[k] = v;
}

export const hasKey = (m: JSONMap, k: string): boolean => Object.prototype.hasOwnProperty.call(m, k);
