/**
 * Field selectors as kube parses them (k8s.io/apimachinery/pkg/fields/selector.go):
 * comma-separated `field=value`, `field==value`, `field!=value` terms, where `\`, `,`
 * and `=` in values are backslash-escaped. Which fields exist per kind is the server's call.
 */
import { newBadRequest } from './status.js';

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  readonly empty: boolean;
  readonly requirements: readonly FieldRequirement[];
  /** `get` returns a field's value; a missing field compares as "" as in kube's fields.Set. */
  matches(get: (field: string) => string | undefined): boolean;
  /** The exact value required for `field` by a `=` term, if any (kube's RequiresExactMatch). */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the offending rune with %v, i.e. as its code point number.
    else if (c === ',' || c === '=') throw newBadRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw newBadRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// `!=` and `==` are tried before `=` at each position, so `a!=b` is not `a!` = `b`.
function splitTerm(term: string): { lhs: string; op: '=' | '==' | '!='; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

class Selector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(get: (field: string) => string | undefined): boolean {
    return this.requirements.every((r) => ((get(r.field) ?? '') === r.value) === (r.operator === '='));
  }
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** Parses a `fieldSelector` parameter; errors are 400 BadRequest with kube's messages. */
export function parseFieldSelector(s: string): FieldSelector {
  // kube sorts the raw terms, which fixes the order of requirements and of String().
  const parts = splitTerms(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw newBadRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const value = unescapeFieldValue(t.rhs);
    reqs.push({ field: t.lhs, operator: t.op === '!=' ? '!=' : '=', value });
  }
  return new Selector(reqs);
}

/** The selector that matches everything, as an absent `fieldSelector` parameter. */
export function everythingFieldSelector(): FieldSelector {
  return new Selector([]);
}
