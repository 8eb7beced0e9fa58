/**
 * What kube's CRD validation says of one schema's rules when the CRD is written
 * (apiextensions-apiserver pkg/apiserver/schema/cel Compile and the CRD validation around it): a
 * rule that does not parse or type-check against the schema (`compilation failed: …`), that is
 * not a bool, a messageExpression that is not a string, a rule or messageExpression estimated to
 * cost more than kube allows, oldSelf where old and new values cannot be correlated, and
 * optionalOldSelf on a rule without oldSelf. Parse errors are @bufbuild/cel's messages.
 */
import { fieldErr, GoValue, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import { checkCel, formatIssues } from '../cel/check.js';
import { optionalOf, type CelT } from '../cel/checktypes.js';
import { parseKube } from '../cel/index.js';
import { compileCel, type Rule } from './cel.js';
import { cardinalityOfSize, costErrorMessage, maxCost, staticEstimatedCostLimit, timesCardinality, type TotalCost } from './celcost.js';
import { schemaDecl, type Decl } from './celtypes.js';

type Schema = structural.StructuralSchema;

/** Go's %#v of kube's internal ValidationRule, as a field error prints an invalid rule. */
function goRule(r: Rule): string {
  const ptr = (type: string, set: unknown) => (set === undefined ? `(*${type})(nil)` : `(*${type})(0xc000000000)`);
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, `
    + `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason)}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf)}}`;
}

/** Where one schema's rules sit. */
export interface RuleContext {
  /** The root or an embedded resource: `self` always has apiVersion, kind and metadata's name and generateName. */
  isResourceRoot: boolean;
  /** The path of the list or atomic map above that keeps old and new values from being correlated. */
  uncorrelatable?: string;
  /** How many times the schema's value may occur in one object; undefined when unbounded. */
  cardinality?: bigint;
  /** The whole schema's rules' costs, added to. */
  total: TotalCost;
  /** On an update of a version whose schema did not change, no rule is refused for its own cost. */
  suppressPerExpressionCost: boolean;
}

const hasNewlines = (text: string) => /[\n\r]/.test(text);
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/**
 * The checks of kube's CRD schema validation on each rule's other fields (schema errors, which
 * keep the rules from being compiled): a rule, a message on one line (required when the rule
 * spans lines), a messageExpression that is not blank, a known reason, a fieldPath that names a
 * field of the schema.
 */
export function ruleSchemaErrors(s: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  ((s['x-kubernetes-validations'] ?? []) as Rule[]).forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const rule = (r.rule ?? '').trim();
    const message = r.message ?? '';
    if (rule === '') errs.push(fieldErr.required(`${at}.rule`, 'rule is not specified'));
    else if (message.length > 0 && message.trim() === '') errs.push(fieldErr.invalid(`${at}.message`, message, 'must be non-empty if specified'));
    else if (hasNewlines(message.trim())) errs.push(fieldErr.invalid(`${at}.message`, message, 'must not contain line breaks'));
    else if (hasNewlines(rule) && message.trim() === '') errs.push(fieldErr.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    if ((r.messageExpression ?? '').length > 0 && r.messageExpression!.trim() === '') errs.push(fieldErr.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (r.reason !== undefined && r.reason !== null && !validationReasons.includes(r.reason)) errs.push(fieldErr.notSupported(`${at}.reason`, r.reason, validationReasons));
    const fieldPath = r.fieldPath ?? '';
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(fieldErr.invalid(`${at}.fieldPath`, fieldPath, 'must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errs.push(fieldErr.invalid(`${at}.fieldPath`, fieldPath, 'must not contain line breaks'));
    if (fieldPath.length > 0 && !validFieldPath(fieldPath, s)) errs.push(fieldErr.invalid(`${at}.fieldPath`, fieldPath, 'must be a valid path'));
  });
  return errs;
}

/**
 * kube's ValidFieldPath: `.a.b`, `['a.b']` (single-quoted, `\'` escaped) and map keys, each step
 * a property the schema declares or a key of its additionalProperties.
 */
export function validFieldPath(fieldPath: string, schema: Schema): boolean {
  // Tokens: the delimiters `.`, `[` and `]` alone, a quoted string whole, else the text between.
  const tokens = fieldPath.match(/'(?:[^'\\]|\\.)*'?|[.[\]]|[^.[\]']+/g) ?? [];
  let at: Schema | undefined = schema;
  const step = (name: string): boolean => {
    if (!at) return false;
    if (at.properties) {
      at = at.properties[name];
      return at !== undefined;
    }
    if (at.additionalProperties !== undefined && at.additionalProperties !== false) {
      at = structural.isObject(at.additionalProperties) ? (at.additionalProperties as Schema) : undefined;
      return true;
    }
    return false;
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '.') {
      if (++i >= tokens.length || !step(tokens[i])) return false;
    } else if (tok === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return false;
      if (!step(quoted.slice(1, -1).replace(/\\(.)/g, '$1')) || tokens[++i] !== ']') return false;
    } else {
      return false;
    }
  }
  return true;
}

export function ruleCompileErrors(s: Schema, path: string, ctx: RuleContext): FieldError[] {
  const rules = (s['x-kubernetes-validations'] ?? []) as Rule[];
  if (rules.length === 0) return [];
  const decl = schemaDecl(s, ctx.isResourceRoot, 'selfType0');
  if (!decl) {
    const why = 'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations';
    return [fieldErr.internal(`${path}.x-kubernetes-validations`, why)];
  }
  const cardinality = ctx.cardinality ?? cardinalityOfSize(decl.minSize);
  const errs: FieldError[] = [];
  rules.forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    // A blank rule is a schema error (ruleSchemaErrors).
    if (!r.rule?.trim()) return;
    const optionalOldSelf = r.optionalOldSelf === true;
    const variables = new Map<string, CelT>([['self', decl.type], ['oldSelf', optionalOldSelf ? optionalOf(decl.type) : decl.type]]);
    const compiled = typeCheck(r.rule, variables, optionalOldSelf, 'bool', decl);
    const cost = timesCardinality(compiled.cost ?? 0n, cardinality);
    if (!ctx.suppressPerExpressionCost && cost > staticEstimatedCostLimit) {
      errs.push(fieldErr.forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit)));
    }
    ctx.total.observe(`${at}.rule`, cost);
    if (compiled.error !== undefined) {
      errs.push(fieldErr.invalid(`${at}.rule`, new GoValue(goRule(r)), compiled.error === notOfType ? 'cel expression must evaluate to a bool' : `compilation failed: ${compiled.error}`));
    } else if (r.messageExpression) {
      const m = typeCheck(r.messageExpression, variables, optionalOldSelf, 'string', decl);
      if (m.error !== undefined) {
        errs.push(fieldErr.invalid(`${at}.messageExpression`, new GoValue(goRule(r)), m.error === notOfType ? 'messageExpression must evaluate to a string' : `messageExpression compilation failed: ${m.error}`));
      } else {
        // A messageExpression's cost is its own: kube does not multiply it by the rule's cardinality.
        const messageCost = m.cost ?? 0n;
        if (!ctx.suppressPerExpressionCost && messageCost > staticEstimatedCostLimit) {
          errs.push(fieldErr.forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', messageCost, staticEstimatedCostLimit)));
        }
        ctx.total.observe(`${at}.messageExpression`, messageCost);
      }
    }
    if (compiled.usesOldSelf && ctx.uncorrelatable !== undefined) {
      errs.push(fieldErr.invalid(`${at}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${ctx.uncorrelatable}`));
    } else if (!compiled.usesOldSelf && r.optionalOldSelf !== undefined && r.optionalOldSelf !== null) {
      errs.push(fieldErr.invalid(`${at}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

const notOfType = Symbol('not of the expected type');

interface TypeChecked {
  /** cel-go's issues, or notOfType for a result of another type. */
  error?: string | typeof notOfType;
  usesOldSelf?: boolean;
  /** The estimated cost of one evaluation, for an expression that compiled. */
  cost?: bigint;
}

/** Parsed rules, kept as compileCel keeps their programs: a CRD's rules are compiled again on every write of it. */
const parsedRules = new Map<string, ReturnType<typeof parseKube>>();

function parsedRule(expr: string, optionalOldSelf: boolean): ReturnType<typeof parseKube> {
  const key = optionalOldSelf ? `?${expr}` : expr;
  let parsed = parsedRules.get(key);
  if (!parsed) {
    if (parsedRules.size > 10000) parsedRules.clear();
    parsedRules.set(key, (parsed = parseKube(expr, optionalOldSelf ? ['oldSelf'] : [])));
  }
  return parsed;
}

function typeCheck(expr: string, variables: ReadonlyMap<string, CelT>, optionalOldSelf: boolean, want: 'bool' | 'string', decl: Decl): TypeChecked {
  const p = compileCel(expr, optionalOldSelf);
  if (p instanceof Error) return { error: `ERROR: ${p.message}` };
  const parsed = parsedRule(expr, optionalOldSelf);
  const checked = checkCel(parsed, expr, variables);
  if (checked.issues.length > 0) return { error: formatIssues(expr, checked.issues) };
  // Where the checker cannot tell (dyn), the rule is given the benefit of the doubt.
  const t = checked.type;
  if (!(t.k === 'prim' && t.name === want) && !['dyn', 'error', 'param'].includes(t.k)) return { error: notOfType };
  return { usesOldSelf: checked.uses.has('oldSelf'), cost: parsed.expr ? maxCost(parsed.expr, checked, decl) : 0n };
}
