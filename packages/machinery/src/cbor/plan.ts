/**
 * Where a kind's CBOR differs from what its JSON form alone says. Windlass holds objects in
 * their JSON form, in which a Go []byte is a base64 string and a float64 that happens to be
 * whole is written like an integer; kube's CBOR encodes the Go value, so a []byte field is a
 * byte string enclosed in tag 22 ("expected later base64 encoding") and a float64 is always
 * a float. A plan marks those places; a kind with neither (most of them) has no plan and is
 * encoded from its JSON form alone.
 *
 * In the built-in kinds only these places exist (from the OpenAPI `format: byte` and
 * `type: number` properties): Secret.data and ConfigMap.binaryData values, the
 * CertificateSigningRequest's request and certificate, the webhooks' and APIService's
 * caBundle, and JSONSchemaProps' maximum, minimum and multipleOf, plus every number inside an
 * apiextensions `JSON` value (default, example, enum), whose MarshalCBOR decodes its raw JSON
 * with encoding/json into float64s. Custom resources are unstructured in kube, whose CBOR
 * follows the JSON values alone: they need no plan.
 */

export interface CBORPlan {
  /** A Go []byte: the JSON form's base64 string is encoded as tag 22 and the bytes. */
  bytes?: boolean;
  /** A Go float64: the shortest float that holds it, even when whole. */
  float?: boolean;
  /** Every number below is a float64 (a value json.Unmarshal read into interface{}). */
  floats?: boolean;
  /** An object's fields that need a plan (a struct's). */
  fields?: Map<string, CBORPlan>;
  /** The plan of every value of an object without one in `fields` (a map's). */
  values?: CBORPlan;
  /** The plan of an array's elements. */
  items?: CBORPlan;
}

type Schema = Record<string, any>;

/** The definitions a plan is compiled from: an OpenAPI v2 definition by name (`io.k8s.api.core.v1.Secret`). */
export type DefinitionResolver = (name: string) => Schema | undefined;

const refName = (ref: string) => ref.replace(/^#\/(definitions|components\/schemas)\//, '');

const apiextensions = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const schemaProps = `${apiextensions}JSONSchemaProps`;

/**
 * Go types whose OpenAPI definition is empty because they marshal themselves: a
 * JSONSchemaPropsOr… is either a JSONSchemaProps or a list of them (or a bool, or strings),
 * a JSON holds any value read as float64s.
 */
const selfMarshalling: Record<string, 'schemaOrArray' | 'floats'> = {
  [`${apiextensions}JSONSchemaPropsOrArray`]: 'schemaOrArray',
  [`${apiextensions}JSONSchemaPropsOrBool`]: 'schemaOrArray',
  [`${apiextensions}JSONSchemaPropsOrStringArray`]: 'schemaOrArray',
  [`${apiextensions}JSON`]: 'floats',
};

/**
 * Compiles plans from OpenAPI v2 definitions, one per definition name, remembered. A
 * definition that never reaches a []byte or float64 has the plan undefined.
 */
export class CBORPlanCompiler {
  private readonly plans = new Map<string, CBORPlan | undefined>();
  private readonly needed = new Map<string, boolean>();

  constructor(private readonly resolve: DefinitionResolver) {}

  /** The plan of a definition, e.g. `io.k8s.api.core.v1.SecretList`. */
  definition(name: string): CBORPlan | undefined {
    if (this.plans.has(name)) return this.plans.get(name);
    if (!this.needs(name)) {
      this.plans.set(name, undefined);
      return undefined;
    }
    // Registered before it is filled, so recursive types (JSONSchemaProps) refer to it.
    const plan: CBORPlan = {};
    this.plans.set(name, plan);
    const special = selfMarshalling[name];
    if (special === 'floats') {
      plan.floats = true;
    } else if (special === 'schemaOrArray') {
      const props = this.definition(schemaProps)!;
      plan.fields = props.fields;
      plan.items = props;
    } else {
      this.fill(plan, this.resolve(name) ?? {});
    }
    return plan;
  }

  /** Whether a definition reaches a []byte or float64 (a cycle counts as not, its other paths decide). */
  private needs(name: string): boolean {
    const known = this.needed.get(name);
    if (known !== undefined) return known;
    this.needed.set(name, false);
    const result = selfMarshalling[name] !== undefined ? true : this.schemaNeeds(this.resolve(name) ?? {});
    this.needed.set(name, result);
    return result;
  }

  private schemaNeeds(s: Schema): boolean {
    const ref = refOf(s);
    if (ref !== undefined) return this.needs(ref);
    if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string']) return false;
    if (s.type === 'string') return s.format === 'byte';
    if (s.type === 'number') return true;
    if (s.items && this.schemaNeeds(s.items)) return true;
    if (s.additionalProperties && typeof s.additionalProperties === 'object' && this.schemaNeeds(s.additionalProperties)) return true;
    for (const prop of Object.values((s.properties ?? {}) as Record<string, Schema>)) if (this.schemaNeeds(prop)) return true;
    return false;
  }

  private schema(s: Schema): CBORPlan | undefined {
    const ref = refOf(s);
    if (ref !== undefined) return this.definition(ref);
    if (!this.schemaNeeds(s)) return undefined;
    if (s.type === 'string') return { bytes: true };
    if (s.type === 'number') return { float: true };
    return this.fill({}, s);
  }

  /**
   * Fills a definition's plan in place: its fields map exists before the fields are
   * compiled, so a JSONSchemaPropsOrArray met inside JSONSchemaProps shares it.
   */
  private fill(plan: CBORPlan, s: Schema): CBORPlan {
    if (s.type === 'string') plan.bytes = s.format === 'byte';
    else if (s.type === 'number') plan.float = true;
    else if (s.type === 'array') plan.items = this.schema(s.items ?? {});
    else {
      const fields = (plan.fields = new Map());
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        const p = this.schema(prop);
        if (p) fields.set(name, p);
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') plan.values = this.schema(s.additionalProperties);
    }
    return plan;
  }
}

function refOf(s: Schema): string | undefined {
  if (typeof s.$ref === 'string') return refName(s.$ref);
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && typeof s.allOf[0].$ref === 'string') return refName(s.allOf[0].$ref);
  return undefined;
}
