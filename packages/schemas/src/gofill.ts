/**
 * Objects as Go's encoding/json writes kube's structs: kube-apiserver decodes every body into
 * its Go types and stores and answers what they serialize to. So a field whose type is a
 * non-pointer struct is always written (`resources: {}`, a template's `creationTimestamp:
 * null`), a field without `omitempty` is written with its zero value (a PDB status's
 * `currentHealthy: 0`), and an `omitempty` field holding its type's empty value (`""`, `0`,
 * `false`, `[]`, `{}` for maps, null) is left out. kube stores objects as protobuf, where an
 * empty list or map is read back as nil, so one without omitempty comes back `null`. The facts come from the Go types
 * (generated/gotypes.ts); each struct is compiled once into a closure.
 */
import type { Schemas } from './definitions.js';
import type { GroupVersionKind, JsonObject } from './types.js';

/** Normalizes an object of one kind in place. */
export type GoEncoder = (obj: JsonObject) => void;

type GoField = [string, string, string?, unknown?];
type StructTable = Record<string, GoField[]>;

let table: StructTable | undefined;
let loading: Promise<StructTable> | undefined;

/** The Go type facts (~90 KB), imported at first use as the OpenAPI data is. */
export function loadGoTypes(): Promise<StructTable> {
  loading ??= import('./generated/gotypes.js').then((m) => (table = m.goStructs));
  return loading;
}

type Fill = (obj: JsonObject) => void;

const isEmptyScalar = (v: unknown) => v === '' || v === 0 || v === false || v === null;

/**
 * `prune` compiles what decoding into the Go types does and nothing more: an `omitempty` field
 * holding its zero value is the same Go value as an absent one, so it is dropped; nothing is
 * filled in (that is the encoder's half).
 */
class Compiler {
  private readonly fills = new Map<string, Fill>();

  constructor(private readonly structs: StructTable, private readonly prune = false, private readonly keepEmpty = false) {}

  struct(def: string): Fill {
    const done = this.fills.get(def);
    if (done) return done;
    const fields = this.structs[def];
    if (!fields) {
      const none: Fill = () => {};
      this.fills.set(def, none);
      return none;
    }
    // Registered before its fields are compiled, so recursive types (JSONSchemaProps) terminate.
    let steps: Fill[] = [];
    const self: Fill = (obj) => {
      for (let i = 0; i < steps.length; i++) steps[i](obj);
    };
    this.fills.set(def, self);
    steps = fields.map((f) => this.field(f));
    return self;
  }

  private field(f: GoField): Fill {
    return this.prune ? this.pruneField(f) : this.fillField(f);
  }

  private pruneField([name, code, ref]: GoField): Fill {
    const omitempty = code.endsWith('?');
    const nested = 'SPAM'.includes(code[0]) ? this.struct(ref!) : undefined;
    return (obj) => {
      const v = obj[name];
      if (v === undefined) return;
      // Structs ('S') and custom types ('C', a Time's null) are written back whatever they hold.
      if (omitempty && code[0] !== 'S' && code[0] !== 'C' && (isEmptyScalar(v) ? code[0] === 'v' || v === null : isEmptyContainer(v) && 'AMam'.includes(code[0]))) {
        delete obj[name];
        return;
      }
      if (!nested || v === null || typeof v !== 'object') return;
      if (code[0] === 'S' || code[0] === 'P') {
        if (!Array.isArray(v)) nested(v as JsonObject);
        return;
      }
      for (const item of Array.isArray(v) ? v : Object.values(v as JsonObject)) {
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) nested(item as JsonObject);
      }
    };
  }

  private fillField([name, code, ref, zero]: GoField): Fill {
    const omitempty = code.endsWith('?');
    switch (code[0]) {
      case 'S': {
        const fill = this.struct(ref!);
        return (obj) => {
          let v = obj[name];
          if (v === undefined || v === null) obj[name] = v = {};
          if (typeof v === 'object' && !Array.isArray(v)) fill(v as JsonObject);
        };
      }
      case 'C':
        return (obj) => {
          if (obj[name] === undefined || obj[name] === null) obj[name] = zero ?? null;
        };
      case 'P': {
        const fill = this.struct(ref!);
        return (obj) => {
          const v = obj[name];
          if (v === undefined) {
            if (!omitempty) obj[name] = null;
          } else if (v === null) {
            if (omitempty) delete obj[name];
          } else if (typeof v === 'object' && !Array.isArray(v)) fill(v as JsonObject);
        };
      }
      case 'A': {
        const fill = this.struct(ref!);
        return (obj) => {
          const v = obj[name];
          if (Array.isArray(v)) {
            if (v.length === 0) emptyContainer(obj, name, omitempty, this.keepEmpty);
            else for (const item of v) if (item !== null && typeof item === 'object' && !Array.isArray(item)) fill(item as JsonObject);
          } else absentContainer(obj, name, v, omitempty);
        };
      }
      case 'M': {
        const fill = this.struct(ref!);
        return (obj) => {
          const v = obj[name];
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
            const values = Object.values(v as JsonObject);
            if (values.length === 0) emptyContainer(obj, name, omitempty, this.keepEmpty);
            else for (const item of values) if (item !== null && typeof item === 'object' && !Array.isArray(item)) fill(item as JsonObject);
          } else absentContainer(obj, name, v, omitempty);
        };
      }
      case 'a':
        return (obj) => {
          const v = obj[name];
          if (Array.isArray(v)) {
            if (v.length === 0) emptyContainer(obj, name, omitempty, this.keepEmpty);
          } else absentContainer(obj, name, v, omitempty);
        };
      case 'm':
        return (obj) => {
          const v = obj[name];
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
            if (Object.keys(v).length === 0) emptyContainer(obj, name, omitempty, this.keepEmpty);
          } else absentContainer(obj, name, v, omitempty);
        };
      case 'v':
        return omitempty
          ? (obj) => {
              if (name in obj && isEmptyScalar(obj[name])) delete obj[name];
            }
          : (obj) => {
              if (obj[name] === undefined || obj[name] === null) obj[name] = zero;
            };
      default:
        // A pointer to a non-struct: only nil is left out.
        return (obj) => {
          const v = obj[name];
          if (v === undefined) {
            if (!omitempty) obj[name] = null;
          } else if (v === null && omitempty) delete obj[name];
        };
    }
  }
}

const isEmptyContainer = (v: unknown) => v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);

/**
 * An empty list or map: left out with omitempty, else null (what the protobuf round trip gives
 * back), or kept empty when the struct was just decoded (`keepEmpty`: encoding/json writes an
 * empty non-nil slice as `[]`).
 */
function emptyContainer(obj: JsonObject, name: string, omitempty: boolean, keepEmpty: boolean): void {
  if (omitempty) delete obj[name];
  else if (!keepEmpty) obj[name] = null;
}

/** A slice, map or pointer field that holds nothing: Go writes null unless omitempty. */
function absentContainer(obj: JsonObject, name: string, v: unknown, omitempty: boolean): void {
  if (v === undefined) {
    if (!omitempty) obj[name] = null;
  } else if (v === null && omitempty) delete obj[name];
}

const compilers = new WeakMap<StructTable, Compiler>();
const requestCompilers = new WeakMap<StructTable, Compiler>();
const encoders = new Map<string, GoEncoder | null>();
const pruners = new WeakMap<StructTable, Compiler>();
const decoders = new Map<string, GoEncoder | null>();

/**
 * The normalizer of a kind, or undefined while the Go type facts are not loaded yet (await
 * loadGoTypes() first), null for a kind with no Go type (custom resources).
 */
export function goEncoderFor(schemas: Schemas, gvk: GroupVersionKind): GoEncoder | null | undefined {
  return encoderFor(schemas, gvk, false);
}

/**
 * The same normalizer for a struct just decoded from a request, before any storage round
 * trip: an empty list or map the request held is written `[]` / `{}`, not null. kube's field
 * manager sees objects in this form.
 */
export function goRequestEncoderFor(schemas: Schemas, gvk: GroupVersionKind): GoEncoder | null | undefined {
  return encoderFor(schemas, gvk, true);
}

function encoderFor(schemas: Schemas, gvk: GroupVersionKind, keepEmpty: boolean): GoEncoder | null | undefined {
  if (!table) return undefined;
  const key = `${keepEmpty ? 'request:' : ''}${gvk.group}/${gvk.version}/${gvk.kind}`;
  let e = encoders.get(key);
  if (e === undefined) {
    const name = schemas.definitionNameFor(gvk);
    const compilerMap = keepEmpty ? requestCompilers : compilers;
    let compiler = compilerMap.get(table);
    if (!compiler) compilerMap.set(table, (compiler = new Compiler(table, false, keepEmpty)));
    e = name !== undefined && table[name] ? compiler.struct(name) : null;
    encoders.set(key, e);
  }
  return e;
}

/**
 * What decoding a body into the kind's Go type forgets: `omitempty` fields holding their zero
 * value (`readOnly: false`, `nodePort: 0`, `""`, empty lists and maps, null). kube defaults,
 * validates and compares (a Pod's immutable spec, a spec change bumping generation) only the
 * decoded struct, so a patch re-sending `readOnly: false` changes nothing there. Undefined while
 * the Go type facts are not loaded, null for a kind with no Go type.
 */
export function goDecoderFor(schemas: Schemas, gvk: GroupVersionKind): GoEncoder | null | undefined {
  if (!table) return undefined;
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let d = decoders.get(key);
  if (d === undefined) {
    const name = schemas.definitionNameFor(gvk);
    let compiler = pruners.get(table);
    if (!compiler) pruners.set(table, (compiler = new Compiler(table, true)));
    d = name !== undefined && table[name] ? compiler.struct(name) : null;
    decoders.set(key, d);
  }
  return d;
}
