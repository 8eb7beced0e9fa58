/**
 * The CEL syntax kube 1.35's environment accepts beyond what @bufbuild/cel 0.6.1's parser reads,
 * brought to calls of helper functions (./helpers.ts) the planner can run:
 *
 * - optional syntax (cel-go's OptionalTypes, in kube's base environment since 1.29): `a.?b`,
 *   `a[?k]`, `[?x]` list elements, `{?k: v}` map entries, and the `optMap` / `optFlatMap` macros.
 *   As in cel-go, once a select chain has an optional step every later `.f` and `[k]` of the
 *   chain is optional too: an absent field ends it with `optional.none()`. A variable bound to
 *   an optional (a CRD rule's `oldSelf` with optionalOldSelf) starts such a chain: cel-go's
 *   checker makes `.f` of an optional-typed operand an optional select.
 * - two-variable comprehensions (cel-go's TwoVarComprehensions, kube 1.33+): `all(k, v, p)`,
 *   `exists`, `existsOne`, `transformList`, `transformMap`, `transformMapEntry`.
 * - the lists extension's `sortBy(e, key)` macro, as cel-go expands it (`@sortByAssociatedKeys`).
 *
 * The expression text is first rewritten so the parser can read it (the `?` marks become the
 * marker call `__opt__(…)` or the field prefix `__opt__`), then the tree is rewritten.
 */
import { parse } from '@bufbuild/cel';
import { requestResourceVariable } from './authz.js';

type ParsedExpr = ReturnType<typeof parse>;
type Expr = NonNullable<ParsedExpr['expr']>;

const optMark = '__opt__';

/** Length of the string literal starting at `i` (after any r/b prefix already copied), or 0. */
function stringLength(src: string, i: number): number {
  const q = src[i];
  if (q !== '"' && q !== "'") return 0;
  // A raw string (r"…", rb'…') has no escapes; the prefix must not end an identifier.
  let p = i - 1;
  let raw = false;
  while (p >= 0 && /[rRbB]/.test(src[p]) && i - p <= 2) {
    if (src[p] === 'r' || src[p] === 'R') raw = true;
    p--;
  }
  if (p >= 0 && /[A-Za-z0-9_]/.test(src[p])) raw = false;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') { j += 2; continue; }
    if (src.startsWith(close, j)) return j + close.length - i;
    if (!triple && src[j] === '\n') break;
    j++;
  }
  return src.length - i;
}

interface Group { open: string; wrapped: boolean }

/**
 * The text with optional marks the parser reads: `.?f` → `.__opt__f`; an element, index or map
 * key starting with `?` → `__opt__(…)`. Strings and comments are copied as they are.
 */
export function markOptionalSyntax(src: string): string {
  if (!src.includes('?')) return src;
  let out = '';
  let i = 0;
  const groups: Group[] = [];
  const copySpace = () => {
    while (i < src.length && /\s/.test(src[i])) out += src[i++];
  };
  const maybeOptional = (g: Group) => {
    copySpace();
    if (src[i] === '?') {
      i++;
      out += `${optMark}(`;
      g.wrapped = true;
    }
  };
  const unwrap = (g: Group | undefined) => {
    if (g?.wrapped) {
      out += ')';
      g.wrapped = false;
    }
  };
  while (i < src.length) {
    const c = src[i];
    const n = stringLength(src, i);
    if (n > 0) {
      out += src.slice(i, i + n);
      i += n;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      out += src.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '.') {
      let j = i + 1;
      while (j < src.length && /\s/.test(src[j])) j++;
      if (src[j] === '?') {
        j++;
        while (j < src.length && /\s/.test(src[j])) j++;
        out += `.${optMark}`;
        i = j;
        continue;
      }
    }
    out += c;
    i++;
    const top = groups[groups.length - 1];
    if (c === '(' || c === '[' || c === '{') {
      const g = { open: c, wrapped: false };
      groups.push(g);
      if (c !== '(') maybeOptional(g);
    } else if (c === ')' || c === ']' || c === '}') {
      const g = groups.pop();
      if (g?.wrapped) out = `${out.slice(0, -1)})${c}`;
    } else if (c === ',' && top && top.open !== '(') {
      if (top.wrapped) {
        out = `${out.slice(0, -1)}),`;
        top.wrapped = false;
      }
      maybeOptional(top);
    } else if (c === ':' && top?.open === '{' && top.wrapped) {
      out = out.slice(0, -1);
      unwrap(top);
      out += ':';
    }
  }
  return out;
}

/** Builds the expressions the rewrite adds, with ids after the parser's. */
class Nodes {
  constructor(private next: bigint) {}
  private expr(exprKind: Expr['exprKind']): Expr {
    return { $typeName: 'cel.expr.Expr', id: this.next++, exprKind } as Expr;
  }
  ident(name: string): Expr {
    return this.expr({ case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name } } as Expr['exprKind']);
  }
  str(value: string): Expr {
    return this.expr({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value } } } as Expr['exprKind']);
  }
  bool(value: boolean): Expr {
    return this.expr({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value } } } as Expr['exprKind']);
  }
  int(value: bigint): Expr {
    return this.expr({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value } } } as Expr['exprKind']);
  }
  call(fn: string, args: Expr[], target?: Expr): Expr {
    return this.expr({ case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args, target } } as Expr['exprKind']);
  }
  list(elements: Expr[]): Expr {
    return this.expr({ case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] } } as Expr['exprKind']);
  }
  emptyMap(): Expr {
    return this.expr({ case: 'structExpr', value: { $typeName: 'cel.expr.Expr.CreateStruct', messageName: '', entries: [] } } as Expr['exprKind']);
  }
  fold(iterVar: string, iterRange: Expr, accuVar: string, accuInit: Expr, loopCondition: Expr, loopStep: Expr, result: Expr): Expr {
    return this.expr({
      case: 'comprehensionExpr',
      value: { $typeName: 'cel.expr.Expr.Comprehension', iterVar, iterVar2: '', iterRange, accuVar, accuInit, loopCondition, loopStep, result },
    } as Expr['exprKind']);
  }
  /** cel.bind(name, value, body): a comprehension over nothing whose accumulator is `name`. */
  bind(name: string, value: Expr, body: Expr): Expr {
    return this.fold('#unused', this.list([]), name, value, this.bool(false), this.ident(name), body);
  }
}

function maxId(e: unknown, acc = 0n): bigint {
  if (Array.isArray(e)) return e.reduce((a: bigint, x) => maxId(x, a), acc);
  if (e === null || typeof e !== 'object') return acc;
  const o = e as Record<string, unknown>;
  let m = typeof o.id === 'bigint' && o.id > acc ? o.id : acc;
  for (const [k, v] of Object.entries(o)) if (k !== 'id' && typeof v === 'object') m = maxId(v, m);
  return m;
}

/** `optional.<fn>(…)` calls that make an optional. */
const makesOptional = new Set(['of', 'ofNonZeroValue', 'none']);
const isOptionalStep = (e: Expr) => e.exprKind.case === 'callExpr' && ['__optSelect', '__optIndex'].includes(e.exprKind.value.function);
const isMark = (e: Expr | undefined): e is Expr => e?.exprKind.case === 'callExpr' && e.exprKind.value.function === optMark && !e.exprKind.value.target && e.exprKind.value.args.length === 1;
const identName = (e: Expr | undefined) => (e?.exprKind.case === 'identExpr' ? e.exprKind.value.name : undefined);

class Rewriter {
  constructor(private b: Nodes, private optionalVariables: ReadonlySet<string>) {}

  /**
   * An operand whose value is optional: a step of an optional chain, a variable bound to an
   * optional, or a call that makes one (`optional.of(x)`, `optional.none()`, `a.or(b)`).
   */
  private isOptional(operand: Expr): boolean {
    if (isOptionalStep(operand) || this.optionalVariables.has(identName(operand) ?? '')) return true;
    if (operand.exprKind.case !== 'callExpr') return false;
    const { function: fn, target } = operand.exprKind.value;
    if (fn === 'or') return target !== undefined && this.isOptional(target);
    return identName(target) === 'optional' && makesOptional.has(fn);
  }

  expr(e: Expr): Expr {
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        const operand = this.expr(k.value.operand!);
        if (k.value.field.startsWith(optMark)) return this.b.call('__optSelect', [operand, this.b.str(k.value.field.slice(optMark.length))]);
        // kube declares `authorizer.requestResource` as one variable of a dotted name.
        if (identName(operand) === 'authorizer' && k.value.field === 'requestResource' && !k.value.testOnly) return this.b.ident(requestResourceVariable);
        if (this.isOptional(operand)) {
          const step = this.b.call('__optSelect', [operand, this.b.str(k.value.field)]);
          // has() over an optional chain: whether the whole chain is present.
          return k.value.testOnly ? this.b.call('hasValue', [], step) : step;
        }
        return { ...e, exprKind: { ...k, value: { ...k.value, operand } } } as Expr;
      }
      case 'callExpr':
        return this.call(e, k.value);
      case 'listExpr':
        return this.list(e, k.value.elements.map((x) => x));
      case 'structExpr':
        return this.struct(e);
      case 'comprehensionExpr': {
        const v = k.value;
        return { ...e, exprKind: { ...k, value: { ...v, iterRange: this.expr(v.iterRange!), accuInit: this.expr(v.accuInit!), loopCondition: this.expr(v.loopCondition!), loopStep: this.expr(v.loopStep!), result: this.expr(v.result!) } } } as Expr;
      }
      default:
        return e;
    }
  }

  private call(e: Expr, c: Extract<Expr['exprKind'], { case: 'callExpr' }>['value']): Expr {
    const b = this.b;
    const fn = c.function;
    const raw = c.args;
    if (c.target) {
      const twoVar = this.twoVarComprehension(fn, c.target, raw);
      if (twoVar) return twoVar;
      if (fn === 'sortBy' && raw.length === 2 && identName(raw[0])) {
        // cel-go's lists macro: cel.bind(@in, list, @in.@sortByAssociatedKeys(@in.map(e, key)))
        const input = '@sortBy_input';
        const keys = b.fold(identName(raw[0])!, b.ident(input), '@keys', b.list([]), b.bool(true), b.call('_+_', [b.ident('@keys'), b.list([this.expr(raw[1])])]), b.ident('@keys'));
        return b.bind(input, this.expr(c.target), b.call('@sortByAssociatedKeys', [keys], b.ident(input)));
      }
      if ((fn === 'optMap' || fn === 'optFlatMap') && raw.length === 2 && identName(raw[0])) {
        // cel-go's macros: opt.hasValue() ? optional.of(cel.bind(v, opt.value(), e)) : optional.none()
        const opt = '@opt';
        const bound = b.bind(identName(raw[0])!, b.call('value', [], b.ident(opt)), this.expr(raw[1]));
        const some = fn === 'optMap' ? b.call('optional.of', [bound]) : bound;
        return b.bind(opt, this.expr(c.target), b.call('_?_:_', [b.call('hasValue', [], b.ident(opt)), some, b.call('optional.none', [])]));
      }
    }
    if (fn === '_[_]' && raw.length === 2) {
      const operand = this.expr(raw[0]);
      if (isMark(raw[1])) return b.call('__optIndex', [operand, this.expr((raw[1].exprKind.value as { args: Expr[] }).args[0])]);
      if (this.isOptional(operand)) return b.call('__optIndex', [operand, this.expr(raw[1])]);
      return b.call('_[_]', [operand, this.expr(raw[1])]);
    }
    const args = raw.map((a) => this.expr(a));
    const target = c.target ? this.expr(c.target) : undefined;
    return { ...e, exprKind: { case: 'callExpr', value: { ...c, args, target } } } as Expr;
  }

  /** A list literal with `?x` elements: the plain runs and each present optional concatenated. */
  private list(e: Expr, elements: Expr[]): Expr {
    if (!elements.some(isMark)) {
      const k = e.exprKind as Extract<Expr['exprKind'], { case: 'listExpr' }>;
      return { ...e, exprKind: { ...k, value: { ...k.value, elements: elements.map((x) => this.expr(x)) } } } as Expr;
    }
    const parts: Expr[] = [];
    let run: Expr[] = [];
    for (const x of elements) {
      if (isMark(x)) {
        if (run.length > 0) parts.push(this.b.list(run));
        run = [];
        parts.push(this.b.call('__optList', [this.expr((x.exprKind.value as { args: Expr[] }).args[0])]));
      } else run.push(this.expr(x));
    }
    if (run.length > 0) parts.push(this.b.list(run));
    return parts.reduce((acc, p) => this.b.call('_+_', [acc, p]));
  }

  /** A map literal with `?k: v` entries: the plain entries, then each present optional put in. */
  private struct(e: Expr): Expr {
    const k = e.exprKind as Extract<Expr['exprKind'], { case: 'structExpr' }>;
    const entries = k.value.entries.map((en) => {
      const key = en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined;
      return { en, optional: isMark(key), key };
    });
    const plain = entries.filter((x) => !x.optional).map(({ en }) => ({
      ...en,
      keyKind: en.keyKind.case === 'mapKey' ? { case: 'mapKey' as const, value: this.expr(en.keyKind.value) } : en.keyKind,
      value: en.value ? this.expr(en.value) : en.value,
    }));
    const base = { ...e, exprKind: { ...k, value: { ...k.value, entries: plain } } } as Expr;
    if (k.value.messageName !== '') return base;
    return entries.filter((x) => x.optional).reduce((acc, { en, key }) => this.b.call('__optMapPut', [acc, this.expr((key!.exprKind.value as { args: Expr[] }).args[0]), this.expr(en.value!)]), base);
  }

  /**
   * cel-go's two-variable macros, as folds over the target's keys (a list's indices) with the
   * second variable bound to the value at each key. The target is evaluated once.
   */
  private twoVarComprehension(fn: string, target: Expr, args: Expr[]): Expr | undefined {
    const known = ['all', 'exists', 'existsOne', 'exists_one', 'transformList', 'transformMap', 'transformMapEntry'];
    if (!known.includes(fn) || args.length < 3 || args.length > 4) return undefined;
    const k = identName(args[0]);
    const v = identName(args[1]);
    if (!k || !v) return undefined;
    if (args.length === 4 && !fn.startsWith('transform')) return undefined;
    const b = this.b;
    const it = '@it';
    const acc = '@result';
    const withValue = (body: Expr) => b.bind(v, b.call('_[_]', [b.ident(it), b.ident(k)]), body);
    const keys = b.call('__iterKeys', [b.ident(it)]);
    let fold: Expr;
    switch (fn) {
      case 'all':
        fold = b.fold(k, keys, acc, b.bool(true), b.call('@not_strictly_false', [b.ident(acc)]), b.call('_&&_', [b.ident(acc), withValue(this.expr(args[2]))]), b.ident(acc));
        break;
      case 'exists':
        fold = b.fold(k, keys, acc, b.bool(false), b.call('@not_strictly_false', [b.call('!_', [b.ident(acc)])]), b.call('_||_', [b.ident(acc), withValue(this.expr(args[2]))]), b.ident(acc));
        break;
      case 'existsOne':
      case 'exists_one':
        fold = b.fold(k, keys, acc, b.int(0n), b.bool(true), b.call('_?_:_', [withValue(this.expr(args[2])), b.call('_+_', [b.ident(acc), b.int(1n)]), b.ident(acc)]), b.call('_==_', [b.ident(acc), b.int(1n)]));
        break;
      default: {
        const value = withValue(this.expr(args[args.length - 1]));
        const filter = args.length === 4 ? withValue(this.expr(args[2])) : undefined;
        const step = fn === 'transformList' ? b.call('_+_', [b.ident(acc), b.list([value])])
          : fn === 'transformMap' ? b.call('__mapInsert', [b.ident(acc), b.ident(k), value])
            : b.call('__mapMerge', [b.ident(acc), value]);
        const init = fn === 'transformList' ? b.list([]) : b.emptyMap();
        fold = b.fold(k, keys, acc, init, b.bool(true), filter ? b.call('_?_:_', [filter, step, b.ident(acc)]) : step, b.ident(acc));
      }
    }
    return b.bind(it, this.expr(target), fold);
  }
}

/** `expr` parsed as kube's CEL environment reads it; throws the parser's error. */
export function parseKube(expr: string, optionalVariables: readonly string[] = []): ParsedExpr {
  const parsed = parse(markOptionalSyntax(expr));
  if (!parsed.expr) return parsed;
  const rewritten = new Rewriter(new Nodes(maxId(parsed.expr) + 1n), new Set(optionalVariables)).expr(parsed.expr);
  return { ...parsed, expr: rewritten };
}
