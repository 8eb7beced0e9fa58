/**
 * The OpenAPI v2 document as kube-openapi serves it for
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`: the JSON document parsed
 * into gnostic's openapi_v2.Document and marshalled as protobuf. kubectl asks only for this form
 * when it validates a kind it cannot find in OpenAPI v3 (a `kind: List` file, RoleList, …); a
 * 406 there makes `kubectl apply` fail with "failed to download openapi".
 *
 * Field numbers are gnostic's (openapiv2/OpenAPIv2.proto). Like gnostic, maps are ordered
 * (name, value) lists in document order, `x-` keys become vendor extensions, and values of
 * any JSON type (defaults, examples, enum members, extensions) travel as YAML text in `Any.yaml`
 * (JSON is YAML, and that is what clients parse the text as).
 */
import protobuf from 'protobufjs';

type Json = unknown;
type Obj = Record<string, Json>;
type W = protobuf.Writer;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (w: W, field: number, v: Json) => {
  if (typeof v === 'string' && v !== '') w.uint32((field << 3) | 2).string(v);
};
const bool = (w: W, field: number, v: Json) => {
  if (v === true) w.uint32(field << 3).bool(true);
};
const int = (w: W, field: number, v: Json) => {
  if (typeof v === 'number' && v !== 0) w.uint32(field << 3).int64(v);
};
const dbl = (w: W, field: number, v: Json) => {
  if (typeof v === 'number' && v !== 0) w.uint32((field << 3) | 1).double(v);
};
const strs = (w: W, field: number, v: Json) => {
  if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') w.uint32((field << 3) | 2).string(s);
};
/** A nested message, written even when empty (message fields have presence). */
const msg = (w: W, field: number, encode: (w: W) => void) => {
  w.uint32((field << 3) | 2).fork();
  encode(w);
  w.ldelim();
};

/** gnostic's Any: the value as YAML text. */
const any = (w: W, field: number, v: Json) => msg(w, field, (a) => str(a, 2, `${JSON.stringify(v)}\n`));

/** `x-` keys as repeated NamedAny. */
function vendorExtensions(w: W, field: number, o: Obj): void {
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-')) msg(w, field, (n) => (str(n, 1, k), any(n, 2, v)));
  }
}

/** Repeated Named<T> (name = 1, value = 2) from a JSON object, in its key order. */
function named(w: W, field: number, o: Json, value: (w: W, v: Json) => void): void {
  if (!isObj(o)) return;
  for (const [k, v] of Object.entries(o)) msg(w, field, (n) => (str(n, 1, k), msg(n, 2, (m) => value(m, v))));
}

function schema(w: W, s: Json): void {
  if (!isObj(s)) return;
  str(w, 1, s.$ref);
  str(w, 2, s.format);
  str(w, 3, s.title);
  str(w, 4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  dbl(w, 6, s.multipleOf);
  dbl(w, 7, s.maximum);
  bool(w, 8, s.exclusiveMaximum);
  dbl(w, 9, s.minimum);
  bool(w, 10, s.exclusiveMinimum);
  int(w, 11, s.maxLength);
  int(w, 12, s.minLength);
  str(w, 13, s.pattern);
  int(w, 14, s.maxItems);
  int(w, 15, s.minItems);
  bool(w, 16, s.uniqueItems);
  int(w, 17, s.maxProperties);
  int(w, 18, s.minProperties);
  strs(w, 19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(w, 20, e);
  if (typeof s.additionalProperties === 'boolean') msg(w, 21, (a) => a.uint32(2 << 3).bool(s.additionalProperties as boolean));
  else if (isObj(s.additionalProperties)) msg(w, 21, (a) => msg(a, 1, (x) => schema(x, s.additionalProperties)));
  if (typeof s.type === 'string') msg(w, 22, (t) => str(t, 1, s.type));
  else if (Array.isArray(s.type)) msg(w, 22, (t) => strs(t, 1, s.type));
  if (isObj(s.items)) msg(w, 23, (i) => msg(i, 1, (x) => schema(x, s.items)));
  else if (Array.isArray(s.items)) msg(w, 23, (i) => (s.items as Json[]).forEach((it) => msg(i, 1, (x) => schema(x, it))));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) msg(w, 24, (x) => schema(x, a));
  if (isObj(s.properties)) msg(w, 25, (p) => named(p, 1, s.properties, schema));
  str(w, 26, s.discriminator);
  bool(w, 27, s.readOnly);
  if (isObj(s.externalDocs)) msg(w, 29, (d) => externalDocs(d, s.externalDocs as Obj));
  if (s.example !== undefined) any(w, 30, s.example);
  vendorExtensions(w, 31, s);
}

function externalDocs(w: W, d: Obj): void {
  str(w, 1, d.description);
  str(w, 2, d.url);
  vendorExtensions(w, 3, d);
}

/** PrimitivesItems: a non-body parameter's or header's `items`. */
function primitivesItems(w: W, p: Json): void {
  if (!isObj(p)) return;
  str(w, 1, p.type);
  str(w, 2, p.format);
  if (isObj(p.items)) msg(w, 3, (i) => primitivesItems(i, p.items));
  str(w, 4, p.collectionFormat);
  primitiveConstraints(w, p, 5);
  vendorExtensions(w, 18, p);
}

/** default … multipleOf, numbered from `first` (they follow each other in every message that has them). */
function primitiveConstraints(w: W, p: Obj, first: number): void {
  if (p.default !== undefined) any(w, first, p.default);
  dbl(w, first + 1, p.maximum);
  bool(w, first + 2, p.exclusiveMaximum);
  dbl(w, first + 3, p.minimum);
  bool(w, first + 4, p.exclusiveMinimum);
  int(w, first + 5, p.maxLength);
  int(w, first + 6, p.minLength);
  str(w, first + 7, p.pattern);
  int(w, first + 8, p.maxItems);
  int(w, first + 9, p.minItems);
  bool(w, first + 10, p.uniqueItems);
  if (Array.isArray(p.enum)) for (const e of p.enum) any(w, first + 11, e);
  dbl(w, first + 12, p.multipleOf);
}

function parameter(w: W, p: Json): void {
  if (!isObj(p)) return;
  if (p.in === 'body') {
    msg(w, 1, (b) => {
      str(b, 1, p.description);
      str(b, 2, p.name);
      str(b, 3, p.in);
      bool(b, 4, p.required);
      if (isObj(p.schema)) msg(b, 5, (x) => schema(x, p.schema));
      vendorExtensions(b, 6, p);
    });
    return;
  }
  // NonBodyParameter: header 1, formData 2, query 3, path 4. Query and formData have
  // allowEmptyValue at 5, which moves the rest of their fields one number up.
  const which = ({ header: 1, formData: 2, query: 3, path: 4 } as Record<string, number>)[String(p.in)];
  if (!which) return;
  const emptyValue = which === 2 || which === 3 ? 1 : 0;
  msg(w, 2, (nb) => msg(nb, which, (q) => {
    bool(q, 1, p.required);
    str(q, 2, p.in);
    str(q, 3, p.description);
    str(q, 4, p.name);
    if (emptyValue) bool(q, 5, p.allowEmptyValue);
    str(q, 5 + emptyValue, p.type);
    str(q, 6 + emptyValue, p.format);
    if (isObj(p.items)) msg(q, 7 + emptyValue, (i) => primitivesItems(i, p.items));
    str(q, 8 + emptyValue, p.collectionFormat);
    primitiveConstraints(q, p, 9 + emptyValue);
    vendorExtensions(q, 22 + emptyValue, p);
  }));
}

/** ParametersItem: a parameter, or a JsonReference to one. */
function parametersItem(w: W, p: Json): void {
  if (!isObj(p)) return;
  if (typeof p.$ref === 'string') msg(w, 2, (r) => (str(r, 1, p.$ref), str(r, 2, p.description)));
  else msg(w, 1, (x) => parameter(x, p));
}

function response(w: W, r: Obj): void {
  str(w, 1, r.description);
  if (isObj(r.schema)) {
    const s = r.schema;
    // SchemaItem: a file response is a FileSchema (2), anything else a Schema (1).
    if (s.type === 'file') msg(w, 2, (si) => msg(si, 2, (f) => (str(f, 1, s.format), str(f, 2, s.title), str(f, 3, s.description), str(f, 6, s.type))));
    else msg(w, 2, (si) => msg(si, 1, (x) => schema(x, s)));
  }
  if (isObj(r.headers)) msg(w, 3, (h) => named(h, 1, r.headers, (x, v) => {
    if (!isObj(v)) return;
    str(x, 1, v.type);
    str(x, 2, v.format);
    if (isObj(v.items)) msg(x, 3, (i) => primitivesItems(i, v.items));
    str(x, 4, v.collectionFormat);
    primitiveConstraints(x, v, 5);
    str(x, 18, v.description);
    vendorExtensions(x, 19, v);
  }));
  if (isObj(r.examples)) msg(w, 4, (e) => { for (const [k, v] of Object.entries(r.examples as Obj)) msg(e, 1, (n) => (str(n, 1, k), any(n, 2, v))); });
  vendorExtensions(w, 5, r);
}

function operation(w: W, o: Obj): void {
  strs(w, 1, o.tags);
  str(w, 2, o.summary);
  str(w, 3, o.description);
  if (isObj(o.externalDocs)) msg(w, 4, (d) => externalDocs(d, o.externalDocs as Obj));
  str(w, 5, o.operationId);
  strs(w, 6, o.produces);
  strs(w, 7, o.consumes);
  if (Array.isArray(o.parameters)) for (const p of o.parameters) msg(w, 8, (x) => parametersItem(x, p));
  if (isObj(o.responses)) {
    const responses = o.responses;
    msg(w, 9, (rs) => {
      for (const [code, r] of Object.entries(responses)) {
        if (code.startsWith('x-') || !isObj(r)) continue;
        msg(rs, 1, (n) => {
          str(n, 1, code);
          msg(n, 2, (rv) => (typeof r.$ref === 'string' ? msg(rv, 2, (j) => str(j, 1, r.$ref)) : msg(rv, 1, (x) => response(x, r))));
        });
      }
      vendorExtensions(rs, 2, responses);
    });
  }
  strs(w, 10, o.schemes);
  bool(w, 11, o.deprecated);
  if (Array.isArray(o.security)) for (const s of o.security) msg(w, 12, (x) => securityRequirement(x, s));
  vendorExtensions(w, 13, o);
}

function securityRequirement(w: W, s: Json): void {
  named(w, 1, s, (x, scopes) => strs(x, 1, scopes));
}

const methods: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(w: W, p: Json): void {
  if (!isObj(p)) return;
  str(w, 1, p.$ref);
  for (const [m, field] of methods) if (isObj(p[m])) msg(w, field, (x) => operation(x, p[m] as Obj));
  if (Array.isArray(p.parameters)) for (const q of p.parameters) msg(w, 9, (x) => parametersItem(x, q));
  vendorExtensions(w, 10, p);
}

const securitySchemes: Record<string, [number, string[]]> = {
  basic: [1, ['type', 'description']],
  apiKey: [2, ['type', 'name', 'in', 'description']],
};

/** The JSON document (an OpenAPI v2 / Swagger 2.0 object) as gnostic's protobuf Document. */
export function openAPIV2Protobuf(doc: Obj): Buffer {
  const w = protobuf.Writer.create();
  str(w, 1, doc.swagger);
  if (isObj(doc.info)) {
    const info = doc.info;
    msg(w, 2, (i) => {
      str(i, 1, info.title);
      str(i, 2, info.version);
      str(i, 3, info.description);
      str(i, 4, info.termsOfService);
      vendorExtensions(i, 7, info);
    });
  }
  str(w, 3, doc.host);
  str(w, 4, doc.basePath);
  strs(w, 5, doc.schemes);
  strs(w, 6, doc.consumes);
  strs(w, 7, doc.produces);
  if (isObj(doc.paths)) {
    const paths = doc.paths;
    msg(w, 8, (p) => {
      vendorExtensions(p, 1, paths);
      for (const [k, v] of Object.entries(paths)) if (!k.startsWith('x-')) msg(p, 2, (n) => (str(n, 1, k), msg(n, 2, (x) => pathItem(x, v))));
    });
  }
  if (isObj(doc.definitions)) msg(w, 9, (d) => named(d, 1, doc.definitions, schema));
  if (isObj(doc.parameters)) msg(w, 10, (d) => named(d, 1, doc.parameters, parameter));
  if (isObj(doc.responses)) msg(w, 11, (d) => named(d, 1, doc.responses, (x, r) => isObj(r) && response(x, r)));
  if (Array.isArray(doc.security)) for (const s of doc.security) msg(w, 12, (x) => securityRequirement(x, s));
  if (isObj(doc.securityDefinitions)) {
    msg(w, 13, (d) => named(d, 1, doc.securityDefinitions, (item, def) => {
      if (!isObj(def)) return;
      const scheme = securitySchemes[String(def.type)];
      if (!scheme) return;
      msg(item, scheme[0], (x) => {
        scheme[1].forEach((k, i) => str(x, i + 1, def[k]));
        vendorExtensions(x, scheme[1].length + 1, def);
      });
    }));
  }
  if (Array.isArray(doc.tags)) for (const t of doc.tags) if (isObj(t)) msg(w, 14, (x) => (str(x, 1, t.name), str(x, 2, t.description), vendorExtensions(x, 4, t)));
  if (isObj(doc.externalDocs)) msg(w, 15, (d) => externalDocs(d, doc.externalDocs as Obj));
  vendorExtensions(w, 16, doc);
  return Buffer.from(w.finish());
}
