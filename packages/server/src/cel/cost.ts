/**
 * cel-go's static cost estimation (checker/cost.go), with kube's options: presence tests cost
 * nothing, the lists and sets extensions' estimators, and an estimator of the caller's for
 * variable sizes and library calls (kube's library CostEstimator). Costs and sizes are uint64
 * ranges that saturate, as in Go.
 *
 * The tree is ./syntax.ts's: the helper calls it brings optional syntax to cost what cel-go's
 * optional functions cost, and a two-variable comprehension's wrapping binds cost nothing, as
 * cel-go's native two-variable comprehension has none.
 */
import type { parse } from '@bufbuild/cel';
import type { CelT } from './checktypes.js';

type ParsedExpr = ReturnType<typeof parse>;
export type Expr = NonNullable<ParsedExpr['expr']>;

export const MAX = (1n << 64n) - 1n;

export interface Range { min: bigint; max: bigint }

export const range = (min: bigint, max = min): Range => ({ min, max });
export const unknownSize: Range = range(0n, MAX);
export const add = (a: Range, b: Range): Range => range(sat(a.min + b.min), sat(a.max + b.max));
export const multiply = (a: Range, b: Range): Range => range(sat(a.min * b.min), sat(a.max * b.max));
export const union = (a: Range, b: Range): Range => range(a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max);
const sat = (n: bigint) => (n > MAX ? MAX : n);

/** Go's multiplyByCostFactor: float64 arithmetic rounded up, saturating. */
function byFactor(x: bigint, f: number): bigint {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > Number(MAX) / f) return MAX;
  const c = Math.ceil(xf * f);
  return c >= 2 ** 64 ? MAX : BigInt(c);
}
export const times = (r: Range, f: number): Range => range(byFactor(r.min, f), byFactor(r.max, f));

export const stringTraversal = 0.1;
export const regexStringLength = 0.25;
const listCreate = range(10n);
const mapCreate = range(30n);
const structCreate = range(40n);
export const one = range(1n);

/** What an estimator is told of an argument or target (cel-go's AstNode). */
export interface AstNode {
  /** The variable and the fields, `@items`, `@keys`, `@values` below it, when the node is reached from one. */
  path?: string[];
  type: CelT;
  expr?: Expr;
  computedSize?: Range;
}

export interface CallEstimate { cost: Range; resultSize?: Range }

export interface Estimator {
  estimateSize(node: AstNode): Range | undefined;
  estimateCallCost(fn: string, overloadId: string, target: AstNode | undefined, args: AstNode[]): CallEstimate | undefined;
}

interface EntrySize { list: boolean; key: Range; val: Range }

interface LocalVar { path: string[]; size?: Range; entry?: EntrySize }

const accumulators = new Set(['@result', '__result__']);

const kindOf = (t: CelT | undefined) => (t?.k === 'list' ? 'list' : t?.k === 'map' ? 'map' : undefined);

/** A literal int argument's value, else `fallback` (cel-go's nodeAsIntValue). */
function intArg(n: AstNode | undefined, fallback: bigint): bigint {
  const k = n?.expr?.exprKind;
  if (k?.case === 'constExpr' && k.value.constantKind.case === 'int64Value') return k.value.constantKind.value;
  return fallback;
}

/** cel-go's estimateListCall for a call that allocates its result list. */
function allocatingListCall(factor: number, list: Range): CallEstimate {
  return { cost: add(add(times(list, factor), one), listCreate), resultSize: list };
}

const isTextual = (t: CelT | undefined) => t?.k === 'prim' && (t.name === 'string' || t.name === 'bytes');

/** The lists and sets extensions' estimators (cel-go's OverloadCostEstimate options). */
function extensionEstimate(overloadId: string, target: AstNode | undefined, args: AstNode[], size: (n: AstNode) => Range): CallEstimate | undefined {
  switch (overloadId) {
    case 'list_slice':
      if (target && args.length === 2) {
        const end = intArg(args[1], size(target).max);
        const start = intArg(args[0], 0n);
        return allocatingListCall(1, range(end - start < 0n ? 0n : end - start));
      }
      break;
    case 'lists_range':
      if (!target && args.length === 1) return allocatingListCall(1, range(intArg(args[0], MAX)));
      break;
    case 'list_reverse':
      if (target && args.length === 0) return allocatingListCall(1, size(target));
      break;
    case 'list_flatten': case 'list_flatten_int':
      if (target && args.length <= 1) return allocatingListCall(Number(args.length === 1 ? intArg(args[0], MAX) : 1n), size(target));
      break;
    case 'list_distinct':
      if (target && args.length === 0) {
        const s = size(target);
        return allocatingListCall(2, multiply(s, s));
      }
      break;
    case 'list_sort': case 'list_sortByAssociatedKeys': {
      // O(n²) comparisons of the list's (or the sort keys') elements.
      const list = overloadId === 'list_sort' ? target : args[0];
      if (!target || !list || args.length !== (overloadId === 'list_sort' ? 0 : 1)) break;
      const elem = list.type.k === 'list' ? list.type.elem : undefined;
      const s = size(list);
      return allocatingListCall(2 + (isTextual(elem) ? stringTraversal : 0), multiply(s, s));
    }
    case 'list_sets_contains_list': case 'list_sets_intersects_list': case 'list_sets_equivalent_list':
      if (args.length === 2) {
        const factor = overloadId === 'list_sets_equivalent_list' ? 2 : 1;
        return { cost: add(times(multiply(size(args[0]), size(args[1])), factor), one) };
      }
      break;
  }
  return undefined;
}

class Coster {
  private readonly paths = new Map<bigint, string[]>();
  private readonly vars = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<bigint, Range>();
  private readonly entrySizes = new Map<bigint, EntrySize>();

  constructor(
    private readonly types: ReadonlyMap<bigint, CelT>,
    private readonly overloads: ReadonlyMap<bigint, readonly string[]>,
    private readonly estimator: Estimator,
  ) {}

  cost(e: Expr | undefined): Range {
    if (!e) return range(0n);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': return range(0n);
      case 'identExpr': {
        const v = this.peek(k.value.name);
        this.paths.set(e.id, v ? v.path : [k.value.name]);
        return one;
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        // kube's environment: a presence test costs nothing beyond its operand.
        if (testOnly) return this.cost(operand);
        let sum = this.cost(operand);
        const t = this.types.get(operand!.id);
        if (t?.k === 'map' || t?.k === 'object' || t?.k === 'param') sum = add(sum, one);
        this.paths.set(e.id, [...this.path(operand!), field]);
        return sum;
      }
      case 'callExpr': return this.call(e, k.value);
      case 'listExpr': {
        let sum = range(0n);
        let item = k.value.elements.length === 0 ? range(0n, 0n) : range(MAX, 0n);
        for (const x of k.value.elements) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOrUnknown(x));
        }
        this.entrySizes.set(e.id, { list: true, key: one, val: item });
        return add(sum, listCreate);
      }
      case 'structExpr': {
        let sum = range(0n);
        if (k.value.messageName !== '') {
          for (const en of k.value.entries) sum = add(sum, this.cost(en.value));
          return add(sum, structCreate);
        }
        const empty = k.value.entries.length === 0;
        let key = empty ? range(0n, 0n) : range(MAX, 0n);
        let val = empty ? range(0n, 0n) : range(MAX, 0n);
        for (const en of k.value.entries) {
          const keyExpr = en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined;
          sum = add(add(sum, this.cost(keyExpr)), this.cost(en.value));
          if (keyExpr) key = union(key, this.sizeOrUnknown(keyExpr));
          if (en.value) val = union(val, this.sizeOrUnknown(en.value));
        }
        this.entrySizes.set(e.id, { list: false, key, val });
        return add(sum, mapCreate);
      }
      case 'comprehensionExpr': return this.comprehension(e, k.value);
      default: return range(0n);
    }
  }

  private comprehension(e: Expr, c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): Range {
    const r = c.iterRange!;
    const isBind = r.exprKind.case === 'listExpr' && r.exprKind.value.elements.length === 0
      && c.loopCondition?.exprKind.case === 'constExpr' && c.loopCondition.exprKind.value.constantKind.case === 'boolValue'
      && c.loopCondition.exprKind.value.constantKind.value === false && !accumulators.has(c.accuVar);
    if (isBind) {
      // ./syntax.ts's binds around a two-variable comprehension stand for nothing cel-go evaluates.
      const synthetic = c.accuVar === '@it' || isValueBinding(c.accuInit!);
      let sum = synthetic ? range(0n) : this.cost(r);
      sum = add(sum, synthetic ? this.costOfSyntheticInit(c.accuInit!) : this.cost(c.accuInit));
      this.pushLocal(c.accuVar, c.accuInit!);
      sum = add(sum, this.cost(c.result));
      this.pop(c.accuVar);
      this.copySizes(e, c.result!);
      return sum;
    }
    // ./syntax.ts's two-variable comprehensions range over `__iterKeys(x)`: x's keys (a list's indices).
    const keysOf = r.exprKind.case === 'callExpr' && r.exprKind.value.function === '__iterKeys' ? r.exprKind.value.args[0] : undefined;
    let sum = add(keysOf ? this.cost(keysOf) : this.cost(r), this.cost(c.accuInit));
    this.pushLocal(c.accuVar, c.accuInit!);
    if (c.iterVar2) {
      this.pushIter(c.iterVar, r, 'key');
      this.pushIter(c.iterVar2, r, 'value');
    } else {
      this.pushIter(c.iterVar, keysOf ?? r, keysOf ? 'key' : 'single');
    }
    const loop = this.cost(c.loopCondition);
    const step = this.cost(c.loopStep);
    this.pop(c.iterVar);
    if (c.iterVar2) this.pop(c.iterVar2);
    sum = add(sum, this.cost(c.result));
    this.pop(c.accuVar);
    const count = this.sizeOrUnknown(keysOf ?? r);
    sum = add(sum, multiply(count, add(step, loop)));
    const init = c.accuInit!.exprKind.case;
    if (init === 'constExpr') {
      const s = this.computeSize(c.accuInit!);
      if (s) this.sizes.set(e.id, s);
    } else if (init === 'listExpr' || init === 'structExpr') {
      this.sizes.set(e.id, count);
      const stepEntry = this.computeEntrySize(c.loopStep!);
      if (stepEntry) this.entrySizes.set(e.id, stepEntry);
    }
    return sum;
  }

  /** The value binding of a two-variable comprehension (`v = @it[k]`) costs what cel-go's iteration does: nothing. */
  private costOfSyntheticInit(init: Expr): Range {
    if (isValueBinding(init)) {
      const c = (init.exprKind as Extract<Expr['exprKind'], { case: 'callExpr' }>).value;
      const it = c.args[0];
      this.cost(it);
      const entry = this.computeEntrySize(it);
      const list = entry ? entry.list : kindOf(this.types.get(it.id)) === 'list';
      this.paths.set(init.id, [...this.path(it), list ? '@items' : '@values']);
      if (entry) this.sizes.set(init.id, entry.val);
      return range(0n);
    }
    return this.cost(init);
  }

  private call(e: Expr, c: Extract<Expr['exprKind'], { case: 'callExpr' }>['value']): Range {
    const fn = c.function;
    if (fn === 'dyn' && c.args.length === 1) {
      const argCost = this.cost(c.args[0]);
      this.copySizes(e, c.args[0]);
      return add(one, argCost);
    }
    const argCosts = c.args.map((a) => this.cost(a));
    const args = c.args.map((a) => this.node(a));
    const helper = fn.startsWith('__');
    const ids = helper ? [fn] : this.overloads.get(e.id);
    if (!ids || ids.length === 0) return range(0n);
    let sum = range(0n);
    let target: AstNode | undefined;
    if (c.target) {
      sum = add(sum, this.cost(c.target));
      target = this.node(c.target);
    }
    let fnCost = range(MAX, 0n);
    let resultSize: Range | undefined;
    for (const id of ids) {
      const est = this.functionCost(e, fn, id, target, args, argCosts);
      fnCost = union(fnCost, est.cost);
      if (est.resultSize) resultSize = resultSize ? union(resultSize, est.resultSize) : est.resultSize;
      if (id === 'index_list' || id === 'index_map') {
        resultSize = this.computeEntrySize(c.args[0])?.val;
        this.paths.set(e.id, [...this.path(c.args[0]), id === 'index_list' ? '@items' : '@values']);
      }
      resultSize ??= this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return add(sum, fnCost);
  }

  private functionCost(e: Expr, fn: string, id: string, target: AstNode | undefined, args: AstNode[], argCosts: Range[]): CallEstimate {
    const argSum = () => argCosts.reduce(add, range(0n));
    const size = (n: AstNode) => this.sizeOf(n);
    const ext = extensionEstimate(id, target, args, size) ?? this.estimator.estimateCallCost(fn, id, target, args);
    if (ext) return { cost: add(ext.cost, argSum()), resultSize: ext.resultSize };
    switch (id) {
      case 'string_format':
        if (target) return { cost: add(times(size(target), stringTraversal), argSum()) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const s = size(args[0]);
          return { cost: add(times(s, stringTraversal), argSum()), resultSize: range(s.min, sat(s.max * 4n)) };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const s = size(args[0]);
          return { cost: add(times(s, stringTraversal), argSum()), resultSize: range(s.min / 4n, s.max) };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const s = size(args[0]);
          return { cost: add(times(s, stringTraversal), argSum()), resultSize: range(sat(s.min + 2n), sat(s.max * 2n + 2n)) };
        }
        break;
      case 'starts_with_string': case 'ends_with_string':
        if (args.length === 1) return { cost: add(times(size(args[0]), stringTraversal), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(times(size(args[1]), 1), argSum()) };
        break;
      case 'matches_string':
        if (target && args.length === 1) {
          const str = times(add(size(target), one), stringTraversal);
          return { cost: add(multiply(str, times(size(args[0]), regexStringLength)), argSum()) };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) return { cost: add(multiply(times(size(target), stringTraversal), times(size(args[0]), stringTraversal)), argSum()) };
        break;
      case 'logical_or': case 'logical_and': {
        const [lhs, rhs] = argCosts;
        return { cost: range(lhs.min, add(lhs, rhs).max) };
      }
      case 'conditional': {
        const s = union(size(args[1]), size(args[2]));
        const a = this.computeEntrySize(args[1].expr!);
        const b = this.computeEntrySize(args[2].expr!);
        if (a && b) this.entrySizes.set(e.id, { list: a.list, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), resultSize: s };
      }
      case 'add_string': case 'add_bytes': case 'add_list':
        if (args.length === 2) {
          const result = add(size(args[0]), size(args[1]));
          const a = this.computeEntrySize(args[0].expr!);
          const b = this.computeEntrySize(args[1].expr!);
          if (a && b) this.entrySizes.set(e.id, { list: a.list, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (id === 'add_list') return { cost: add(one, argSum()), resultSize: result };
          return { cost: add(times(result, stringTraversal), argSum()), resultSize: result };
        }
        break;
      case 'less_string': case 'greater_string': case 'less_equals_string': case 'greater_equals_string':
      case 'less_bytes': case 'greater_bytes': case 'less_equals_bytes': case 'greater_equals_bytes':
      case 'equals': case 'not_equals': {
        const l = size(args[0]);
        const r = size(args[1]);
        const smallestMax = r.max < l.max ? r.max : l.max;
        return { cost: add(times(range(smallestMax > 0n ? 1n : 0n, smallestMax), stringTraversal), argSum()) };
      }
    }
    return { cost: add(one, argSum()) };
  }

  private node(e: Expr): AstNode {
    let path: string[] | undefined = this.path(e);
    if (path.length > 0 && accumulators.has(path[0])) path = undefined;
    return { path: path && path.length ? path : undefined, type: this.types.get(e.id) ?? { k: 'dyn' }, expr: e, computedSize: this.computeSize(e) };
  }

  private path(e: Expr): string[] {
    if (e.exprKind.case === 'identExpr') {
      const v = this.peek(e.exprKind.value.name);
      if (v) return v.path;
    }
    return this.paths.get(e.id) ?? [];
  }

  private sizeOf(n: AstNode): Range {
    return n.computedSize ?? this.estimator.estimateSize(n) ?? unknownSize;
  }

  private sizeOrUnknown(e: Expr): Range {
    return this.computeSize(e) ?? unknownSize;
  }

  private copySizes(dst: Expr, src: Expr): void {
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst.id, s);
    const entry = this.computeEntrySize(src);
    if (entry) this.entrySizes.set(dst.id, entry);
  }

  private computeSize(e: Expr): Range | undefined {
    const known = this.sizes.get(e.id);
    if (known) return known;
    const literal = exprSize(e);
    if (literal) return literal;
    const t = this.types.get(e.id) ?? { k: 'dyn' as const };
    const path = this.path(e);
    const estimated = this.estimator.estimateSize({ path: path.length ? path : undefined, type: t, expr: e });
    if (estimated) {
      this.sizes.set(e.id, estimated);
      return estimated;
    }
    if (isScalar(t)) return one;
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.size;
    return undefined;
  }

  private computeEntrySize(e: Expr): EntrySize | undefined {
    const known = this.entrySizes.get(e.id);
    if (known) return known;
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.entry;
    return undefined;
  }

  private pushIter(name: string, r: Expr, which: 'key' | 'value' | 'single'): void {
    const entry = this.computeEntrySize(r);
    const list = entry ? entry.list : kindOf(this.types.get(r.id)) === 'list';
    let size: Range | undefined;
    let sub: string;
    if (which === 'key') {
      size = entry?.key;
      sub = list ? '@indices' : '@keys';
    } else if (which === 'value') {
      size = entry?.val;
      sub = list ? '@items' : '@values';
    } else {
      size = list ? entry?.val : entry?.key;
      sub = list ? '@items' : '@keys';
    }
    this.push(name, { path: [...this.path(r), sub], size });
  }

  private pushLocal(name: string, e: Expr): void {
    this.push(name, { path: this.path(e), size: this.computeSize(e), entry: this.computeEntrySize(e) });
  }

  private push(name: string, v: LocalVar): void {
    let stack = this.vars.get(name);
    if (!stack) this.vars.set(name, (stack = []));
    stack.push(v);
  }

  private pop(name: string): void {
    this.vars.get(name)?.pop();
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.vars.get(name);
    return stack?.[stack.length - 1];
  }
}

/** `@it[k]`: ./syntax.ts's binding of a two-variable comprehension's value. */
function isValueBinding(e: Expr): boolean {
  if (e.exprKind.case !== 'callExpr' || e.exprKind.value.function !== '_[_]') return false;
  const it = e.exprKind.value.args[0];
  return it?.exprKind.case === 'identExpr' && it.exprKind.value.name === '@it';
}

/** cel-go's computeExprSize: a literal's size, a literal list's or map's entries. */
function exprSize(e: Expr): Range | undefined {
  const k = e.exprKind;
  if (k.case === 'constExpr') {
    const c = k.value.constantKind;
    if (c.case === 'stringValue') return range(BigInt([...c.value].length));
    if (c.case === 'bytesValue') return range(BigInt(c.value.length));
    return c.case === undefined ? undefined : one;
  }
  if (k.case === 'listExpr') return range(BigInt(k.value.elements.length));
  if (k.case === 'structExpr' && k.value.messageName === '') return range(BigInt(k.value.entries.length));
  return undefined;
}

function isScalar(t: CelT): boolean {
  if (t.k === 'prim') return ['bool', 'double', 'int', 'uint', 'google.protobuf.Duration', 'google.protobuf.Timestamp'].includes(t.name);
  return t.k === 'opaque' && t.name === 'optional_type' && isScalar(t.params[0]);
}

/** The estimated cost of a checked expression. */
export function estimateCost(expr: Expr, types: ReadonlyMap<bigint, CelT>, overloads: ReadonlyMap<bigint, readonly string[]>, estimator: Estimator): Range {
  return new Coster(types, overloads, estimator).cost(expr);
}
