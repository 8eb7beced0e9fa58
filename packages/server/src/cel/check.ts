/**
 * A type checker for CEL expressions in kube's environment, after cel-go's checker/checker.go:
 * what kube's CRD validation refuses a rule for at the CRD's write (`undeclared reference to
 * 'x' (in container '')`, `undefined field 'x'`, `found no matching overload for '_==_' applied
 * to '(string, null)'`, kube's homogeneous aggregate literals' `expected type 'int' but
 * found 'string'`), with cel-go's locations, and the expression's type.
 *
 * It works on the tree ./syntax.ts gives (optional syntax and two-variable comprehensions are
 * helper calls there). Where the runtime's declarations are looser than cel-go's (its generic
 * library functions answer `dyn`), the checker is too: it may pass an expression cel-go refuses,
 * never the other way round.
 */
import { isCelError, plan, type parse } from '@bufbuild/cel';
import { structural } from '@windlass/schemas';
import { requestResourceVariable } from './authz.js';
import { overloadsOf, typeIdents } from './checkdecls.js';
import { kubeCelEnv, parseKube } from './index.js';
import {
  BOOL, BYTES, DOUBLE, DURATION, DYN, ERROR, INT, NULL, STRING, TIMESTAMP, UINT,
  assignable, formatType, listOf, mapOf, mostGeneral, optionalOf, sameType, substitute, type CelT,
} from './checktypes.js';

type ParsedExpr = ReturnType<typeof parse>;
type Expr = NonNullable<ParsedExpr['expr']>;
type Call = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];

export interface CheckIssue {
  /** Offset in the expression's text. */
  offset: number;
  message: string;
}

export interface Checked {
  type: CelT;
  issues: CheckIssue[];
  /** The declared variables the expression refers to. */
  uses: Set<string>;
  /** Every node's type, by expression id. */
  types: ReadonlyMap<bigint, CelT>;
  /** The ids of the overloads each call may resolve to, by expression id. */
  overloads: ReadonlyMap<bigint, readonly string[]>;
}

/** Helpers of ./syntax.ts whose results the checker does not follow. */
const untypedHelpers = new Set(['__optList', '__optMapPut', '__mapInsert', '__mapMerge']);

const identName = (e: Expr | undefined) => (e?.exprKind.case === 'identExpr' ? e.exprKind.value.name : undefined);

/** `a.b.c` as one name, when the expression is only identifiers and selections. */
function qualifiedName(e: Expr): string | undefined {
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly) {
    const q = qualifiedName(e.exprKind.value.operand!);
    return q === undefined ? undefined : `${q}.${e.exprKind.value.field}`;
  }
  return undefined;
}

function rootIdent(e: Expr): string | undefined {
  while (e.exprKind.case === 'selectExpr') e = e.exprKind.value.operand!;
  return identName(e);
}

function regexCompiles(pattern: string): boolean {
  try {
    structural.compileGoRegexp(pattern);
    return true;
  } catch {
    return false;
  }
}

let literalEnv: ReturnType<typeof kubeCelEnv> | undefined;

/** Whether a call of constants evaluates without an error in the runtime. */
function literalEvaluates(expr: string): boolean {
  try {
    const result = plan((literalEnv ??= kubeCelEnv()), parseKube(expr))({} as never);
    return !isCelError(result);
  } catch {
    return false;
  }
}

/** Whether a type is known throughout (no `dyn`, error or parameter inside). */
function isConcrete(t: CelT): boolean {
  switch (t.k) {
    case 'dyn': case 'error': case 'param': return false;
    case 'list': return isConcrete(t.elem);
    case 'map': return isConcrete(t.key) && isConcrete(t.value);
    case 'opaque': return t.params.every(isConcrete);
    case 'type': return isConcrete(t.of);
    default: return true;
  }
}

const rangeError = (t: CelT) => `expression of type '${formatType(t)}' cannot be range of a comprehension (must be list, map, or dynamic)`;

const unwrapOptional = (t: CelT) => (t.k === 'opaque' && t.name === 'optional_type' ? t.params[0] : t);

class Checker {
  readonly issues: CheckIssue[] = [];
  readonly uses = new Set<string>();
  readonly types = new Map<bigint, CelT>();
  readonly overloads = new Map<bigint, string[]>();
  private scopes: Map<string, CelT>[] = [];
  /** How many `format` calls the literal being checked is inside. */
  private inFormat = 0;

  constructor(
    private readonly src: string,
    private readonly positions: Record<string, number>,
    private readonly variables: ReadonlyMap<string, CelT>,
  ) {}

  private report(offset: number, message: string): CelT {
    this.issues.push({ offset, message });
    return ERROR;
  }

  private isVariable(name: string | undefined): boolean {
    return name !== undefined && (this.scopes.some((s) => s.has(name)) || this.variables.has(name));
  }

  check(e: Expr, at: number): CelT {
    const t = this.checkNode(e, at);
    this.types.set(e.id, t);
    return t;
  }

  private checkNode(e: Expr, at: number): CelT {
    const off = this.positions[String(e.id)] ?? at;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        switch (k.value.constantKind.case) {
          case 'boolValue': return BOOL;
          case 'bytesValue': return BYTES;
          case 'doubleValue': return DOUBLE;
          case 'int64Value': return INT;
          case 'uint64Value': return UINT;
          case 'stringValue': return STRING;
          case 'nullValue': return NULL;
          case 'durationValue': return DURATION;
          case 'timestampValue': return TIMESTAMP;
          default: return DYN;
        }
      case 'identExpr': return this.ident(k.value.name, off);
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        const q = testOnly ? undefined : qualifiedName(e);
        if (q !== undefined && !this.isVariable(rootIdent(e)) && typeIdents.has(q)) return typeIdents.get(q)!;
        const t = this.check(operand!, off);
        // has() is located at its parenthesis, as the macro's call.
        const ft = this.select(t, field, testOnly ? this.callOffset(off, 'has', false) : off);
        return testOnly ? BOOL : ft;
      }
      case 'callExpr': return this.call(e.id, k.value, off);
      case 'listExpr': return listOf(this.join(k.value.elements, off) ?? DYN);
      case 'structExpr': {
        if (k.value.messageName !== '') {
          for (const en of k.value.entries) if (en.value) this.check(en.value, off);
          return DYN;
        }
        const keys: Expr[] = [];
        const values: Expr[] = [];
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') keys.push(en.keyKind.value);
          if (en.value) values.push(en.value);
        }
        return mapOf(this.join(keys, off) ?? DYN, this.join(values, off) ?? DYN);
      }
      case 'comprehensionExpr': return this.comprehension(k.value, off);
      default: return DYN;
    }
  }

  private ident(name: string, off: number): CelT {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i].get(name);
      if (t) return t;
    }
    const v = this.variables.get(name);
    if (v) {
      this.uses.add(name);
      return v;
    }
    const t = typeIdents.get(name);
    if (t) return t;
    // ./syntax.ts reads `authorizer.requestResource` as one variable.
    const shown = name === requestResourceVariable ? 'authorizer' : name;
    return this.report(off, `undeclared reference to '${shown}' (in container '')`);
  }

  private select(t: CelT, field: string, off: number): CelT {
    switch (t.k) {
      case 'object': return t.field(field) ?? this.report(off, `undefined field '${field}'`);
      case 'map': return t.value;
      case 'dyn': case 'error': case 'param': return DYN;
      case 'opaque':
        if (t.name === 'optional_type') return optionalOf(this.select(t.params[0], field, off));
        break;
    }
    return this.report(off, `type '${formatType(t)}' does not support field selection`);
  }

  /**
   * The elements' common type (`dyn` when they disagree), and kube's HomogeneousAggregateLiterals
   * validation: every element of the literal's type, except within a `format` call. Types this
   * checker knows only in part (holding `dyn`) are not held against the literal.
   */
  private join(elements: Expr[], off: number): CelT | undefined {
    let joined: CelT | undefined;
    let first: CelT | undefined;
    for (const x of elements) {
      const t = this.check(x, off);
      if (first === undefined) {
        joined = first = t;
        continue;
      }
      if (this.inFormat === 0 && isConcrete(first) && isConcrete(t) && !sameType(first, t)) {
        this.report(this.positions[String(x.id)] ?? off, `expected type '${formatType(first)}' but found '${formatType(t)}'`);
      }
      joined = assignable(new Map(), joined!, t) ? mostGeneral(joined!, t) : DYN;
    }
    return joined;
  }

  private comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'], off: number): CelT {
    const range = this.check(c.iterRange!, off);
    const accu = this.check(c.accuInit!, off);
    let first: CelT;
    let second: CelT = DYN;
    switch (range.k) {
      case 'list': [first, second] = [c.iterVar2 ? INT : range.elem, range.elem]; break;
      case 'map': [first, second] = [range.key, range.value]; break;
      case 'dyn': case 'error': case 'param': first = DYN; break;
      default:
        first = this.report(this.positions[String(c.iterRange!.id)] ?? off, rangeError(range));
    }
    this.scopes.push(new Map([[c.accuVar, accu]]));
    const loop = new Map([[c.iterVar, first]]);
    if (c.iterVar2) loop.set(c.iterVar2, second);
    this.scopes.push(loop);
    this.check(c.loopCondition!, off);
    this.check(c.loopStep!, off);
    this.scopes.pop();
    const result = this.check(c.result!, off);
    this.scopes.pop();
    return result;
  }

  private call(id: bigint, c: Call, off: number): CelT {
    let name = c.function;
    let target = c.target;
    if (name === '__optSelect' || name === '__optIndex') {
      const t = unwrapOptional(this.check(c.args[0], off));
      const key = c.args[1];
      if (name === '__optSelect') {
        const field = key.exprKind.case === 'constExpr' && key.exprKind.value.constantKind.case === 'stringValue' ? key.exprKind.value.constantKind.value : '';
        return optionalOf(this.select(t, field, off));
      }
      this.check(key, off);
      return optionalOf(t.k === 'list' ? t.elem : t.k === 'map' ? t.value : DYN);
    }
    if (name === '__iterKeys') {
      // A two-variable comprehension's range: a list's indices, a map's keys.
      const t = this.check(c.args[0], off);
      if (t.k === 'list') return listOf(INT);
      if (t.k === 'map') return listOf(t.key);
      if (t.k === 'dyn' || t.k === 'error' || t.k === 'param') return DYN;
      return this.report(this.positions[String(c.args[0].id)] ?? off, rangeError(t));
    }
    if (untypedHelpers.has(name)) {
      if (target) this.check(target, off);
      for (const a of c.args) this.check(a, off);
      return DYN;
    }
    // `optional.of(x)`, `sets.contains(a, b)`: a function whose name is qualified, not a member call.
    if (target) {
      const q = qualifiedName(target);
      if (q !== undefined && !this.isVariable(rootIdent(target)) && overloadsOf(`${q}.${name}`)) {
        name = `${q}.${name}`;
        target = undefined;
      }
    }
    if (name === 'format') this.inFormat++;
    const args = [...(target ? [target] : []), ...c.args].map((a) => this.check(a, off));
    if (name === 'format') this.inFormat--;
    this.validateLiteral(name, c.args[0], off);
    const at = this.callOffset(off, c.function, target !== undefined);
    if (name === '_&&_' || name === '_||_') {
      // cel-go checks logical operators operand by operand.
      this.overloads.set(id, [name === '_&&_' ? 'logical_and' : 'logical_or']);
      let result = BOOL;
      args.forEach((t, i) => {
        if (!assignable(new Map(), BOOL, t)) result = this.report(this.positions[String(c.args[i].id)] ?? off, `expected type 'bool' but found '${formatType(t)}'`);
      });
      return result;
    }
    const overloads = overloadsOf(name);
    if (!overloads) return this.report(at, `undeclared reference to '${name}' (in container '')`);
    let result: CelT | undefined;
    const ids: string[] = [];
    for (const o of overloads) {
      if (o.member !== (target !== undefined) || o.params.length !== args.length) continue;
      const b = new Map<string, CelT>();
      if (!o.params.every((p, i) => assignable(b, p, args[i]))) continue;
      const r = substitute(b, o.result);
      result = result === undefined || sameType(result, r) ? r : DYN;
      ids.push(o.id);
    }
    if (result !== undefined) {
      this.overloads.set(id, ids);
      return result;
    }
    const shown = args.map(formatType);
    const signature = target ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
    return this.report(at, `found no matching overload for '${name}' applied to '${signature}'`);
  }

  /**
   * kube's AST validators (cel-go's ValidateDurationLiterals, ValidateTimestampLiterals and
   * ValidateRegexLiterals): a literal argument of duration(), timestamp() or matches() that could
   * never evaluate is refused when the expression is compiled.
   */
  private validateLiteral(fn: string, arg: Expr | undefined, off: number): void {
    if (!['duration', 'timestamp', 'matches'].includes(fn) || arg?.exprKind.case !== 'constExpr') return;
    const lit = arg.exprKind.value.constantKind;
    let valid = true;
    if (fn === 'matches') {
      if (lit.case === 'stringValue') valid = regexCompiles(lit.value);
    } else if (lit.case === 'stringValue' || lit.case === 'int64Value') {
      valid = literalEvaluates(`${fn}(${lit.case === 'stringValue' ? JSON.stringify(lit.value) : String(lit.value)})`);
    }
    if (!valid) this.report(this.positions[String(arg.id)] ?? off, `invalid ${fn} argument`);
  }

  /**
   * cel-go locates a call of a named function at its opening parenthesis, where the parser
   * records the function's name (or, for a member call, the dot).
   */
  private callOffset(off: number, fn: string, member: boolean): number {
    if (!/^[A-Za-z_]/.test(fn)) return off;
    const m = new RegExp(`^${member ? '\\.\\s*' : ''}${fn.replace(/\./g, '\\s*\\.\\s*')}\\s*\\(`).exec(this.src.slice(off));
    return m ? off + m[0].length - 1 : off;
  }
}

/**
 * Type-checks a parsed expression (./syntax.ts's parseKube) whose text is `src`, with the given
 * variables declared.
 */
export function checkCel(parsed: ParsedExpr, src: string, variables: ReadonlyMap<string, CelT>): Checked {
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const c = new Checker(src, positions, variables);
  const type = parsed.expr ? c.check(parsed.expr, 0) : DYN;
  return { type, issues: c.issues, uses: c.uses, types: c.types, overloads: c.overloads };
}

/**
 * cel-go's Issues.String(): each issue as `ERROR: <input>:line:column: message`, with the line
 * and a caret under the column, in the order of their locations.
 */
export function formatIssues(src: string, issues: readonly CheckIssue[]): string {
  return [...issues].sort((a, b) => a.offset - b.offset).map(({ offset, message }) => {
    const before = src.slice(0, offset);
    const lineStart = before.lastIndexOf('\n') + 1;
    const line = before.split('\n').length;
    const column = [...src.slice(lineStart, offset)].length;
    const end = src.indexOf('\n', lineStart);
    const text = src.slice(lineStart, end < 0 ? undefined : end).replace(/\t/g, ' ');
    return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
  }).join('\n');
}
