/**
 * CBOR serving (kube's CBORServingAndStorage feature gate, alpha and off by default in 1.35):
 * responses in `application/cbor`, watch streams in `application/cbor-seq`, request bodies in
 * `application/cbor` and server-side apply in `application/apply-patch+cbor`, for built-in
 * kinds and custom resources alike.
 *
 * As kube's gate, this one is process-wide (utilfeature.DefaultFeatureGate): the server sets
 * it at start from --feature-gates.
 *
 * Objects are held in their JSON form; where a built-in kind's Go type has a []byte or a
 * float64 (Secret.data, a CRD's schema bounds…), the encoding follows a plan compiled from
 * the kind's OpenAPI definition, found from the value's own apiVersion and kind (a list by its
 * list kind, a Table by its rows' objects). Custom resources are unstructured in kube and
 * need none.
 */
import {
  CBORDecodeError, CBORPlanCompiler, decodeCBOR, encodeCBOR, encodeCBORWatchEvent, interpretCBORTypeMeta, newBadRequest,
  type CBORPlan,
} from '@windlass/machinery';
import { loadedSchemas, loadSchemas, type Schemas } from '@windlass/schemas';

export const cborMediaType = 'application/cbor';
export const cborSeqMediaType = 'application/cbor-seq';
export const applyCBORPatchType = 'application/apply-patch+cbor';

let enabled = false;

/** Whether CBORServingAndStorage is on. */
export function cborEnabled(): boolean {
  return enabled;
}

/** Sets the gate (negotiation.ts's setCBORServingAndStorage adds the media types); loads the schemas plans come from. */
export function setCBOREnabled(on: boolean): void {
  enabled = on;
  if (on) void loadSchemas();
}

/**
 * Resolves once the schemas plans are compiled from are loaded: at once nearly always (they
 * load when the gate is set), after the import in the first moments of a server's life.
 */
export function cborReady(): Promise<void> | undefined {
  if (loadedSchemas()) return undefined;
  return loadSchemas().then(() => undefined);
}

interface Plans {
  compiler: CBORPlanCompiler;
  byKind: Map<string, CBORPlan | undefined>;
}

const plansBySchemas = new WeakMap<Schemas, Plans>();

function plans(schemas: Schemas): Plans {
  let p = plansBySchemas.get(schemas);
  if (!p) {
    p = { compiler: new CBORPlanCompiler((name) => schemas.getDefinition(name)), byKind: new Map() };
    plansBySchemas.set(schemas, p);
  }
  return p;
}

/** The plan of a built-in kind by apiVersion and kind; undefined for custom resources and kinds without []byte or float64. */
function kindPlan(apiVersion: unknown, kind: unknown): CBORPlan | undefined {
  const schemas = loadedSchemas();
  if (!schemas || typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const p = plans(schemas);
  const key = `${apiVersion}/${kind}`;
  if (p.byKind.has(key)) return p.byKind.get(key);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const name = schemas.definitionNameFor({ group, version, kind });
  const plan = name === undefined ? undefined : p.compiler.definition(name);
  p.byKind.set(key, plan);
  return plan;
}

/** The plan of what a response holds: an object, a list, a Table (by its rows' objects), a Status. */
export function planOf(value: unknown): CBORPlan | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as { apiVersion?: unknown; kind?: unknown; rows?: unknown };
  if (v.kind === 'Table' && v.apiVersion === 'meta.k8s.io/v1') {
    const rows = Array.isArray(v.rows) ? (v.rows as { object?: { apiVersion?: unknown; kind?: unknown } }[]) : [];
    const object = rows.find((r) => r?.object)?.object;
    const rowObject = object ? kindPlan(object.apiVersion, object.kind) : undefined;
    return rowObject && { fields: new Map([['rows', { items: { fields: new Map([['object', rowObject]]) } }]]) };
  }
  return kindPlan(v.apiVersion, v.kind);
}

/** A response body in CBOR. */
export function encodeCBORBody(value: unknown): Buffer {
  return encodeCBOR(value, { plan: planOf(value) });
}

/** One event of a cbor-seq watch stream. */
export function encodeCBOREvent(type: string, object: unknown): Buffer {
  return encodeCBORWatchEvent(type, encodeCBORBody(object));
}

/**
 * A create or update body in CBOR, into the JSON form, with kube's refusals: what its
 * serializer cannot read apiVersion and kind from is `the object provided is unrecognized
 * (must be of type ConfigMap): unable to determine group/version/kind: cbor: …`, the rest of
 * the decoding fails as `ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: …`.
 */
export function decodeCBORObjectBody(body: Buffer, def: { group: string; version: string; kind: string }, unrecognized: (err: string) => Error): unknown {
  let meta: { apiVersion: string; kind: string };
  try {
    meta = interpretCBORTypeMeta(body);
  } catch (err) {
    if (err instanceof CBORDecodeError) throw unrecognized(`unable to determine group/version/kind: ${err.message}`);
    throw err;
  }
  try {
    return decodeCBOR(body);
  } catch (err) {
    if (!(err instanceof CBORDecodeError)) throw err;
    // gvkWithDefaults: what the body leaves out comes from the URL.
    const slash = meta.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : meta.apiVersion.slice(0, slash);
    let version = meta.apiVersion.slice(slash + 1);
    if (version === '' && (group === '' || group === def.group)) version = def.version;
    throw newBadRequest(`${meta.kind || def.kind} in version "${version}" cannot be handled as a ${def.kind}: ${err.message}`);
  }
}

/**
 * A server-side apply body in CBOR (kube decodes it with cbor.Unmarshal into a
 * map[string]interface{}): the applied object, or 400 `error decoding YAML: cbor: …`, kube's
 * message for either encoding.
 */
export function decodeCBORApplyBody(body: Buffer): Record<string, unknown> {
  let v: unknown;
  try {
    v = decodeCBOR(body);
  } catch (err) {
    if (err instanceof CBORDecodeError) throw newBadRequest(`error decoding YAML: ${err.message}`);
    throw err;
  }
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    const type = Array.isArray(v) ? 'array' : typeof v === 'string' ? 'byte string' : typeof v === 'number' ? (Number.isInteger(v) ? (v < 0 ? 'negative integer' : 'positive integer') : 'primitives') : 'primitives';
    throw newBadRequest(`error decoding YAML: cbor: cannot unmarshal ${type} into Go value of type map[string]interface {}`);
  }
  return v as Record<string, unknown>;
}
