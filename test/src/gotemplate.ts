/**
 * A small renderer for the subset of Go templates (text/template plus Helm's functions) that
 * helm/windlass uses, since no helm binary can be installed here: `{{ .Values.x }}`, `$`,
 * `$var`, `{{- … -}}` trimming, comments, `define`/`include`, `if`/`else`/`end`, `range`
 * (over lists, maps and `until N`, with `$i, $e :=`), pipelines, and the functions `toYaml`,
 * `nindent`, `indent`, `quote`, `default`, `until`. Anything else is an error, so a template
 * that strays outside the subset fails the test rather than rendering wrongly.
 */
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const yaml = createRequire(import.meta.url)('js-yaml') as { load(s: string): unknown; loadAll(s: string): unknown[]; dump(v: unknown, o?: object): string };

type Node =
  | { t: 'text'; s: string }
  | { t: 'action'; p: string }
  | { t: 'if'; p: string; then: Node[]; else: Node[] }
  | { t: 'range'; vars: string[]; p: string; body: Node[] }
  | { t: 'define'; name: string; body: Node[] };

function tokenize(src: string): Array<{ text?: string; action?: string }> {
  const out: Array<{ text?: string; action?: string }> = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open < 0) { out.push({ text: src.slice(i) }); break; }
    out.push({ text: src.slice(i, open) });
    const close = src.indexOf('}}', open);
    if (close < 0) throw new Error('unclosed {{');
    let inner = src.slice(open + 2, close);
    if (inner.startsWith('- ') || inner === '-') {
      const last = out[out.length - 1];
      last.text = last.text!.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    let trimAfter = false;
    if (inner.endsWith(' -') || inner === '-') { trimAfter = true; inner = inner.slice(0, -1); }
    out.push({ action: inner.trim() });
    i = close + 2;
    if (trimAfter) while (i < src.length && /\s/.test(src[i])) i++;
  }
  return out;
}

function parse(src: string): Node[] {
  const tokens = tokenize(src);
  let pos = 0;
  const block = (stopAt: string[]): { nodes: Node[]; stop: string } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const tok = tokens[pos++];
      if (tok.text !== undefined) { if (tok.text) nodes.push({ t: 'text', s: tok.text }); continue; }
      const a = tok.action!;
      if (a.startsWith('/*')) continue;
      const word = a.split(/\s+/)[0];
      if (stopAt.includes(word)) return { nodes, stop: word };
      if (word === 'if') {
        const then = block(['else', 'end']);
        const els = then.stop === 'else' ? block(['end']).nodes : [];
        nodes.push({ t: 'if', p: a.slice(2).trim(), then: then.nodes, else: els });
      } else if (word === 'range') {
        const m = /^range\s+(?:(\$\w+)\s*(?:,\s*(\$\w+)\s*)?:=\s*)?(.+)$/.exec(a)!;
        nodes.push({ t: 'range', vars: [m[1], m[2]].filter(Boolean), p: m[3], body: block(['end']).nodes });
      } else if (word === 'define') {
        nodes.push({ t: 'define', name: JSON.parse(a.slice(6).trim()), body: block(['end']).nodes });
      } else if (['else', 'end', 'with', 'template', 'block'].includes(word)) {
        throw new Error(`unsupported or unbalanced {{ ${a} }}`);
      } else nodes.push({ t: 'action', p: a });
    }
    if (stopAt.length) throw new Error(`missing {{ end }}`);
    return { nodes, stop: '' };
  };
  return block([]).nodes;
}

function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

interface Scope { dot: unknown; root: unknown; vars: Record<string, unknown> }

export class ChartRenderer {
  private defines = new Map<string, Node[]>();

  constructor(private templates: Map<string, Node[]>) {
    for (const nodes of templates.values()) for (const n of nodes) if (n.t === 'define') this.defines.set(n.name, n.body);
  }

  static load(chartDir: string): ChartRenderer {
    const templates = new Map<string, Node[]>();
    for (const f of readdirSync(join(chartDir, 'templates')).sort()) templates.set(f, parse(readFileSync(join(chartDir, 'templates', f), 'utf8')));
    return new ChartRenderer(templates);
  }

  /** Every manifest the chart renders, as objects, in template order (templates starting with _ only define). */
  render(root: unknown): any[] {
    const docs: any[] = [];
    for (const [name, nodes] of this.templates) {
      if (name.startsWith('_')) continue;
      const text = this.exec(nodes, { dot: root, root, vars: { $: root } });
      for (const d of yaml.loadAll(text)) if (d) docs.push(d);
    }
    return docs;
  }

  private exec(nodes: Node[], s: Scope): string {
    let out = '';
    for (const n of nodes) {
      if (n.t === 'text') out += n.s;
      else if (n.t === 'define') continue;
      else if (n.t === 'action') out += str(this.pipeline(n.p, s));
      else if (n.t === 'if') out += this.exec(truthy(this.pipeline(n.p, s)) ? n.then : n.else, s);
      else if (n.t === 'range') {
        const v = this.pipeline(n.p, s);
        const entries: Array<[unknown, unknown]> = Array.isArray(v) ? v.map((e, i) => [i, e])
          : v && typeof v === 'object' ? Object.keys(v).sort().map((k) => [k, (v as any)[k]]) : [];
        for (const [k, e] of entries) {
          const vars = { ...s.vars };
          if (n.vars.length === 1) vars[n.vars[0]] = e;
          if (n.vars.length === 2) { vars[n.vars[0]] = k; vars[n.vars[1]] = e; }
          out += this.exec(n.body, { ...s, dot: e, vars });
        }
      }
    }
    return out;
  }

  private pipeline(p: string, s: Scope): unknown {
    const stages = splitOutsideQuotes(p, '|');
    let value: unknown;
    stages.forEach((stage, i) => {
      const args = splitOutsideQuotes(stage, ' ').filter(Boolean);
      value = this.command(args, s, i === 0 ? [] : [value]);
    });
    return value;
  }

  private command(words: string[], s: Scope, piped: unknown[]): unknown {
    const [head, ...rest] = words;
    const fn = (this.functions as Record<string, (...a: unknown[]) => unknown>)[head];
    if (fn) return fn(...rest.map((w) => this.term(w, s)), ...piped);
    if (rest.length || piped.length) throw new Error(`unsupported command: ${words.join(' ')}`);
    return this.term(head, s);
  }

  private term(w: string, s: Scope): unknown {
    if (w.startsWith('"')) return JSON.parse(w);
    if (/^-?\d+$/.test(w)) return Number(w);
    if (w === 'true' || w === 'false') return w === 'true';
    let base: unknown;
    let path: string;
    if (w.startsWith('$')) {
      const m = /^(\$\w*)(.*)$/.exec(w)!;
      if (!(m[1] in s.vars)) throw new Error(`undefined variable ${m[1]}`);
      base = s.vars[m[1]];
      path = m[2];
    } else if (w.startsWith('.')) {
      base = s.dot;
      path = w === '.' ? '' : w;
    } else throw new Error(`unsupported function or term: ${w}`);
    for (const key of path.split('.').filter(Boolean)) base = base === undefined || base === null ? undefined : (base as any)[key];
    return base;
  }

  private functions = {
    include: (name: unknown, ctx: unknown) => {
      const body = this.defines.get(String(name));
      if (!body) throw new Error(`no template ${String(name)}`);
      return this.exec(body, { dot: ctx, root: ctx, vars: { $: ctx } });
    },
    toYaml: (v: unknown) => (v === undefined || v === null ? 'null' : yaml.dump(v, { sortKeys: true, lineWidth: -1 }).replace(/\n$/, '')),
    nindent: (n: unknown, v: unknown) => `\n${this.functions.indent(n, v)}`,
    indent: (n: unknown, v: unknown) => str(v).split('\n').map((l) => ' '.repeat(Number(n)) + l).join('\n'),
    quote: (v: unknown) => JSON.stringify(str(v)),
    default: (d: unknown, v: unknown) => (truthy(v) ? v : d),
    until: (n: unknown) => Array.from({ length: Number(n) }, (_, i) => i),
  };
}

function splitOutsideQuotes(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"' && s[i - 1] !== '\\') quoted = !quoted;
    if (c === sep && !quoted) { parts.push(cur.trim()); cur = ''; } else cur += c;
  }
  parts.push(cur.trim());
  return parts;
}

/** `.Values` deep-merged with overrides (maps merge, everything else replaces), as `helm --set`/`-f` do. */
export function mergeValues(base: any, over: any): any {
  if (!over || typeof over !== 'object' || Array.isArray(over) || !base || typeof base !== 'object' || Array.isArray(base)) return over === undefined ? base : over;
  const out: any = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeValues(base[k], v);
  return out;
}

/** A JSON Schema check covering what values.schema.json uses: type, required, properties, items, enum, minimum, maximum, minLength, pattern. */
export function schemaErrors(schema: any, value: unknown, at = 'values'): string[] {
  const errors: string[] = [];
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value;
  if (schema.type && !(schema.type === type || (schema.type === 'number' && type === 'integer'))) return [`${at}: ${type}, want ${schema.type}`];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
  }
  if (type === 'object') {
    for (const r of schema.required ?? []) if (!(r in (value as object))) errors.push(`${at}.${r}: required`);
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if ((value as any)[k] !== undefined) errors.push(...schemaErrors(sub, (value as any)[k], `${at}.${k}`));
    }
  }
  if (type === 'array' && schema.items) (value as unknown[]).forEach((e, i) => errors.push(...schemaErrors(schema.items, e, `${at}[${i}]`)));
  return errors;
}
