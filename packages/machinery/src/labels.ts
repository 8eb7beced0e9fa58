/**
 * Label selectors as kube parses them (k8s.io/apimachinery/pkg/labels/selector.go):
 * same lexer, same grammar, same error strings, because `?labelSelector=` errors are
 * returned verbatim to clients as 400 BadRequest.
 */
import { newBadRequest } from './status.js';
import { goQuote, isQualifiedName, isValidLabelValue } from './validation.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  /** True when the selector selects everything (no requirements). */
  readonly empty: boolean;
  readonly requirements: readonly LabelRequirement[];
  matches(labels?: Record<string, string>): boolean;
  toString(): string;
}

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const string2token: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string) => '=!(),><'.includes(ch) && ch !== '';

/** Byte-wise like Go's lexer; a JS string index stands in for a byte offset, which only matters for ASCII symbols. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const read = () => (pos < s.length ? s[pos++] : '');
  for (;;) {
    let ch = read();
    while (ch !== '' && isWhitespace(ch)) ch = read();
    if (ch === '') {
      items.push({ tok: Tok.EndOfString, lit: '' });
      return items;
    }
    if (isSpecialSymbol(ch)) {
      pos--;
      let buf = '';
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === '') break;
        if (!isSpecialSymbol(c)) {
          pos--;
          break;
        }
        buf += c;
        const t = string2token[buf];
        if (t !== undefined) last = { tok: t, lit: buf };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    pos--;
    let buf = '';
    for (;;) {
      const c = read();
      if (c === '') break;
      if (isSpecialSymbol(c) || isWhitespace(c)) {
        pos--;
        break;
      }
      buf += c;
    }
    const t = string2token[buf];
    items.push({ tok: t ?? Tok.Identifier, lit: buf });
  }
}

class SelectorParseError extends Error {}

const fail = (msg: string): never => {
  throw new SelectorParseError(msg);
};

function invalid(field: string, value: string | string[], detail: string): string {
  const v = typeof value === 'string' ? goQuote(value) : JSON.stringify(value);
  return `${field}: Invalid value: ${v}: ${detail}`;
}

// Go's Error() of an aggregate: one message alone, several in brackets.
function aggregate(errs: string[]): string {
  const uniq = [...new Set(errs)];
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(', ')}]`;
}

function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v) || !isInt64(v)) {
          errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      break;
  }
  values.forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, vErrs.join('; ')));
  });
  if (errs.length) fail(aggregate(errs));
  return { key, operator, values };
}

function isInt64(v: string): boolean {
  const n = BigInt(v);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  // In value context the keywords `in`/`notin` are plain identifiers (`a in (in)`).
  private lookahead(values: boolean): Item {
    return this.asContext(this.items[this.position], values);
  }

  private consume(values: boolean): Item {
    return this.asContext(this.items[this.position++], values);
  }

  private asContext(it: Item, values: boolean): Item {
    if (values && (it.tok === Tok.In || it.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: it.lit };
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          try {
            reqs.push(this.parseRequirement());
          } catch (e) {
            if (e instanceof SelectorParseError) fail(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          const t = this.consume(true);
          if (t.tok === Tok.EndOfString) return reqs;
          if (t.tok === Tok.Comma) {
            const t2 = this.lookahead(true);
            if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) fail(`found '${t2.lit}', expected: identifier after ','`);
            break;
          }
          return fail(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          return fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    // Go keeps values in a sorted string set.
    return newRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator?: LabelOperator } {
    let operator: LabelOperator | undefined;
    let it = this.consume(true);
    if (it.tok === Tok.DoesNotExist) {
      operator = '!';
      it = this.consume(true);
    }
    if (it.tok !== Tok.Identifier) fail(`found '${it.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(it.lit);
    // The parser validates keys against a nil field path, which Go prints as "<nil>".
    if (keyErrs.length) fail(invalid('<nil>', it.lit, keyErrs.join('; ')));
    const next = this.lookahead(true).tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && operator !== '!') operator = 'exists';
    return { key: it.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        return fail(`found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) fail(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume(true).tok !== Tok.ClosedPar) fail(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume(true);
        return new Set(['']);
      default:
        return fail(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        return fail(`found '${t2.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        // Empty values are allowed between commas: `(,a)`, `(a,)`, `(a,,b)`.
        if (s.size === 0) s.add('');
        const t2 = this.lookahead(true).tok;
        if (t2 === Tok.ClosedPar) {
          s.add('');
          return s;
        }
        if (t2 === Tok.Comma) s.add('');
        continue;
      }
      return fail(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === Tok.EndOfString || next === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    return fail(`found '${lit}', expected: identifier`);
  }
}

function matchesRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const val = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(val!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(val!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(val!) || !isInt64(val!) || r.values.length !== 1) return false;
      const lv = BigInt(val!);
      const rv = BigInt(r.values[0]);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const opText: Record<LabelOperator, string> = {
    '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<', exists: '', '!': '',
  };
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const vals = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${r.key}${opText[r.operator]}(${vals})` : `${r.key}${opText[r.operator]}${vals}`;
}

class InternalSelector implements LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Record<string, string> = {}): boolean {
    return this.requirements.every((r) => matchesRequirement(r, labels));
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** The selector that matches everything, as an absent `labelSelector` parameter. */
export function everythingLabelSelector(): LabelSelector {
  return new InternalSelector([]);
}

/** Parses kube's label selector syntax; syntax or validation errors throw a 400 BadRequest StatusError. */
export function parseLabelSelector(s: string): LabelSelector {
  let reqs: LabelRequirement[];
  try {
    reqs = new Parser(lex(s)).parse();
  } catch (e) {
    if (e instanceof SelectorParseError) throw newBadRequest(e.message);
    throw e;
  }
  // Stable sort by key, as Go's sort.Sort(ByKey) gives deterministic String() output.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return new InternalSelector(reqs);
}

/** A selector requiring every label of the set (kube's SelectorFromSet). */
export function labelSelectorFromSet(set: Record<string, string>): LabelSelector {
  const reqs = Object.keys(set)
    .sort()
    .map((k): LabelRequirement => ({ key: k, operator: '=', values: [set[k]] }));
  return new InternalSelector(reqs);
}

/** A metav1.LabelSelector object (matchLabels, matchExpressions) as found in specs. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

const expressionOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * kube's LabelSelectorAsSelector: a nil selector selects nothing (undefined here), an empty
 * one everything; requirements sorted by key as kube's String() prints them. Throws on an
 * unknown operator (validation refuses those before any object is stored).
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector | undefined {
  if (sel === null || sel === undefined) return undefined;
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, operator: '=', values: [v] });
  for (const e of sel.matchExpressions ?? []) {
    const operator = expressionOperators[e.operator];
    if (!operator) throw newBadRequest(`"${e.operator}" is not a valid label selector operator`);
    reqs.push({ key: e.key, operator, values: operator === 'in' || operator === 'notin' ? [...(e.values ?? [])].sort() : [] });
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return new InternalSelector(reqs);
}
