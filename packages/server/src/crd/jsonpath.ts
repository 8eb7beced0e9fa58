/**
 * The JSONPath subset CRDs' additionalPrinterColumns use (client-go's jsonpath, as kube's
 * CRD table convertor runs it): `.a.b`, `.a\.b`, `['a.b']`, `[0]`, `[*]`, `..a` and filters
 * `[?(@.type=="Ready")]` comparing with ==, !=, <, <=, >, >=, or testing a field's presence.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'recursive'; name: string }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

export class JSONPathError extends Error {}

/** client-go's isTerminator: what ends a field name after `.`. */
function isTerminator(c: string): boolean {
  return ' \t\r\n.,[]$@{}'.includes(c);
}

function parseSteps(src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  // client-go's parseField: a name runs to the next terminator not escaped by a backslash, and
  // the backslashes are dropped, so `.metadata.labels.strimzi\.io/cluster` names one label.
  const ident = () => {
    const start = i;
    while (i < src.length && !isTerminator(src[i])) i += src[i] === '\\' ? 2 : 1;
    if (i === start) throw new JSONPathError(`unexpected path string at ${i}: ${src}`);
    return src.slice(start, Math.min(i, src.length)).replace(/\\/g, '');
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '@' || c === '$') {
      i++;
    } else if (src.startsWith('..', i)) {
      i += 2;
      steps.push({ kind: 'recursive', name: ident() });
    } else if (c === '.') {
      i++;
      if (i < src.length && src[i] !== '.' && src[i] !== '[') steps.push({ kind: 'field', name: ident() });
    } else if (c === '[') {
      const end = matchingBracket(src, i);
      const inner = src.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$/.test(inner) || /^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new JSONPathError(`unsupported subscript [${inner}] in ${src}`);
    } else if (/\s/.test(c)) {
      i++;
    } else {
      steps.push({ kind: 'field', name: ident() });
    }
  }
  return steps;
}

function matchingBracket(src: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let j = open; j < src.length; j++) {
    const c = src[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JSONPathError(`unclosed array expect ] in ${src}`);
}

function parseFilter(expr: string): Step {
  const m = /^(@[^=!<>\s]*)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(expr.trim());
  if (!m) return { kind: 'filter', path: parseSteps(expr.trim()) };
  const raw = m[3].trim();
  let value: unknown = raw;
  if (/^'.*'$/.test(raw) || /^".*"$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  return { kind: 'filter', path: parseSteps(m[1]), op: m[2], value };
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==': return a === b;
    case '!=': return a !== b;
    case '<': return (a as number) < (b as number);
    case '<=': return (a as number) <= (b as number);
    case '>': return (a as number) > (b as number);
    default: return (a as number) >= (b as number);
  }
}

function apply(values: unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (step.kind === 'field') {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && step.name in v) out.push((v as Record<string, unknown>)[step.name]);
    } else if (step.kind === 'index') {
      if (Array.isArray(v)) {
        const i = step.index < 0 ? v.length + step.index : step.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
    } else if (step.kind === 'all') {
      if (Array.isArray(v)) out.push(...v);
      else if (v !== null && typeof v === 'object') out.push(...Object.values(v));
    } else if (step.kind === 'recursive') {
      const walk = (x: unknown) => {
        if (Array.isArray(x)) x.forEach(walk);
        else if (x !== null && typeof x === 'object') {
          const o = x as Record<string, unknown>;
          if (step.name in o) out.push(o[step.name]);
          Object.values(o).forEach(walk);
        }
      };
      walk(v);
    } else {
      const items = Array.isArray(v) ? v : [v];
      for (const item of items) {
        const found = evaluate(step.path, item);
        if (step.op === undefined ? found.length > 0 : found.length > 0 && compare(found[0], step.op, step.value)) out.push(item);
      }
    }
  }
  return out;
}

function evaluate(steps: Step[], root: unknown): unknown[] {
  let values = [root];
  for (const s of steps) values = apply(values, s);
  return values;
}

/** A compiled path: `find` answers every match in document order. */
export function compileJSONPath(path: string): { find(obj: unknown): unknown[] } {
  let src = path.trim();
  if (src.startsWith('{') && src.endsWith('}')) src = src.slice(1, -1);
  const steps = parseSteps(src);
  return { find: (obj) => evaluate(steps, obj) };
}
